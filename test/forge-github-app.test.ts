// GitHub App authentication (issue 33 item 4): the app's JWT (RS256 with a key pair made here),
// its installation looked up and a token minted, reused across repositories and minted again
// when near its end. The stand-in verifies the JWT with the public key and refuses any request
// without a minted token. Expected values are worked out by hand.
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { forgeFor } from '../src/measure/forge/index.ts';
import { discoverSources } from '../src/measure/forge/sources.ts';
import { SOURCE_DEFAULTS } from '../src/config/load.ts';
import type { ForgeRequest, ForgeResult } from '../src/measure/types.ts';
import { startGitHub, type GhRepository } from '../scripts/lib/forge-peers/github.ts';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';

const u = (iso: string) => Date.parse(iso) / 1000;
const E = u('2026-11-25T00:00:00Z');
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

let server: ForgeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// One outsider's issue of 2026-11-01, labelled by the owner two days later: 2 days.
const REPO: GhRepository = {
  issues: [
    { number: 1, created: '2026-11-01T00:00:00Z', author: { login: 'alice' }, association: 'NONE' },
  ],
  events: [
    { issue: 1, event: 'labeled', created: '2026-11-03T00:00:00Z', actor: { login: 'maint' } },
  ],
  releases: [{ tag: 'v1.0.0', published: '2026-10-01T00:00:00Z' }],
};

async function scanRepos(
  paths: string[],
  env: Record<string, string>,
  tokenSeconds?: number,
): Promise<ForgeResult[]> {
  server = await startGitHub({
    ...REPO,
    app: { id: '4242', publicKey, installationId: 77, tokenSeconds },
  });
  const host = 'ghe.example';
  const forge = forgeFor(
    {
      hosts: {
        [host]: {
          kind: 'github',
          apiUrl: server.url,
          tokenEnv: 'GH_POOL',
          appIdEnv: 'APP_ID',
          appKeyEnv: 'APP_KEY',
          requestsPerSecond: 0,
          timeoutSeconds: 5,
        },
      },
    },
    env,
  );
  const results: ForgeResult[] = [];
  for (const path of paths) {
    const request: ForgeRequest = {
      target: { url: `https://${host}/${path}`, host, path, source: 'repos.txt:1' },
      times: [E],
      asOf: E,
      git: { tagNames: new Set() },
      windowMonths: {},
      horizonMonths: 12,
    };
    results.push(await forge(request.target)!.measure(request));
  }
  expect(server.violations).toEqual([]);
  return results;
}

const mints = () =>
  server!.requests.filter(
    (q) => q.method === 'POST' && q.path === '/app/installations/77/access_tokens',
  ).length;

describe('GitHub App authentication', () => {
  it('mints one installation token for the account and measures with it, the pool unused', async () => {
    const [a, b] = await scanRepos(['acme/widget', 'acme/gadget'], {
      APP_ID: '4242',
      APP_KEY: PEM,
      GH_POOL: 'ghp_pool-not-used',
    });
    expect(a!.failures).toEqual([]);
    expect(a!.measurements[0]!.values.ISSUE_REACTION_TIME).toBe(2);
    expect(b!.measurements[0]!.values.ISSUE_REACTION_TIME).toBe(2);
    // The installation looked up once (the account's), one token for both repositories.
    expect(server!.requests.filter((q) => q.path.endsWith('/installation'))).toHaveLength(1);
    expect(mints()).toBe(1);
    expect(server!.requests.some((q) => q.headers.authorization?.includes('ghp_pool'))).toBe(false);
    // Neither the key, the JWT nor the minted token reaches a result.
    const text = JSON.stringify([a, b]);
    expect(text).not.toContain('ghs_minted');
    expect(text).not.toContain('PRIVATE KEY');
  });

  it('mints a token again when the last has less than 5 minutes left', async () => {
    await scanRepos(['acme/widget', 'acme/gadget'], { APP_ID: '4242', APP_KEY: PEM }, 120);
    expect(mints()).toBe(2);
  });

  it('a JWT signed with another key is refused: every rule null with the cause, the key not shown', async () => {
    const [r] = await scanRepos(['acme/widget'], { APP_ID: '4242', APP_KEY: other });
    expect(r!.failures).toHaveLength(1);
    expect(r!.failures[0]).toMatch(/^GitHub API: 401 .*GitHub App APP_ID/);
    expect(r!.measurements[0]!.values.RELEASES).toBeNull();
    expect(JSON.stringify(r)).not.toContain('PRIVATE KEY');
  });

  it("lists an organisation's and a user's repositories with their installations' tokens", async () => {
    server = await startGitHub({
      app: { id: '4242', publicKey, installationId: 77 },
      pageCap: 1,
      catalogue: {
        web: 'https://ghe.example',
        repos: [{ path: 'acme/One' }, { path: 'acme/Two' }, { path: 'bob/dots' }],
        renamed: { 'acme/old': 'acme/Two' },
        users: ['bob'],
      },
    });
    const host = {
      kind: 'github' as const,
      apiUrl: server.url,
      appIdEnv: 'APP_ID',
      appKeyEnv: 'APP_KEY',
    };
    const source = (url: string) => ({
      ...SOURCE_DEFAULTS,
      url,
      include: [],
      exclude: [],
      where: 'test',
    });
    const found = await discoverSources(
      [source('https://ghe.example/acme'), source('https://ghe.example/bob')],
      { hosts: { 'ghe.example': { ...host, requestsPerSecond: 0 } } },
      { APP_ID: '4242', APP_KEY: PEM },
      ['https://ghe.example/acme/old'],
    );
    expect(found.problems).toEqual([]);
    expect(found.targets.map((t) => t.url)).toEqual([
      'https://ghe.example/acme/One',
      'https://ghe.example/acme/Two',
      'https://ghe.example/bob/dots',
    ]);
    // The old name looked up with a token too: a rename, not a 401.
    expect(found.moved).toEqual([
      { from: 'https://ghe.example/acme/old', to: 'https://ghe.example/acme/Two' },
    ]);
    // acme's installation found as an organisation's, bob's (a user) after the org's 404.
    expect(
      server.requests.filter((q) => q.path.endsWith('/installation')).map((q) => q.path),
    ).toEqual(['/orgs/acme/installation', '/orgs/bob/installation', '/users/bob/installation']);
    expect(mints()).toBe(1);
    expect(server.violations).toEqual([]);
  });

  it('an id without its key is an error naming the variable that is missing', async () => {
    await expect(scanRepos(['acme/widget'], { APP_ID: '4242' })).rejects.toThrow(
      'APP_KEY is not set',
    );
  });
});
