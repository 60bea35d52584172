// Pure request parsing for the resolver: which file a request names, or why it names none.
// No I/O and no Node APIs, so the same code runs in serve, Workers and CloudFront. CloudFront
// Functions run a subset of ES2020 (no for…of, spread or destructuring): a test parses the
// bundle and holds this module and its imports to that subset.
import { canonicalRepositoryUrl } from '../model/repository-url.ts';
import { API_PREFIX, BADGE_ID_PATTERN, EXTRA_BADGE_STYLES, isLatestOnly, type ExtraBadgeStyle, type Resource } from '../model/layout.ts';
import { STATUS_TEXT } from '../model/http.ts';

export interface RouteTarget {
  /** Encoded canonical repository URL: the key segment. */
  encoded: string;
  resource: Resource | { kind: 'index' };
  /** Set on `/at/<ts>/…` paths: a per-time file named directly. */
  at?: { timestamp: number; expired: boolean };
  /** Set when the query asks for `?timestamp=T`. */
  timestamp?: number;
}

export type RouteResult = { ok: true; target: RouteTarget } | { ok: false; status: 400 | 404 | 405; title: string; detail: string; badgeId?: string };

const BADGE_ID = new RegExp(BADGE_ID_PATTERN);
const STYLED_FILE = new RegExp(`^(.+)\\.(${EXTRA_BADGE_STYLES.join('|')})\\.svg$`);
const MAX_PATH = 8192;

export function route(method: string, path: string, query: string): RouteResult {
  if (method !== 'GET' && method !== 'HEAD') {
    return { ok: false, status: 405, title: STATUS_TEXT[405], detail: `${safe(method)} is not allowed; this API answers GET and HEAD` };
  }
  if (path.length > MAX_PATH) return { ok: false, status: 400, title: STATUS_TEXT[400], detail: 'the path is too long' };
  const prefix = `/${API_PREFIX}`;
  if (!path.startsWith(prefix)) return notFound('no such resource; paths start with /api/v1/repositories/');
  let rest = path.slice(prefix.length);

  // Parse from the right: the repository part may arrive decoded and then holds slashes.
  let resource: RouteTarget['resource'];
  let badgeId: string | undefined;
  if (rest.endsWith('/sarif')) {
    resource = { kind: 'sarif' };
    rest = rest.slice(0, -'/sarif'.length);
  } else if (rest.endsWith('/code-scanning.sarif')) {
    resource = { kind: 'code-scanning' };
    rest = rest.slice(0, -'/code-scanning.sarif'.length);
  } else if (rest.endsWith('/index.json')) {
    resource = { kind: 'index' };
    rest = rest.slice(0, -'/index.json'.length);
  } else {
    const i = rest.lastIndexOf('/badges/');
    if (i < 0) return notFound('no such resource; expected …/sarif, …/badges/<id>.svg or …/badges/<id>');
    const last = rest.slice(i + '/badges/'.length);
    // <id>.<style>.svg is the key ?style= maps to; named directly (a static front end, or
    // the AWS origin-response parsing the key it missed) it is the same file.
    const styled = STYLED_FILE.exec(last);
    const ext = /\.(svg|json)$/.exec(last);
    badgeId = styled ? styled[1]! : ext ? last.slice(0, -ext[0].length) : last;
    if (!BADGE_ID.test(badgeId)) return notFound(`unknown badge id ${JSON.stringify(safe(badgeId))}`);
    if (styled) resource = { kind: 'styled', badgeId, style: styled[2] as ExtraBadgeStyle };
    else resource = !ext ? { kind: 'explanation', badgeId } : ext[1] === 'svg' ? { kind: 'svg', badgeId } : { kind: 'shields', badgeId };
    rest = rest.slice(0, i);
  }

  let at: RouteTarget['at'];
  const atMatch = /\/at\/(\d{1,16})(\/expired)?$/.exec(rest);
  if (atMatch && resource.kind !== 'index') {
    const ts = Number(atMatch[1]);
    if (!Number.isSafeInteger(ts)) return bad('the time in the path is not a valid Unix timestamp', badgeId);
    at = { timestamp: ts, expired: atMatch[2] !== undefined };
    rest = rest.slice(0, atMatch.index);
  }

  const segment = canonicalSegment(rest);
  if (!segment.ok) return bad(segment.reason, badgeId);
  const encoded = segment.encoded;

  const t = timestampParam(query);
  if (t === 'bad') return bad('timestamp must be one integer number of Unix seconds, e.g. ?timestamp=1763596800', badgeId);
  const style = queryParam(query, 'style');
  if (style !== undefined && resource.kind === 'svg') {
    if (style === 'bad' || !(style === 'flat' || (EXTRA_BADGE_STYLES as readonly string[]).includes(style))) {
      return bad(`style must be one of flat, ${EXTRA_BADGE_STYLES.join(', ')}`, badgeId);
    }
    if (style !== 'flat') {
      if (at || t !== undefined) return bad('?style= is for the latest badge only', badgeId);
      resource = { kind: 'styled', badgeId: resource.badgeId, style: style as ExtraBadgeStyle };
    }
  }
  if (resource.kind !== 'index' && isLatestOnly(resource) && (at || t !== undefined)) {
    return bad('this file exists for the latest result only; drop ?timestamp=', badgeId);
  }
  const target: RouteTarget = { encoded, resource };
  if (at) target.at = at;
  if (t !== undefined && !at && resource.kind !== 'index') target.timestamp = t;
  return { ok: true, target };
}

