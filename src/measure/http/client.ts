// HTTP to one API host (a forge's, a dependency index's): a request queue per host and token,
// a pool of tokens used in turn, a timeout per request, rate limits honoured (Retry-After,
// reset headers), requests counted. Every request stays on the API's origin (redirects and
// next-page links elsewhere are refused), every answer is read whole within a byte bound and
// must be JSON, and a repository's work is bounded in requests, seconds and pages per list.
// What differs between APIs here (the header a token travels in, how a list pages past its
// Link header, how a limit reads) the caller states (a forge adapter's `authorize` and
// `ApiQuirks`); this file names no forge.
// A client library runs on top of `fetch` below; adapters without one call `getJson`/`pages`.
import { counted } from '../../model/plural.ts';
import { remoteText } from '../../model/safe-text.ts';
import {
  type ConditionalAnswers,
  type KeptFindings,
  type KeptShape,
  keptPart,
} from './conditional-answers.ts';
import { ApiError, httpFailure, rateLimitFailure } from './errors.ts';

/** How much one repository's forge work may take; `hosts:` may set each (scan.md lists them). */
interface ApiBounds {
  /** Pages read of one list; a longer list fails the rules that need it. */
  maxPagesPerList: number;
  /** Requests for one repository (redirects and retries included). */
  maxRequestsPerRepository: number;
  /** Seconds from a repository's first forge request to its last answer. */
  maxSecondsPerRepository: number;
  /** Bytes of one answer's body; a longer one is cut off and fails the call. */
  maxAnswerBytes: number;
}

const API_BOUNDS: Readonly<ApiBounds> = {
  maxPagesPerList: 1000,
  maxRequestsPerRepository: 10_000,
  maxSecondsPerRepository: 1800,
  maxAnswerBytes: 32 * 1024 * 1024,
};

/** Same-origin redirects followed for one request; more is a failed call. */
const MAX_REDIRECTS = 5;

/** A Retry-After or reset time further off than this (a day) is read as this far. */
export const MAX_RESET_SECONDS = 86_400;

/**
 * How one forge API differs from the plain case at the transport, stated by its adapter
 * (adapter/<kind>/index.ts); an API that states none pages by Link header alone and answers
 * 429 past its limit.
 */
export interface ApiQuirks {
  /**
   * The next page of a list whose answer names none in a Link header, when the API pages by
   * other means (a header with the next page's number); `first` is the list's first page.
   */
  nextPage?(headers: Headers, first: URL): string | undefined;
  /** The status the API answers a request past its limit with (default 429). */
  exhaustedStatus?: number;
  /** A limited answer with Retry-After while requests remain in the window is a secondary limit. */
  secondaryLimits?: boolean;
  /**
   * Conditional requests worth sending: the API answers a GET sent with If-None-Match naming
   * the ETag of an unchanged answer 304 Not Modified. Without it no answer is kept for a later
   * scan and no If-None-Match is sent (an API that sends no ETag, or ignores it).
   */
  conditional?: {
    /** A 304 Not Modified answer does not count against the limit. */
    notModifiedIsFree: boolean;
    /**
     * What of a JSON answer to `path` (below the API's base URL, "/orgs/acme/repos") a later
     * 304 must hand on: the fields the adapter reads of it; undefined keeps it whole.
     */
    kept?(path: string): KeptShape | undefined;
  };
  /**
   * The rate-limit resource a request counts against, when the API limits several apart (a
   * limit met on one holds the token's requests of that one alone); default: one for all.
   */
  limitResource?(url: URL): string;
}

