// The resolver: answers every API request from keys alone. Pure except for the one injected
// `read(key)`, so the same core runs in `badgepress serve`, a Worker and at the AWS edge.
// It never answers 5xx for a request string, and every Location stays under /api/v1/.
import { API_PREFIX, atKey, expiredAtKey, indexKey, latestKey, resourcePath, type RepositoryIndex, type Resource } from '../model/layout.ts';
import { route, safe, type RouteTarget } from './route.ts';
import { errorBadge } from './error-badge.ts';

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
}

export interface ResolverResponse {
  status: number;
  /** Lower-case names. A HEAD answer carries the `content-length` its GET would have. */
  headers: Record<string, string>;
  /** null for HEAD, 304 and 302. */
  body: Uint8Array | string | null;
}

export interface ResolverOptions {
  /** Seconds: latest files, indexes, redirects that may change, errors. */
  latestMaxAge?: number;
  /** Seconds: per-time files, which never change. */
  immutableMaxAge?: number;
}

const JSON_TYPE = 'application/json';
const SVG_TYPE = 'image/svg+xml';

/**
 * What a request needs, decided without reading anything: an answer already (a malformed
 * request), the one key that holds the answer, or a `?timestamp=` lookup through index.json.
 * The CloudFront Function runs only this; `resolve` runs it and then reads.
 */
export type Lookup =
  | { kind: 'answer'; response: ResolverResponse }
  | { kind: 'key'; key: string; target: RouteTarget }
  | { kind: 'timestamp'; target: RouteTarget; timestamp: number };

export function lookup(req: ResolverRequest, opts?: ResolverOptions): Lookup {
  const r = route(req.method, req.path, req.query);
  if (!r.ok) {
    const response = errorAnswer(req, r.status, r.title, r.detail, opts, r.badgeId);
    if (r.status === 405) response.headers.allow = 'GET, HEAD';
    return { kind: 'answer', response };
  }
  const t = r.target;
  if (t.timestamp !== undefined) return { kind: 'timestamp', target: t, timestamp: t.timestamp };
  return { kind: 'key', key: keyOf(t), target: t };
}

/** The key of a file a route names directly: an index, a per-time file or a latest file. */
function keyOf(t: RouteTarget): string {
  const resource = t.resource;
  if (resource.kind === 'index') return indexKey(t.encoded);
  if (t.at) return t.at.expired ? expiredAtKey(t.encoded, t.at.timestamp, resource) : atKey(t.encoded, t.at.timestamp, resource);
  return latestKey(t.encoded, resource);
}

/** The public path of a route without its query: what a `?timestamp=` request is about. */
export function publicPath(t: RouteTarget): string {
  return `/${API_PREFIX}${t.encoded}/${t.resource.kind === 'index' ? 'index.json' : resourcePath(t.resource)}`;
}

export async function resolve(req: ResolverRequest, read: KeyReader, opts?: ResolverOptions): Promise<ResolverResponse> {
  const found = lookup(req, opts);
  if (found.kind === 'answer') return found.response;
  const t = found.target;
  const resource = t.resource;
  const badgeId = 'badgeId' in resource ? resource.badgeId : undefined;
  const fail = (detail: string): ResolverResponse => errorAnswer(req, 404, 'Not Found', detail, opts, badgeId);

  if (found.kind === 'key') {
    const obj = await read(found.key);
    if (obj) return file(obj, resource.kind === 'index' ? JSON_TYPE : typeOf(resource), t.at ? longAge(opts) : shortAge(opts), req);
    if (resource.kind === 'index') return fail('this repository was never scanned');
    if (t.at) return fail(`no result of this repository at ${t.at.timestamp}`);
    // Only a miss pays for the index: it tells "never scanned" from "unknown badge".
    return fail(missDetail(await readIndex(read, t.encoded), badgeId));
  }

  const index = await readIndex(read, t.encoded);
  if (!index || (badgeId !== undefined && !index.badges.includes(badgeId))) return fail(missDetail(index, badgeId));
  const ts = newestAtOrBefore(index.timestamps, found.timestamp);
  if (ts === undefined) return fail(`no result at or before ${found.timestamp}; the first scan is at ${index.timestamps[0]}`);
  const expired = index.expireAfterSeconds !== undefined && found.timestamp - ts > index.expireAfterSeconds;
  const location = `/${API_PREFIX}${t.encoded}/at/${ts}/${expired ? 'expired/' : ''}${resourcePath(resource as Resource)}`;
  // A newer scan can still land at or before T only when T is past the last scan.
  const stable = found.timestamp < index.timestamps[index.timestamps.length - 1]!;
  return {
    status: 302,
    headers: { location, 'cache-control': stable ? `public, max-age=${opts?.immutableMaxAge ?? 31536000}` : shortAge(opts) },
    body: null,
  };
}

