// HTTP to one forge host: a request queue per host and token, a pool of tokens used in turn,
// a timeout per request, rate limits honoured (Retry-After, reset headers), requests counted.
// Octokit runs on top of `fetch` below; the GitLab and Gitea adapters call `getJson`/`pages`.
import { ForgeApiError, httpFailure, rateLimitFailure } from './errors.ts';

/** How to reach one host's API, from the `hosts:` config and the environment. */
export interface HostAccess {
  /** The forge family, or `index` for a dependency index (no token). */
  kind: 'github' | 'gitlab' | 'gitea' | 'index';
  /** The API's base URL without a trailing slash: https://api.github.com, https://gitlab.com/api/v4. */
  apiUrl: string;
  /** Tokens from the environment variable the config names; empty for anonymous access. */
  tokens: readonly string[];
  /** The variable's name, for messages (never its value). */
  tokenEnv?: string;
  requestsPerSecond: number;
  timeoutSeconds: number;
  /** The longest wait for a rate limit to reset before the rules that need it give up. */
  maxWaitSeconds: number;
}

/** The tokens of a pool variable: comma-separated, blanks dropped. */
export function tokenPool(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((ok, fail) => {
    const t = setTimeout(ok, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        fail(signal.reason);
      },
      { once: true },
    );
  });

/** Spaces request starts so one token never sends more than its rate; waits out a reset. */
export class RequestQueue {
  private nextStart = 0;
  /** Set while a rate limit holds this token: when it resets and what the forge said. */
  limit?: { untilMs: number; error: ForgeApiError };
  private readonly intervalMs: number;
  constructor(intervalMs: number) {
    this.intervalMs = intervalMs;
  }

  async turn(signal?: AbortSignal): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.nextStart);
    this.nextStart = at + this.intervalMs;
    if (at > now) await sleep(at - now, signal);
  }

  /** Holds every later request of this token until `untilMs` (a rate limit's reset). */
  pauseUntil(untilMs: number): void {
    this.nextStart = Math.max(this.nextStart, untilMs);
  }
}

/** The queues of one scan, shared by every repository on the same host and token. */
export class QueueRegistry {
  private readonly queues = new Map<string, RequestQueue>();
  private readonly turns = new Map<string, number>();

  queue(apiUrl: string, tokenIndex: number, requestsPerSecond: number): RequestQueue {
    const key = `${apiUrl}#${tokenIndex}`;
    let q = this.queues.get(key);
    if (!q) this.queues.set(key, (q = new RequestQueue(requestsPerSecond > 0 ? 1000 / requestsPerSecond : 0)));
    return q;
  }

  /**
   * The next token of a host's pool (round robin across the whole scan), skipping tokens held
   * by a rate limit that resets later than `maxWaitMs` from now; when every token is held that
   * long, the limit that resets first is thrown.
   */
  nextToken(apiUrl: string, poolSize: number, requestsPerSecond: number, maxWaitMs: number): number {
    const size = Math.max(1, poolSize);
    const n = this.turns.get(apiUrl) ?? 0;
    this.turns.set(apiUrl, n + 1);
    let soonest: ForgeApiError | undefined;
    let soonestAt = Infinity;
    for (let k = 0; k < size; k++) {
      const index = (n + k) % size;
      const limit = this.queue(apiUrl, index, requestsPerSecond).limit;
      if (!limit || limit.untilMs - Date.now() <= maxWaitMs) return index;
      if (limit.untilMs < soonestAt) [soonest, soonestAt] = [limit.error, limit.untilMs];
    }
    throw soonest!;
  }
}

export interface JsonAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** Unix seconds when a 403/429 answer's limit resets, from the headers the forges send. */
export function resetAtOf(headers: Headers, nowMs: number, resetOnly = false): number | undefined {
  const retryAfter = resetOnly ? null : headers.get('retry-after');
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) return Math.ceil(nowMs / 1000) + Number(retryAfter);
  if (retryAfter) {
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.ceil(at / 1000);
  }
  for (const name of ['x-ratelimit-reset', 'ratelimit-reset']) {
    const v = headers.get(name);
    if (v !== null && /^\d+$/.test(v.trim())) {
      const n = Number(v);
      // GitHub and GitLab send an epoch; the IETF draft (Gitea behind a proxy) sends seconds left.
      return n > 1e9 ? n : Math.ceil(nowMs / 1000) + n;
    }
  }
  return undefined;
}

/** A rate-limited answer: 429, or 403 with no requests left. */
export function isRateLimited(status: number, headers: Headers): boolean {
  return status === 429 || (status === 403 && (headers.get('x-ratelimit-remaining') === '0' || headers.get('ratelimit-remaining') === '0' || headers.has('retry-after')));
}

export class ForgeHttp {
  requests = 0;

  readonly access: HostAccess;
  readonly label: string;
  private readonly registry: QueueRegistry;
  private readonly authorize: (token: string) => [string, string];
  private readonly signal?: AbortSignal;
  constructor(
    access: HostAccess,
    /** "GitHub API", "GitLab API", "Forgejo/Gitea API": the start of every failure message. */
    label: string,
    registry: QueueRegistry,
    authorize: (token: string) => [string, string],
    signal?: AbortSignal,
  ) {
    this.access = access;
    this.label = label;
    this.registry = registry;
    this.authorize = authorize;
    this.signal = signal;
  }