/** How to reach one host's API, from the `hosts:` config and the environment. */
export interface HostAccess {
  /** What the API does its own way (none for a dependency index). */
  quirks?: ApiQuirks;
  /** The API's base URL without a trailing slash (https://forge.example/api/v1). */
  apiUrl: string;
  /** Tokens from the environment variable the config names; empty for anonymous access. */
  tokens: readonly string[];
  /** The variable's name, for messages (never its value). */
  tokenEnv?: string;
  /**
   * An app's id and private key (from the variables the host's entry names), when the forge
   * lets an app act for its installations: the adapter mints short-lived tokens with them and
   * hands each repository's to `useToken`; the pool's tokens are then not used.
   */
  app?: { id: string; privateKey: string; idEnv: string; keyEnv: string };
  requestsPerSecond: number;
  timeoutSeconds: number;
  /** The longest wait for a rate limit to reset before the rules that need it give up. */
  maxWaitSeconds: number;
  /** Bounds on one repository's work; API_BOUNDS for those not given. */
  bounds?: Partial<ApiBounds>;
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

/** A rate limit holding a token's requests of one resource: when it resets and what the forge said. */
interface Hold {
  untilMs: number;
  error: ApiError;
}

/**
 * Spaces request starts so one token never sends more than its rate; waits out a reset of the
 * resource a request counts against (an API may limit several apart: ApiQuirks.limitResource).
 */
class RequestQueue {
  private nextStart = 0;
  private readonly holds = new Map<string, Hold>();
  private readonly intervalMs: number;
  constructor(intervalMs: number) {
    this.intervalMs = intervalMs;
  }

  /** The rate limit holding this token's requests of `resource`, if one was met. */
  held(resource = ''): Hold | undefined {
    return this.holds.get(resource);
  }

  async turn(signal?: AbortSignal, resource = ''): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.nextStart);
    this.nextStart = at + this.intervalMs;
    const until = Math.max(at, this.holds.get(resource)?.untilMs ?? 0);
    if (until > now) await sleep(until - now, signal);
  }

  /** Holds every later request of this token and resource until the limit's reset. */
  hold(resource: string, untilMs: number, error: ApiError): void {
    this.holds.set(resource, { untilMs, error });
  }
}

/** What a token's latest answer said of its rate-limit window: requests left and when it resets. */
interface Budget {
  remaining: number;
  resetAtMs: number;
}

/**
 * Repositories of one host to measure at once (`scan.perHost: auto`): all `ceiling` while the
 * window's budget can keep the pool's pace (tokens × requestsPerSecond) until it resets; fewer
 * in proportion when it cannot (Σ remaining ÷ seconds to reset, per token, against the pace),
 * never below 1. A token whose answers gave no budget yet is taken to keep its pace.
 */
export function hostConcurrency(
  ceiling: number,
  poolSize: number,
  requestsPerSecond: number,
  budgets: ReadonlyArray<Budget | undefined>,
  nowMs: number,
): number {
  const size = Math.max(1, poolSize);
  if (!(requestsPerSecond > 0)) return Math.max(1, ceiling);
  let pace = 0;
  let sustained = 0;
  for (let i = 0; i < size; i++) {
    pace += requestsPerSecond;
    const b = budgets[i];
    const seconds = b ? Math.max(1, (b.resetAtMs - nowMs) / 1000) : 0;
    sustained +=
      b && b.resetAtMs > nowMs
        ? Math.min(requestsPerSecond, b.remaining / seconds)
        : requestsPerSecond;
  }
  return Math.max(1, Math.min(ceiling, Math.floor((ceiling * sustained) / pace)));
}

/** The queues of one scan, shared by every repository on the same host and token. */
export class QueueRegistry {
  private readonly queues = new Map<string, RequestQueue>();
  private readonly turns = new Map<string, number>();
  /** By token, the latest budget of each resource its answers named (an API may limit several apart). */
  private readonly budgets = new Map<string, Map<string, Budget>>();

  /** Notes what an answer's headers say of a token's window (x-ratelimit-* or the IETF draft's). */
  observe(apiUrl: string, tokenIndex: number, headers: Headers, nowMs: number): void {
    const left = headers.get('x-ratelimit-remaining') ?? headers.get('ratelimit-remaining');
    if (left === null || !/^\d+$/.test(left.trim())) return;
    const resetAt = resetAtOf(headers, nowMs, true);
    if (resetAt === undefined) return;
    const key = `${apiUrl}#${tokenIndex}`;
    let resources = this.budgets.get(key);
    if (!resources) this.budgets.set(key, (resources = new Map()));
    resources.set(headers.get('x-ratelimit-resource') ?? '', {
      remaining: Number(left),
      resetAtMs: resetAt * 1000,
    });
  }

