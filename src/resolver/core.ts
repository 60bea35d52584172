// The resolver: answers every API request from keys alone. Pure except for the one injected
// `read(key)`, so the same core runs in `badgepress serve`, a Worker and at the AWS edge.
// It never answers 5xx for a request string, and every Location stays under /api/v1/.
import {
  cacheControl,
  DEFAULT_CACHE,
  PROBLEM_TYPE,
  problemBody,
  STATUS_TEXT,
  SVG_TYPE,
  HTML_TYPE,
} from '../model/http.ts';
import { contentTypeOf, fileKey, type RepositoryIndex } from '../model/layout.ts';
import { route, safe, type RouteTarget } from './route.ts';
import { errorBadge } from './error-badge.ts';
import { pageRoute, type PageRoute } from './pages.ts';

export interface StoredObject {
  body: Uint8Array | string;
  /** Quoted entity tag, when the store has one. */
  etag?: string;
}

/** The only I/O: the bytes stored under a key, or null when there are none. */
export type KeyReader = (key: string) => Promise<StoredObject | null>;

export interface ResolverRequest {
  method: string;
  /** Path as received, still percent-encoded (or decoded by a front end). */
  path: string;
  /** Query string without or with its leading "?". */
  query: string;
  ifNoneMatch?: string | null;
  /** The Accept header: a miss answers with the site's 404.html when it asks for text/html. */
  accept?: string | null;
}

export interface ResolverResponse {
  status: number;
  /** Lower-case names. A HEAD answer carries the `content-length` its GET would have. */
  headers: Record<string, string>;
  /** null for HEAD, 304 and 302. */
  body: Uint8Array | string | null;
}

export interface ResolverOptions {
  /**
   * Seconds: every API answer (latest and per-time files, indexes, redirects, errors). A
   * rebuild after a threshold change rewrites per-time files too, so none of them is immutable.
   */
  latestMaxAge?: number;
  /** Seconds: content-hashed assets of the site, the only files that never change. */
  immutableMaxAge?: number;
}

/**
 * What a request needs, decided without reading anything: an answer already (a malformed
 * request), the one key that holds the answer, or a `?timestamp=` lookup through index.json.
 * The CloudFront Function runs only this; `resolve` runs it and then reads.
 */
export type Lookup =
  | { kind: 'answer'; response: ResolverResponse }
  | { kind: 'key'; key: string; target: RouteTarget }
  /** A file of the human site (outside /api/), or api/v1/openapi.json. */
  | { kind: 'page'; key: string; page: PageRoute }
  | { kind: 'timestamp'; target: RouteTarget; timestamp: number };

export function lookup(req: ResolverRequest, opts?: ResolverOptions): Lookup {
  if (req.method === 'GET' || req.method === 'HEAD') {
    const page = pageRoute(req.path);
    if (page) return { kind: 'page', key: page.key, page };
  }
  const r = route(req.method, req.path, req.query);
  if (!r.ok) {
    const response = errorAnswer(req, r.status, r.detail, opts, r.badgeId);
    if (r.status === 405) response.headers.allow = 'GET, HEAD';
    return { kind: 'answer', response };
  }
  const t = r.target;
  if (t.timestamp !== undefined) return { kind: 'timestamp', target: t, timestamp: t.timestamp };
  return { kind: 'key', key: fileKey(t.encoded, t.resource, t.at), target: t };
}

/** The public path of a route without its query: what a `?timestamp=` request is about. */
export function publicPath(t: RouteTarget): string {
  return `/${fileKey(t.encoded, t.resource)}`;
}

export async function resolve(
  req: ResolverRequest,
  read: KeyReader,
  opts?: ResolverOptions,
): Promise<ResolverResponse> {
  const answer = await resolveFile(req, read, opts);
  if (!mayAnswerWithNotFoundPage(req, answer)) return answer;
  // A person in a browser gets the site's own 404 page; API clients keep problem+json.
  const notFound = await read('404.html');
  if (!notFound) return answer;
  // Its Content-Security-Policy, like every answer's headers but these, is added by the adapter (withAnswerHeaders).
  return withBody(
    req,
    404,
    { 'content-type': HTML_TYPE, 'cache-control': shortAge(opts) },
    notFound.body,
  );
}