const shortAge = (opts?: ResolverOptions) => `public, max-age=${opts?.latestMaxAge ?? 300}`;
const longAge = (opts?: ResolverOptions) => `public, max-age=${opts?.immutableMaxAge ?? 31536000}, immutable`;

/** Greatest element ≤ t of an ascending array (binary search). */
export function newestAtOrBefore(ascending: readonly number[], t: number): number | undefined {
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
  const obj = await read(indexKey(encoded));
  if (!obj) return null;
  try {
    const text = typeof obj.body === 'string' ? obj.body : new TextDecoder().decode(obj.body);
    const index = JSON.parse(text) as RepositoryIndex;
    return Array.isArray(index.timestamps) && Array.isArray(index.badges) ? index : null;
  } catch {
    return null;
  }
}

function missDetail(index: RepositoryIndex | null, badgeId: string | undefined): string {
  if (!index) return 'this repository was never scanned';
  if (badgeId !== undefined && !index.badges.includes(badgeId)) {
    return `unknown badge id ${JSON.stringify(safe(badgeId))}; this site serves ${index.badges.join(', ')}`;
  }
  return 'no such file; this site may not render it (config: styles, shieldsEndpoint, codeScanning)';
}

function typeOf(r: Resource): string {
  return r.kind === 'svg' || r.kind === 'styled' ? SVG_TYPE : JSON_TYPE;
}

function file(obj: StoredObject, contentType: string, cacheControl: string, req: ResolverRequest): ResolverResponse {
  const headers: Record<string, string> = { 'content-type': contentType, 'cache-control': cacheControl };
  if (obj.etag) {
    headers.etag = obj.etag;
    if (req.ifNoneMatch && etagMatches(req.ifNoneMatch, obj.etag)) return { status: 304, headers, body: null };
  }
  return withBody(req, 200, headers, obj.body);
}

/** The answer with its body, or for HEAD without it but with the length a GET would send. */
function withBody(req: ResolverRequest, status: number, headers: Record<string, string>, body: Uint8Array | string): ResolverResponse {
  if (req.method !== 'HEAD') return { status, headers, body };
  headers['content-length'] = String(typeof body === 'string' ? utf8Length(body) : body.byteLength);
  return { status, headers, body: null };
}

/** Bytes of `s` in UTF-8, without TextEncoder (CloudFront Functions have none). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function etagMatches(header: string, etag: string): boolean {
  const bare = (e: string) => e.trim().replace(/^W\//, '');
  return header.split(',').some((e) => e.trim() === '*' || bare(e) === bare(etag));
}

/**
 * An RFC 9457 problem answer; on an `.svg` route a small "<badge> | not found" image instead,
 * so a README shows something sensible.
 */
export function errorAnswer(req: ResolverRequest, status: number, title: string, detail: string, opts: ResolverOptions | undefined, badgeId?: string): ResolverResponse {
  const headers: Record<string, string> = { 'content-type': 'application/problem+json', 'cache-control': shortAge(opts) };
  let body: string;
  if (/\.svg$/.test(req.path)) {
    headers['content-type'] = SVG_TYPE;
    const message = status === 404 ? 'not found' : status === 405 ? 'method not allowed' : 'bad request';
    body = errorBadge((badgeId ?? 'badge').toLowerCase(), message);
  } else {
    body = JSON.stringify({ type: 'about:blank', title, status, detail });
  }
  return withBody(req, status, headers, body);
}

export type { RouteTarget };