  /**
   * `hostConcurrency` for a host's pool from what its answers said so far (each token's tightest
   * resource); `minted`: the host uses tokens an adapter minted (an app's), sent and observed
   * as the one queue -1, the pool then unused.
   */
  inFlight(
    apiUrl: string,
    poolSize: number,
    requestsPerSecond: number,
    ceiling: number,
    minted = false,
  ): number {
    const now = Date.now();
    const rate = (b: Budget) =>
      b.resetAtMs > now ? b.remaining / Math.max(1, (b.resetAtMs - now) / 1000) : Infinity;
    const tightest = (i: number) =>
      [...(this.budgets.get(`${apiUrl}#${i}`)?.values() ?? [])].sort(
        (a, b) => rate(a) - rate(b),
      )[0];
    if (minted) return hostConcurrency(ceiling, 1, requestsPerSecond, [tightest(-1)], now);
    const budgets = Array.from({ length: Math.max(1, poolSize) }, (_, i) => tightest(i));
    return hostConcurrency(ceiling, poolSize, requestsPerSecond, budgets, now);
  }

  queue(apiUrl: string, tokenIndex: number, requestsPerSecond: number): RequestQueue {
    const key = `${apiUrl}#${tokenIndex}`;
    let q = this.queues.get(key);
    if (!q)
      this.queues.set(
        key,
        (q = new RequestQueue(requestsPerSecond > 0 ? 1000 / requestsPerSecond : 0)),
      );
    return q;
  }

  /**
   * The next token of a host's pool (round robin across the whole scan), skipping tokens held
   * by a rate limit that resets later than `maxWaitMs` from now; when every token is held that
   * long, the limit that resets first is thrown.
   */
  nextToken(
    apiUrl: string,
    poolSize: number,
    requestsPerSecond: number,
    maxWaitMs: number,
    resource = '',
  ): number {
    const size = Math.max(1, poolSize);
    const n = this.turns.get(apiUrl) ?? 0;
    this.turns.set(apiUrl, n + 1);
    let soonest: ApiError | undefined;
    let soonestAt = Infinity;
    for (let k = 0; k < size; k++) {
      const index = (n + k) % size;
      const limit = this.queue(apiUrl, index, requestsPerSecond).held(resource);
      if (!limit || limit.untilMs - Date.now() <= maxWaitMs) return index;
      if (limit.untilMs < soonestAt) [soonest, soonestAt] = [limit.error, limit.untilMs];
    }
    throw soonest!;
  }
}

interface JsonAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const CLOCK = '\\d\\d:\\d\\d:\\d\\d';
// RFC 9110 section 5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must read.
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d\\d ${MONTH} \\d{4} ${CLOCK} GMT$`);
const RFC850_DATE = new RegExp(
  `^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d\\d-${MONTH}-\\d\\d ${CLOCK} GMT$`,
);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${CLOCK} \\d{4}$`);

/**
 * Seconds to wait that a Retry-After value asks (RFC 9110 section 10.2.3): delay-seconds (a
 * non-negative integer) or an HTTP-date; at most MAX_RESET_SECONDS, a date past is 0. Anything
 * else ("-5", "1.5", "soon") is undefined: the header is ignored.
 */
export function retryAfterSeconds(value: string, nowMs: number): number | undefined {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v), MAX_RESET_SECONDS);
  const at = httpDateMs(v);
  if (at === undefined) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - nowMs) / 1000)), MAX_RESET_SECONDS);
}

/**
 * The time an HTTP-date names (RFC 9110 section 5.6.7), in ms; undefined for anything else,
 * though Date.parse may read it ("2099-01-01", a date without its zone).
 */