/** A miss asked for by a browser (Accept: text/html, not an image): the site's 404 page answers it when the site has one. */
export function mayAnswerWithNotFoundPage(req: ResolverRequest, answer: ResolverResponse): boolean {
  return (
    answer.status === 404 && /\btext\/html\b/i.test(String(req.accept)) && !/\.svg$/.test(req.path)
  );
}

async function resolveFile(
  req: ResolverRequest,
  read: KeyReader,
  opts?: ResolverOptions,
): Promise<ResolverResponse> {
  const found = lookup(req, opts);
  if (found.kind === 'answer') return found.response;
  if (found.kind === 'page') {
    const obj = await read(found.key);
    if (!obj) return errorAnswer(req, 404, 'no such page', opts);
    return file(
      obj,
      found.page.contentType,
      found.page.immutable ? longAge(opts) : shortAge(opts),
      req,
    );
  }
  const t = found.target;
  if (found.kind === 'key') {
    const obj = await read(found.key);
    if (obj) return fileAnswer(req, t, obj, opts);
    if (t.at) return miss(req, t, `no result of this repository at ${t.at.timestamp}`, opts);
    // Only a miss pays for the index: it tells "never scanned" from "unknown badge".
    return miss(
      req,
      t,
      missDetail(
        await readIndex(read, t.encoded),
        badgeOf(t),
        (t.resource as { style?: string }).style,
      ),
      opts,
    );
  }

  return timestampAnswer(req, found, await readIndex(read, t.encoded), opts);
}

/**
 * The answer to a `?timestamp=` lookup once the repository's index is known (null when it
 * has none): the redirect to the newest file at or before the time, or why there is none.
 */
export function timestampAnswer(
  req: ResolverRequest,
  found: Extract<Lookup, { kind: 'timestamp' }>,
  index: RepositoryIndex | null,
  opts?: ResolverOptions,
): ResolverResponse {
  const t = found.target;
  const badgeId = badgeOf(t);
  if (!index || (badgeId !== undefined && !index.badges.includes(badgeId)))
    return miss(req, t, missDetail(index, badgeId), opts);
  const ts = newestAtOrBefore(index.timestamps, found.timestamp);
  if (ts === undefined)
    return miss(
      req,
      t,
      `no result at or before ${found.timestamp}; the first scan is at ${index.timestamps[0]}`,
      opts,
    );
  const expired =
    index.expireAfterSeconds !== undefined && found.timestamp - ts > index.expireAfterSeconds;
  const location = `/${fileKey(t.encoded, t.resource, { timestamp: ts, expired })}`;
  // Short even for T before the last scan: a backfilled scan (scan --history) or another
  // expireAfterDays moves the target, and a rebuild rewrites the target's judgement.
  return { status: 302, headers: { location, 'cache-control': shortAge(opts) }, body: null };
}

function badgeOf(t: RouteTarget): string | undefined {
  return (t.resource as { badgeId?: string }).badgeId;
}

/** A 404 about a route: on its badge's image when it names one. */
function miss(
  req: ResolverRequest,
  t: RouteTarget,
  detail: string,
  opts?: ResolverOptions,
): ResolverResponse {
  // A style the site does not render: the badge says so, and which it renders, not "not found".
  return errorAnswer(req, 404, detail, opts, badgeOf(t), /^style /.test(detail) ? detail : '');
}

/** The answer with the file a `key` lookup found: what `resolve` answers once it has the bytes. */
export function fileAnswer(
  req: ResolverRequest,
  t: RouteTarget,
  obj: StoredObject,
  opts?: ResolverOptions,
): ResolverResponse {
  // Per-time files too: a threshold change rebuilds them, and their ETag makes revalidating cheap.
  return file(obj, contentTypeOf(t.resource), shortAge(opts), req);
}

const shortAge = (opts?: ResolverOptions) =>
  cacheControl(opts?.latestMaxAge ?? DEFAULT_CACHE.latestMaxAge, false);
/** Content-hashed assets: a new build names new bytes with a new key, so these never change. */
const longAge = (opts?: ResolverOptions) =>
  cacheControl(opts?.immutableMaxAge ?? DEFAULT_CACHE.immutableMaxAge, true);