  /** A fetch that goes through the host's queue with the next token of the pool. */
  readonly fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const { apiUrl, tokens, requestsPerSecond, timeoutSeconds } = this.access;
    const index = this.registry.nextToken(apiUrl, tokens.length, requestsPerSecond, this.access.maxWaitSeconds * 1000);
    const queue = this.registry.queue(apiUrl, index, requestsPerSecond);
    await queue.turn(this.signal);
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.delete('authorization');
    const token = tokens[index];
    const target = new URL(input instanceof Request ? input.url : String(input));
    // A token goes only to its own API's origin, whatever URL a library was handed.
    if (token !== undefined && target.origin === new URL(apiUrl).origin) headers.set(...this.authorize(token));
    if (!headers.has('user-agent')) headers.set('user-agent', 'badgepress');
    const timeout = AbortSignal.timeout(timeoutSeconds * 1000);
    const signals = [timeout, init.signal, this.signal].filter((s): s is AbortSignal => !!s);
    this.requests++;
    const response = await fetch(input, { ...init, headers, signal: AbortSignal.any(signals) });
    // A limit reached (the last allowed request, or one refused) holds this token until it resets.
    const limited = isRateLimited(response.status, response.headers);
    if (limited || response.headers.get('x-ratelimit-remaining') === '0' || response.headers.get('ratelimit-remaining') === '0') {
      const now = Date.now();
      const resetAt = resetAtOf(response.headers, now, !limited);
      if (resetAt !== undefined) {
        queue.pauseUntil(resetAt * 1000);
        // GitHub's secondary limits come with Retry-After while requests remain in the hour.
        const secondary = this.access.kind === 'github' && limited && response.headers.has('retry-after') && response.headers.get('x-ratelimit-remaining') !== '0';
        // After the last allowed request, the status the forge would answer the next one with.
        const status = limited ? response.status : this.access.kind === 'github' ? 403 : 429;
        queue.limit = { untilMs: resetAt * 1000, error: rateLimitFailure(this.label, status, resetAt, Math.floor(now / 1000), secondary) };
      }
    }
    return response;
  };

  /** GET a JSON answer; a rate limit is waited out (up to maxWaitSeconds, twice) and retried. */
  async getJson<T = unknown>(pathOrUrl: string, query: Record<string, string | number> = {}): Promise<JsonAnswer<T>> {
    const url = new URL(pathOrUrl.startsWith('http') ? pathOrUrl : `${this.access.apiUrl}${pathOrUrl}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.fetch(url, { headers: { accept: 'application/json' } });
      } catch (error) {
        if (error instanceof Error && error.name === 'TimeoutError') {
          throw new ForgeApiError('timeout', `${this.label}: no answer within ${this.access.timeoutSeconds} s`);
        }
        throw error;
      }
      if (response.ok) return { status: response.status, headers: response.headers, body: (await response.json()) as T };
      await response.body?.cancel();
      if (isRateLimited(response.status, response.headers)) {
        const now = Date.now();
        const resetAt = resetAtOf(response.headers, now);
        const waitMs = resetAt === undefined ? Infinity : resetAt * 1000 - now;
        if (attempt < 2 && waitMs <= this.access.maxWaitSeconds * 1000) {
          await sleep(Math.max(0, waitMs), this.signal);
          continue;
        }
        throw rateLimitFailure(this.label, response.status, resetAt, Math.floor(now / 1000));
      }
      throw httpFailure(this.label, response.status, this.access.tokenEnv);
    }
  }

  /**
   * Every page of a list: follows `Link: rel="next"` (GitHub, Gitea) or `X-Next-Page` (GitLab).
   * `field` names the list when the answer wraps it in an object ({ workflow_runs: [...] }).
   */
  async *pages<T>(path: string, query: Record<string, string | number>, field?: string): AsyncGenerator<T[]> {
    const list = (body: unknown) => ((field ? (body as Record<string, unknown>)[field] : body) ?? []) as T[];
    let answer = await this.getJson(path, query);
    for (;;) {
      const items = list(answer.body);
      yield items;
      if (items.length === 0) return;
      const next = nextPageUrl(answer.headers);
      if (next) {
        // A token goes only to the host it belongs to, whatever a Link header says.
        if (new URL(next).origin !== new URL(this.access.apiUrl).origin) {
          throw new ForgeApiError('http', `${this.label}: a next-page link points to another host`);
        }
        answer = await this.getJson(next);
      } else {
        const page = answer.headers.get('x-next-page');
        if (!page) return;
        answer = await this.getJson(path, { ...query, page });
      }
    }
  }
}

/** The `rel="next"` URL of a Link header, if any. */
export function nextPageUrl(headers: Headers): string | undefined {
  const link = headers.get('link');
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1];
  }
  return undefined;
}