function httpDateMs(value: string): number | undefined {
  const v = value.trim();
  let at = NaN;
  if (IMF_FIXDATE.test(v) || RFC850_DATE.test(v)) at = Date.parse(v);
  else if (ASCTIME_DATE.test(v)) at = Date.parse(`${v} GMT`);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * Unix seconds when a 403/429 answer's limit resets, from the headers the forges send; never
 * further than MAX_RESET_SECONDS from now.
 */
export function resetAtOf(headers: Headers, nowMs: number, resetOnly = false): number | undefined {
  const now = Math.ceil(nowMs / 1000);
  const retryAfter = resetOnly ? null : headers.get('retry-after');
  const wait = retryAfter === null ? undefined : retryAfterSeconds(retryAfter, nowMs);
  if (wait !== undefined) return now + wait;
  for (const name of ['x-ratelimit-reset', 'ratelimit-reset']) {
    const v = headers.get(name);
    if (v !== null && /^\d+$/.test(v.trim())) {
      const n = Number(v);
      // Large forges send an epoch; the IETF draft (a proxy before a small forge) sends seconds left.
      const at = n > 1e9 ? n : now + n;
      return Math.min(at, now + MAX_RESET_SECONDS);
    }
  }
  return undefined;
}

/** A rate-limited answer: 429, or 403 with no requests left. */
export function isRateLimited(status: number, headers: Headers): boolean {
  return (
    status === 429 ||
    (status === 403 &&
      (headers.get('x-ratelimit-remaining') === '0' ||
        headers.get('ratelimit-remaining') === '0' ||
        headers.has('retry-after')))
  );
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Statuses whose answer has no body (a Response refuses one for them). */
const NO_BODY_STATUSES = new Set([101, 204, 205, 304]);

export class ApiClient {
  /** Requests sent for this repository, redirects and retries included. */
  requests = 0;
  /** Those answered 304 Not Modified (a conditional GET whose stored answer was reused). */
  get notModified(): number {
    return this.answers?.notModified ?? 0;
  }

  readonly access: HostAccess;
  readonly label: string;
  readonly bounds: Readonly<ApiBounds>;
  private readonly registry: QueueRegistry;
  /** The parse readWhole made of each whole JSON answer it checked, by the Response it returned. */
  private readonly parsedBodies = new WeakMap<Response, unknown>();
  private readonly authorize: (token: string) => [string, string];
  private readonly signal?: AbortSignal;
  /** The answers of the repository's last scan, asked again with If-None-Match. */
  private readonly answers?: ConditionalAnswers;
  /**
   * Where the adapter reads the findings of the repository's last scan and keeps this scan's
   * (the same file as the answers, on every forge: findings need no conditional request).
   */
  readonly keptFindings?: KeptFindings;
  /**
   * The forge's clock at its latest answer with a valid Date header (an HTTP-date), in ms;
   * undefined while none has come.
   */
  forgeDateMs?: number;
  /** A token the adapter minted for this repository (an app installation's), used instead of the pool. */
  private ownToken?: string;
  /** Every secret a message must never show: the pool's tokens and those minted. */
  readonly secrets: string[];
  private readonly origin: string;
  /** When this repository's first request started (its time bound counts from there). */
  private startedMs?: number;
  /** The bound this repository ran into: every later call fails with it at once. */
  private exhausted?: ApiError;
  constructor(
    access: HostAccess,
    /** The API's name (the adapter's label): the start of every failure message. */
    label: string,
    registry: QueueRegistry,
    authorize: (token: string) => [string, string],
    signal?: AbortSignal,
    answers?: ConditionalAnswers,
  ) {
    this.access = access;
    // An API that answers no conditional request is asked none, and nothing is kept for it.
    this.answers = access.quirks?.conditional ? answers : undefined;
    this.keptFindings = answers;
    this.secrets = [...access.tokens];
    this.label = label;
    this.bounds = {
      ...API_BOUNDS,
      ...Object.fromEntries(Object.entries(access.bounds ?? {}).filter(([, v]) => v !== undefined)),
    };
    this.registry = registry;
    this.authorize = authorize;
    this.signal = signal;
    this.origin = new URL(access.apiUrl).origin;
  }

  /** A remote's words (a URL, an origin) made safe for a message: no token, no terminal control. */
  private quote(text: string): string {
    return remoteText(text, this.secrets);
  }

  /** Sends every later request of this repository with `token` (minted by the adapter), not the pool's. */
  useToken(token: string): void {
    this.ownToken = token;
    this.keepSecret(token);
  }

  /** Adds a secret (a minted token or signed assertion) to those no message may show. */
  keepSecret(secret: string): void {
    if (!this.secrets.includes(secret)) this.secrets.push(secret);
  }

  /** The path of a URL under the API's base, for a message ("/repos/acme/widget/releases"). */
  private where(url: URL): string {
    return this.quote(this.pathBelowApi(url));
  }

  /** The path of a URL under the API's base ("/repos/acme/widget/releases"). */
  private pathBelowApi(url: URL): string {
    const base = new URL(this.access.apiUrl).pathname.replace(/\/+$/, '');
    return base && url.pathname.startsWith(`${base}/`)
      ? url.pathname.slice(base.length)
      : url.pathname;
  }

  /** Counts one request against the repository's bounds; the seconds left for it. */
  private spend(): number {
    if (this.exhausted) throw this.exhausted;
    const { maxRequestsPerRepository: maxRequests, maxSecondsPerRepository: maxSeconds } =
      this.bounds;
    this.startedMs ??= Date.now();
    const left = maxSeconds - (Date.now() - this.startedMs) / 1000;
    if (this.requests >= maxRequests) {
      throw (this.exhausted = new ApiError(
        'bound',
        `${this.label}: more than ${counted(maxRequests, 'request', 'requests')} for this repository (maxRequestsPerRepository); the rest is not asked`,
      ));
    }
    if (left <= 0) throw this.overtime();
    this.requests++;
    return left;
  }

  private overtime(): ApiError {
    const s = this.bounds.maxSecondsPerRepository;
    return (this.exhausted = new ApiError(
      'bound',
      `${this.label}: this repository's forge work took more than ${s} s (maxSecondsPerRepository); the rest is not asked`,
    ));
  }

  /**
   * A fetch that goes through the host's queue with the next token of the pool, to the API's
   * origin only: a URL or a redirect to another origin is refused (the token stays home); a
   * same-origin redirect is followed (at most MAX_REDIRECTS). The answer comes back read whole
   * (at most maxAnswerBytes) and, when a success, checked to be JSON: a body cut off, stalled
   * or not JSON fails the call instead of reading as empty.
   */
  readonly fetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    this.fetchAs(undefined, input, init);

  /**
   * `fetch` with `token` (a signed assertion that mints tokens, say) in place of the pool's or
   * the repository's own; undefined: as `fetch`.
   */
  async fetchAs(
    token: string | undefined,
    input: string | URL | Request,
    init: RequestInit = {},
  ): Promise<Response> {
    if (token !== undefined) this.keepSecret(token);
    let url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== this.origin) {
      throw new ApiError(
        'refused',
        `${this.label}: a link to another origin (${this.quote(url.origin)}) is not followed; only ${this.origin} is asked`,
      );
    }
    let method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    let body = init.body;
    if (input instanceof Request && init.headers === undefined)
      init = { ...init, headers: input.headers };
    for (let hop = 0; ; hop++) {
      const key = method === 'GET' ? this.answerKey(url, init) : undefined;
      const stored = key === undefined ? undefined : this.answers?.stored(key);
      const asked =
        stored && !new Headers(init.headers).has('if-none-match')
          ? { ...init, headers: withHeader(init.headers, 'if-none-match', stored.etag) }
          : init;
      const { response, timeout, capped } = await this.send(url, method, body, asked, token);
      // A Date that is no HTTP-date is none: the last valid one stands.
      const date = httpDateMs(response.headers.get('date') ?? '');
      if (date !== undefined) this.forgeDateMs = date;
      if (!REDIRECT_STATUSES.has(response.status)) {
        const whole = await this.readWhole(url, response, timeout, capped);
        if (key === undefined || !this.answers) return whole;
        // Links are kept relative to the origin and made absolute again against this request's
        // URL: a stored answer never points the next page at an origin the host no longer has.
        if (whole.status === 304 && stored && asked !== init)
          return this.answers.reuse(key, stored, whole.headers, (link) => absoluteLinks(link, url));
        const etag = whole.headers.get('etag');
        if (whole.ok && etag) {
          const kept = new Headers(whole.headers);
          const link = kept.get('link');
          if (link !== null) kept.set('link', link.split(`<${this.origin}/`).join('</'));
          this.answers.keep(key, etag, whole.status, kept, await this.keptBody(url, whole));
        }
        return whole;
      }
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get('location');
      if (location === null)
        throw new ApiError(
          'http',
          `${this.label}: ${response.status} redirect without a Location for ${this.where(url)}`,
          response.status,
        );
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new ApiError(
          'http',
          `${this.label}: ${response.status} redirect to an unreadable Location for ${this.where(url)}`,
          response.status,
        );
      }
      if (next.origin !== this.origin) {
        throw new ApiError(
          'refused',
          `${this.label}: ${this.where(url)} answered ${response.status}, a redirect to another origin (${this.quote(next.origin)}); not followed, the token goes to ${this.origin} only`,
          response.status,
        );
      }
      if (hasUserInfo(next)) {
        throw new ApiError(
          'refused',
          `${this.label}: ${this.where(url)} answered ${response.status}, a redirect to a URL with user information; not followed, the token goes in its header only`,
          response.status,
        );
      }
      if (hop >= MAX_REDIRECTS)
        throw new ApiError(
          'http',
          `${this.label}: more than ${MAX_REDIRECTS} redirects for ${this.where(url)}`,
          response.status,
        );
      // 303, and 301/302 after a POST, turn into a GET (RFC 9110 section 15.4).
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && method === 'POST')
      ) {
        method = 'GET';
        body = undefined;
      }
      url = next;
    }
  }

  /**
   * The body a later 304 hands on: the fields the adapter reads of this answer (its `kept`
   * shape for the path), or the whole body when it names none.
   */
  private async keptBody(url: URL, whole: Response): Promise<string> {
    const shape = this.access.quirks?.conditional?.kept?.(this.pathBelowApi(url));
    if (shape === undefined) return whole.clone().text();
    const parsed = this.parsedBodies.has(whole)
      ? this.parsedBodies.get(whole)
      : await whole.clone().json();
    return JSON.stringify(keptPart(parsed, shape));
  }

  /**
   * What a GET's stored answer is filed under: its URL and the request headers the answer
   * varies by (the media type asked for, whether a token was sent), never the token. A URL
   * holding a token is never stored.
   */
  private answerKey(url: URL, init: RequestInit): string | undefined {
    if (this.secrets.some((t) => t && url.href.includes(t))) return undefined;
    const accept = new Headers(init.headers).get('accept') ?? '';
    const who = this.access.app ? 'app' : this.access.tokens.length > 0 ? 'token' : 'anonymous';
    // Filed by path and query: one repository's file serves one host (its port may change).
    return `${who} ${accept} ${url.pathname}${url.search}`;
  }

  /**
   * One request, no redirect followed: queue turn, token, timeouts, rate-limit bookkeeping.
   * With the answer, the timeout its body is read under and whether it is the repository's.
   */
  private async send(
    url: URL,
    method: string,
    body: RequestInit['body'],
    init: RequestInit,
    as?: string,
  ): Promise<{ response: Response; timeout: AbortSignal; capped: boolean }> {
    const { apiUrl, tokens, requestsPerSecond, timeoutSeconds } = this.access;
    const left = this.spend();
    const own = as ?? this.ownToken;
    const resource = this.access.quirks?.limitResource?.(url) ?? '';
    // A minted token has one queue of its own (index -1); the pool's are used in turn.
    const index =
      own !== undefined
        ? -1
        : this.registry.nextToken(
            apiUrl,
            tokens.length,
            requestsPerSecond,
            this.access.maxWaitSeconds * 1000,
            resource,
          );
    const queue = this.registry.queue(apiUrl, index, requestsPerSecond);
    const held = queue.held(resource);
    if (own !== undefined && held && held.untilMs - Date.now() > this.access.maxWaitSeconds * 1000)
      throw held.error;
    await queue.turn(this.signal, resource);
    const headers = new Headers(init.headers);
    headers.delete('authorization');
    const token = own ?? tokens[index];
    if (token !== undefined) headers.set(...this.authorize(token));
    if (!headers.has('user-agent')) headers.set('user-agent', 'badgepress');
    // The request's own timeout, or the repository's time left when that comes first.
    const capped = left < timeoutSeconds;
    const timeout = AbortSignal.timeout(
      Math.max(1, Math.ceil(Math.min(timeoutSeconds, left) * 1000)),
    );
    const signals = [timeout, init.signal, this.signal].filter((s): s is AbortSignal => !!s);
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        method,
        body,
        headers,
        redirect: 'manual',
        signal: AbortSignal.any(signals),
      });
    } catch (error) {
      throw this.failure(error, timeout, capped);
    }
    this.registry.observe(apiUrl, index, response.headers, Date.now());
    // A limit reached (the last allowed request, or one refused) holds this token until it resets.
    const limited = isRateLimited(response.status, response.headers);
    if (
      limited ||
      response.headers.get('x-ratelimit-remaining') === '0' ||
      response.headers.get('ratelimit-remaining') === '0'
    ) {
      const now = Date.now();
      const resetAt = resetAtOf(response.headers, now, !limited);
      if (resetAt !== undefined) {
        // Secondary limits come with Retry-After while requests remain in the hour.
        const secondary =
          this.access.quirks?.secondaryLimits === true &&
          limited &&
          response.headers.has('retry-after') &&
          response.headers.get('x-ratelimit-remaining') !== '0';
        // After the last allowed request, the status the forge would answer the next one with.
        const status = limited ? response.status : (this.access.quirks?.exhaustedStatus ?? 429);
        queue.hold(
          resource,
          resetAt * 1000,
          rateLimitFailure(this.label, status, resetAt, Math.floor(now / 1000), secondary),
        );
      }
    }
    return { response, timeout, capped };
  }

  /** A timeout (the request's or the repository's) as the core's error; anything else as it is. */
  private failure(error: unknown, timeout: AbortSignal, capped: boolean): unknown {
    if (
      timeout.aborted &&
      (error === timeout.reason || (error instanceof Error && error.name === 'TimeoutError'))
    ) {
      return capped
        ? this.overtime()
        : new ApiError(
            'timeout',
            `${this.label}: no answer within ${this.access.timeoutSeconds} s`,
          );
    }
    return error;
  }

  /** The answer with its body read whole (a bounded stream) and, for a success, checked as JSON. */
  private async readWhole(
    url: URL,
    response: Response,
    timeout: AbortSignal,
    capped: boolean,
  ): Promise<Response> {
    const headers = new Headers(response.headers);
    const link = headers.get('link');
    if (link !== null) headers.set('link', absoluteLinks(link, url));
    const init = { status: response.status, statusText: response.statusText, headers };
    if (NO_BODY_STATUSES.has(response.status) || !response.body) return new Response(null, init);
    const max = this.bounds.maxAnswerBytes;
    const tooLong = () =>
      new ApiError(
        'bound',
        `${this.label}: the answer to ${this.where(url)} is longer than ${max} bytes (maxAnswerBytes); not read further`,
      );
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > max) {
      await response.body.cancel().catch(() => {});
      throw tooLong();
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > max) {
          await reader.cancel().catch(() => {});
          throw tooLong();
        }
        chunks.push(value);
      }
    } catch (error) {
      if (error instanceof ApiError) throw error;
      const failed = this.failure(error, timeout, capped);
      if (failed !== error) throw failed;
      if (this.signal?.aborted) throw error;
      // The connection ended before the body did (a Content-Length or chunk not met).
      throw new ApiError(
        'network',
        `${this.label}: the answer to ${this.where(url)} was cut off after ${size} bytes`,
      );
    }
    const bytes = Buffer.concat(chunks, size);
    if (response.ok) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(bytes.toString('utf8'));
      } catch {
        parsed = undefined;
      }
      if (parsed === null || typeof parsed !== 'object') {
        throw new ApiError(
          'malformed',
          `${this.label}: the answer to ${this.where(url)} is not the JSON the API documents (${size} bytes, cut off or malformed)`,
          response.status,
        );
      }
      const whole = new Response(bytes, init);
      // getJson takes this parse instead of parsing the same bytes again.
      this.parsedBodies.set(whole, parsed);
      return whole;
    }
    return new Response(bytes, init);
  }

  /** GET a JSON answer; a rate limit is waited out (up to maxWaitSeconds, twice) and retried. */
  async getJson<T = unknown>(
    pathOrUrl: string,
    query: Record<string, string | number> = {},
  ): Promise<JsonAnswer<T>> {
    const url = new URL(
      pathOrUrl.startsWith('http') ? pathOrUrl : `${this.access.apiUrl}${pathOrUrl}`,
    );
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    for (let attempt = 0; ; attempt++) {
      const response = await this.fetch(url, { headers: { accept: 'application/json' } });
      if (response.ok) {
        const body = this.parsedBodies.has(response)
          ? this.parsedBodies.get(response)
          : await response.json();
        return { status: response.status, headers: response.headers, body: body as T };
      }
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
   * Checks one page of a list as it arrives: its items are a JSON array, the list has not run
   * past maxPagesPerList, and its next-page link neither leaves the origin nor names a page
   * seen before (a paging loop). Makes one guard per list; call it with each page.
   */
  pageGuard(path: string): (items: unknown, next: string | undefined, pageUrl?: string) => void {
    const seen = new Set<string>();
    let pages = 0;
    const where = this.quote(path);
    return (items, next, pageUrl) => {
      if (!Array.isArray(items))
        throw new ApiError(
          'malformed',
          `${this.label}: a page of ${where} is not the JSON list the API documents`,
        );
      if (pageUrl) seen.add(pageUrl);
      if (++pages >= this.bounds.maxPagesPerList && next !== undefined) {
        throw new ApiError(
          'bound',
          `${this.label}: ${where} has more than ${counted(this.bounds.maxPagesPerList, 'page', 'pages')} (maxPagesPerList); not read to its end`,
        );
      }
      if (next === undefined) return;
      let target: URL;
      try {
        target = new URL(next, this.access.apiUrl);
      } catch {
        throw new ApiError('malformed', `${this.label}: a next-page link of ${where} is not a URL`);
      }
      if (target.origin !== this.origin) {
        throw new ApiError(
          'refused',
          `${this.label}: a next-page link of ${where} points to another origin (${this.quote(target.origin)}); not followed, only ${this.origin} is asked`,
        );
      }
      if (hasUserInfo(target)) {
        throw new ApiError(
          'refused',
          `${this.label}: a next-page link of ${where} carries user information; not followed, the token goes in its header only`,
        );
      }
      if (seen.has(target.href))
        throw new ApiError(
          'http',
          `${this.label}: ${where} links a page it already gave (a paging loop); not read further`,
        );
      seen.add(target.href);
    };
  }

  /**
   * Every page of a list: follows `Link: rel="next"`, else the API's own next page (ApiQuirks).
   * `field` names the list when the answer wraps it in an object ({ workflow_runs: [...] }).
   */
  async *pages<T>(
    path: string,
    query: Record<string, string | number>,
    field?: string,
  ): AsyncGenerator<T[]> {
    // A wrapped list may be null when empty (Go encodes a nil slice so): read as no items.
    const list = (body: unknown) =>
      (field ? ((body as Record<string, unknown>)[field] ?? []) : body) as T[];
    const guard = this.pageGuard(path);
    const first = new URL(`${this.access.apiUrl}${path}`);
    for (const [k, v] of Object.entries(query)) first.searchParams.set(k, String(v));
    let pageUrl = first.href;
    let answer = await this.getJson(pageUrl);
    for (;;) {
      const items = list(answer.body);
      const next =
        nextPageUrl(answer.headers) ?? this.access.quirks?.nextPage?.(answer.headers, first);
      guard(items, items.length === 0 ? undefined : next, pageUrl);
      yield items;
      if (items.length === 0 || next === undefined) return;
      pageUrl = new URL(next, this.access.apiUrl).href;
      answer = await this.getJson(pageUrl);
    }
  }
}

/**
 * Whether a URL names a user or password (`http://user:secret@host/`): its origin is the host's,
 * but fetch refuses such a URL, and credentials travel in the token header only.
 */
function hasUserInfo(url: URL): boolean {
  return url.username !== '' || url.password !== '';
}

/**
 * A Link header with each URI reference made absolute against the URL of the answer it came
 * with (RFC 8288 section 3.2), so that a relative next-page link names the same page to every
 * reader: our pages, the page guard and Octokit (which would put it after the API's base URL).
 */
function absoluteLinks(link: string, base: URL): string {
  return link.replace(/<([^>]*)>/g, (whole, reference: string) => {
    try {
      return `<${new URL(reference, base).href}>`;
    } catch {
      return whole;
    }
  });
}

/** `headers` with one more header set (a copy: the caller's stay as they were). */
function withHeader(headers: RequestInit['headers'], name: string, value: string): Headers {
  const out = new Headers(headers);
  out.set(name, value);
  return out;
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