const SEGMENT_SHAPE = 'the repository segment must be a percent-encoded <scheme>://<host>/<path> URL, e.g. https%3A%2F%2Fgithub.com%2Facme%2Fwidget';

/** The repository part, encoded or decoded, as the canonical key segment, or why it is none. */
export function canonicalSegment(raw: string): { ok: true; encoded: string } | { ok: false; reason: string } {
  if (raw.length === 0) return { ok: false, reason: SEGMENT_SHAPE };
  let decoded = raw;
  // A decoded URL holds "://" already; decoding it again would change a literal "%".
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\//.test(raw)) {
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return { ok: false, reason: `${SEGMENT_SHAPE}; this one holds a malformed percent-escape` };
    }
  }
  // Some front ends merge "//" into "/": restore the URL's "://".
  decoded = decoded.replace(/^([A-Za-z][A-Za-z0-9+.-]*):\/(?!\/)/, '$1://');
  const c = canonicalRepositoryUrl(decoded);
  if (c.ok) return { ok: true, encoded: c.encoded };
  // A URL of the wrong shape gets the example; any other problem (too long, a control
  // character) is said of the request's segment, in printable ASCII.
  if (c.problem === 'shape') return { ok: false, reason: SEGMENT_SHAPE };
  const advice = c.problem === 'too-long' ? '; no badgepress site holds so long a URL' : '';
  return { ok: false, reason: printable(`the repository URL in the path ${c.fact}${advice}`) };
}

/** The one value of query parameter `wanted`, undefined when absent, 'bad' when repeated. */
function queryParam(query: string, wanted: string): string | undefined | 'bad' {
  let found: string | undefined;
  let count = 0;
  const parts = query.replace(/^\?/, '').split('&');
  // Index loops, not for…of: this module also runs in CloudFront Functions (see cloudfront/).
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const eq = part.indexOf('=');
    const name = formDecode(eq < 0 ? part : part.slice(0, eq));
    if (name !== wanted) continue;
    count++;
    found = eq < 0 ? '' : formDecode(part.slice(eq + 1));
  }
  if (count === 0) return undefined;
  return count > 1 || found === undefined ? 'bad' : found;
}

function timestampParam(query: string): number | undefined | 'bad' {
  const found = queryParam(query, 'timestamp');
  if (found === undefined) return undefined;
  if (found === 'bad' || !/^\d{1,16}$/.test(found)) return 'bad';
  const n = Number(found);
  return Number.isSafeInteger(n) ? n : 'bad';
}

/**
 * A query name or value as URLSearchParams reads it ('+' is a space, escapes decoded), so
 * every adapter, whether its runtime parses the query or hands over the raw string, sees
 * the same value. A malformed escape leaves the text as it is: it cannot then be digits.
 */
function formDecode(s: string): string {
  const spaced = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

function notFound(detail: string): RouteResult {
  return { ok: false, status: 404, title: STATUS_TEXT[404], detail };
}

function bad(detail: string, badgeId?: string): RouteResult {
  const result: RouteResult = { ok: false, status: 400, title: STATUS_TEXT[400], detail };
  if (badgeId) result.badgeId = badgeId;
  return result;
}

/** Request text echoed in a message: short and printable. */
export function safe(s: string): string {
  const shown = printable(s);
  return shown.length > 64 ? `${shown.slice(0, 61)}...` : shown;
}

function printable(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?');
}