/** Greatest element ≤ t of an ascending array (binary search). */
function newestAtOrBefore(ascending: readonly number[], t: number): number | undefined {
  let lo = 0;
  let hi = ascending.length - 1;
  let found: number | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = ascending[mid]!;
    if (v <= t) {
      found = v;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

async function readIndex(read: KeyReader, encoded: string): Promise<RepositoryIndex | null> {
  return parseIndex(await read(fileKey(encoded, { kind: 'index' })));
}

/** A stored index.json as the resolver reads it; null when absent or not an index. */
export function parseIndex(obj: StoredObject | null): RepositoryIndex | null {
  if (!obj) return null;
  try {
    const text = typeof obj.body === 'string' ? obj.body : new TextDecoder().decode(obj.body);
    const index = JSON.parse(text) as RepositoryIndex;
    return Array.isArray(index.timestamps) && Array.isArray(index.badges) ? index : null;
  } catch {
    return null;
  }
}

function missDetail(
  index: RepositoryIndex | null,
  badgeId: string | undefined,
  style?: string,
): string {
  if (!index) return 'this repository was never scanned';
  if (badgeId !== undefined && !index.badges.includes(badgeId)) {
    return `unknown badge id ${JSON.stringify(safe(badgeId))}; this site serves ${index.badges.join(', ')}`;
  }
  // A style the site does not render is no missing file: say so, and what it renders.
  // Without styles in the index the site renders flat alone (a styled route is never flat).
  return style && (index.styles || 'flat').indexOf(style) < 0
    ? `style ${style} not rendered; only ${index.styles || 'flat'}`
    : 'no such file';
}

function file(
  obj: StoredObject,
  contentType: string,
  cacheControl: string,
  req: ResolverRequest,
): ResolverResponse {
  const headers: Record<string, string> = {
    'content-type': contentType,
    'cache-control': cacheControl,
  };
  if (obj.etag) {
    headers.etag = obj.etag;
    if (req.ifNoneMatch && etagMatches(req.ifNoneMatch, obj.etag))
      return { status: 304, headers, body: null };
  }
  return withBody(req, 200, headers, obj.body);
}

/** The answer with its body, or for HEAD without it but with the length a GET would send. */
function withBody(
  req: ResolverRequest,
  status: number,
  headers: Record<string, string>,
  body: Uint8Array | string,
): ResolverResponse {
  if (req.method !== 'HEAD') return { status, headers, body };
  headers['content-length'] = String(typeof body === 'string' ? utf8Length(body) : body.byteLength);
  return { status, headers, body: null };
}

/**
 * Bytes of `s` in UTF-8, without TextEncoder (CloudFront Functions have none): past U+007F a
 * unit takes a byte more, past U+07FF two; a surrogate pair takes 4 bytes in all, a lone
 * surrogate 3 (written as U+FFFD). Counted with regular expressions: the smallest code.
 */
function utf8Length(s: string): number {
  const units = (re: RegExp) => s.length - s.replace(re, '').length;
  return (
    s.length +
    units(/[^\0-\x7f]/g) +
    units(/[^\0-\u07ff]/g) -
    units(/[\ud800-\udbff][\udc00-\udfff]/g)
  );
}

function etagMatches(header: string, etag: string): boolean {
  const bare = (e: string) => e.trim().replace(/^W\//, '');
  return header.split(',').some((e) => e.trim() === '*' || bare(e) === bare(etag));
}

/**
 * An RFC 9457 problem answer titled with the status's reason phrase (Bad Request's for a
 * status the core never answers itself); on an `.svg` route a small "<badge> | not found"
 * image instead, so a README shows something sensible (`badgeMessage` in place of the status's words).
 */
export function errorAnswer(
  req: ResolverRequest,
  status: number,
  detail: string,
  opts: ResolverOptions | undefined,
  badgeId?: string,
  badgeMessage?: string,
): ResolverResponse {
  const title = (STATUS_TEXT[status] || STATUS_TEXT[400])!;
  const svg = /\.svg$/.test(req.path);
  const headers: Record<string, string> = {
    'content-type': svg ? SVG_TYPE : PROBLEM_TYPE,
    'cache-control': shortAge(opts),
  };
  return withBody(
    req,
    status,
    headers,
    svg
      ? errorBadge((badgeId ?? 'badge').toLowerCase(), badgeMessage || title.toLowerCase())
      : problemBody(status, title, detail),
  );
}
