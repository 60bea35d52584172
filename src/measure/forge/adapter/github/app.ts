// GitHub App authentication: the app signs a JSON Web Token (RS256 over header.payload, `iss`
// its id, issued 60 s back against clock drift, expiring within GitHub's 10 minutes), finds the
// repository's installation with it (GET /repos/{owner}/{repo}/installation) and exchanges it
// for an installation access token (POST /app/installations/{id}/access_tokens), good for an
// hour; a token is minted again when less than REFRESH_SECONDS of it are left. "Authenticating
// as a GitHub App installation" in GitHub's docs; node:crypto signs, no library needed.
import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import { ApiError, httpFailure } from '../../../http/errors.ts';
import type { ApiClient } from '../../../http/client.ts';

/** A token with less than this left (seconds) is minted again before use. */
const REFRESH_SECONDS = 300;

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** The app's JWT at `nowSeconds`: iat 60 s back, exp 9 minutes on (GitHub allows 10 at most). */
function appJwt(appId: string, key: KeyObject, nowSeconds: number): string {
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const payload = base64url(
    JSON.stringify({ iat: nowSeconds - 60, exp: nowSeconds + 540, iss: appId }),
  );
  const signature = createSign('RSA-SHA256').update(`${header}.${payload}`).sign(key);
  return `${header}.${payload}.${base64url(signature)}`;
}

interface Minted {
  token: string;
  expiresAtMs: number;
}

/**
 * Installation tokens of one app on one API, shared by every repository of the scan: an
 * account's installation is looked up once, its token minted once an hour.
 */
class AppTokens {
  private readonly installations = new Map<string, Promise<number>>();
  private readonly tokens = new Map<number, Promise<Minted>>();
  private key?: KeyObject;
  private readonly app: NonNullable<ApiClient['access']['app']>;
  constructor(app: NonNullable<ApiClient['access']['app']>) {
    this.app = app;
  }

  private jwt(http: ApiClient): string {
    try {
      this.key ??= createPrivateKey(this.app.privateKey.replace(/\\n/g, '\n'));
    } catch {
      throw new ApiError(
        'auth',
        `${http.label}: ${this.app.keyEnv} holds no private key in PEM form (the .pem file GitHub gave for the app); the value is not shown`,
      );
    }
    return appJwt(this.app.id, this.key, Math.floor(Date.now() / 1000));
  }

  private async json(
    http: ApiClient,
    method: 'GET' | 'POST',
    path: string,
    accepted: number,
  ): Promise<Record<string, unknown>> {
    const response = await http.fetchAs(this.jwt(http), `${http.access.apiUrl}${path}`, {
      method,
      headers: { accept: 'application/vnd.github+json' },
    });
    if (response.status !== accepted) {
      const failure = httpFailure(http.label, response.status);
      throw new ApiError(
        failure.kind,
        `${failure.message} (GitHub App ${this.app.idEnv}: ${path.replace(/\/[^/]+$/, '/…')})`,
        response.status,
      );
    }
    return (await response.json()) as Record<string, unknown>;
  }

  /** The installation token for `owner`'s repository `repo`, minted or reused. */
  async token(http: ApiClient, owner: string, repo: string): Promise<string> {
    return this.mintFor(http, owner, () =>
      this.installationId(http, `/repos/${owner}/${repo}/installation`),
    );
  }

  /**
   * The installation token of the account `owner` (an organisation's, else a user's), for
   * listing its repositories: GET /orgs/{org}/installation, then /users/{username}/installation
   * when the organisation's answers 404.
   */
  async ownerToken(http: ApiClient, owner: string): Promise<string> {
    const name = encodeURIComponent(owner);
    return this.mintFor(http, owner, () =>
      this.installationId(http, `/orgs/${name}/installation`).catch((e: unknown) => {
        if (e instanceof ApiError && e.kind === 'not-found')
          return this.installationId(http, `/users/${name}/installation`);
        throw e;
      }),
    );
  }

  private async installationId(http: ApiClient, path: string): Promise<number> {
    const body = await this.json(http, 'GET', path, 200);
    if (typeof body.id !== 'number')
      throw new ApiError(
        'malformed',
        `${http.label}: the answer to ${path} is not the JSON the API documents`,
      );
    return body.id;
  }

  /** The token of `owner`'s installation (looked up once per account by `lookUp`), minted or reused. */
  private async mintFor(
    http: ApiClient,
    owner: string,
    lookUp: () => Promise<number>,
  ): Promise<string> {
    const account = owner.toLowerCase();
    let installation = this.installations.get(account);
    if (!installation) {
      installation = lookUp();
      this.installations.set(account, installation);
      installation.catch(() => this.installations.delete(account));
    }
    const id = await installation;
    let minted = this.tokens.get(id);
    const fresh = async (m: Promise<Minted>) =>
      (await m).expiresAtMs - Date.now() > REFRESH_SECONDS * 1000;
    if (!minted || !(await fresh(minted).catch(() => false))) {
      minted = this.json(http, 'POST', `/app/installations/${id}/access_tokens`, 201).then(
        (body) => {
          const expiresAtMs = Date.parse(String(body.expires_at));
          if (typeof body.token !== 'string' || Number.isNaN(expiresAtMs))
            throw new ApiError(
              'malformed',
              `${http.label}: an installation token answer is not the JSON the API documents`,
            );
          return { token: body.token, expiresAtMs };
        },
      );
      this.tokens.set(id, minted);
      minted.catch(() => this.tokens.delete(id));
    }
    return (await minted).token;
  }
}

const apps = new Map<string, AppTokens>();

/** The app's tokens on this API, one set per API and app for the whole process. */
export function appTokens(http: ApiClient): AppTokens | undefined {
  const app = http.access.app;
  if (!app) return undefined;
  const key = `${http.access.apiUrl} ${app.id}`;
  let tokens = apps.get(key);
  if (!tokens) apps.set(key, (tokens = new AppTokens(app)));
  return tokens;
}
