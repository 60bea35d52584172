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

export async function resolve(req: ResolverRequest, read: KeyReader, opts: ResolverOptions = {}): Promise<ResolverResponse> {
  const short = `public, max-age=${opts.latestMaxAge ?? 300}`;
  const long = `public, max-age=${opts.immutableMaxAge ?? 31536000}, immutable`;
  const head = req.method === 'HEAD';
  const svgRoute = /\.svg$/.test(req.path);
  const fail = (status: number, title: string, detail: string, badgeId?: string): ResolverResponse =>
    problem(status, title, detail, svgRoute ? badgeId ?? 'badge' : undefined, short, head);

  const r = route(req.method, req.path, req.query);
  if (!r.ok) {
    const res = fail(r.status, r.title, r.detail, r.badgeId);
    if (r.status === 405) res.headers.allow = 'GET, HEAD';
    return res;
  }
  const t = r.target;
  const badgeId = 'badgeId' in t.resource ? t.resource.badgeId : undefined;

  if (t.resource.kind === 'index') {
    const obj = await read(indexKey(t.encoded));
    return obj ? file(obj, JSON_TYPE, short, req, head) : fail(404, 'Not Found', 'this repository was never scanned');
  }
  const resource = t.resource;

  if (t.at) {
    const key = t.at.expired ? expiredAtKey(t.encoded, t.at.timestamp, resource) : atKey(t.encoded, t.at.timestamp, resource);
    const obj = await read(key);
    if (obj) return file(obj, typeOf(resource), long, req, head);
    return fail(404, 'Not Found', `no result of this repository at ${t.at.timestamp}`, badgeId);
  }

  if (t.timestamp === undefined) {
    const obj = await read(latestKey(t.encoded, resource));
    if (obj) return file(obj, typeOf(resource), short, req, head);
    // Only a miss pays for the index: it tells "never scanned" from "unknown badge".
    const index = await readIndex(read, t.encoded);
    return fail(404, 'Not Found', missDetail(index, badgeId), badgeId);
  }

  const index = await readIndex(read, t.encoded);
  if (!index || (badgeId !== undefined && !index.badges.includes(badgeId))) {
    return fail(404, 'Not Found', missDetail(index, badgeId), badgeId);
  }
  const ts = newestAtOrBefore(index.timestamps, t.timestamp);
  if (ts === undefined) {
    return fail(404, 'Not Found', `no result at or before ${t.timestamp}; the first scan is at ${index.timestamps[0]}`, badgeId);
  }
  const expired = index.expireAfterSeconds !== undefined && t.timestamp - ts > index.expireAfterSeconds;
  const location = `/${API_PREFIX}${t.encoded}/at/${ts}/${expired ? 'expired/' : ''}${resourcePath(resource)}`;
  // A newer scan can still land at or before T only when T is past the last scan.
  const stable = t.timestamp < index.timestamps[index.timestamps.length - 1]!;
  return {
    status: 302,
    headers: { location, 'cache-control': stable ? `public, max-age=${opts.immutableMaxAge ?? 31536000}` : short },
    body: null,
  };
}

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
  return 'no such file';
}

function typeOf(r: Resource): string {
  return r.kind === 'svg' ? SVG_TYPE : JSON_TYPE;
}

function file(obj: StoredObject, contentType: string, cacheControl: string, req: ResolverRequest, head: boolean): ResolverResponse {
  const headers: Record<string, string> = { 'content-type': contentType, 'cache-control': cacheControl };
  if (obj.etag) {
    headers.etag = obj.etag;
    if (req.ifNoneMatch && etagMatches(req.ifNoneMatch, obj.etag)) return { status: 304, headers, body: null };
  }
  return { status: 200, headers, body: head ? null : obj.body };
}

function etagMatches(header: string, etag: string): boolean {
  const bare = (e: string) => e.trim().replace(/^W\//, '');
  return header.split(',').some((e) => e.trim() === '*' || bare(e) === bare(etag));
}

function problem(status: number, title: string, detail: string, svgLabel: string | undefined, cacheControl: string, head: boolean): ResolverResponse {
  if (svgLabel !== undefined) {
    const message = status === 404 ? 'not found' : status === 405 ? 'method not allowed' : 'bad request';
    return { status, headers: { 'content-type': SVG_TYPE, 'cache-control': cacheControl }, body: head ? null : errorBadge(svgLabel.toLowerCase(), message) };
  }
  const body = JSON.stringify({ type: 'about:blank', title, status, detail });
  return { status, headers: { 'content-type': 'application/problem+json', 'cache-control': cacheControl }, body: head ? null : body };
}

export type { RouteTarget };
