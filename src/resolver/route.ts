// Pure request parsing for the resolver: which file a request names, or why it names none.
// No I/O and no Node APIs, so the same code runs in serve, Workers and CloudFront. CloudFront
// Functions run a subset of ES2020 (no for…of, spread or destructuring): a test parses the
// bundle and holds this module and its imports to that subset.
import { checkRepositoryUrl } from '../model/repository-url.ts';
import {
  API_PREFIX,
  BADGE_ID_PATTERN,
  EXTRA_BADGE_STYLES,
  isLatestOnly,
  type ExtraBadgeStyle,
  type Resource,
} from '../model/layout.ts';

export interface RouteTarget {
  /** Encoded canonical repository URL: the key segment. */
  encoded: string;
  resource: Resource | { kind: 'index' };
  /** Set on `/at/<ts>/…` paths: a per-time file named directly. */
  at?: { timestamp: number; expired: boolean };
  /** Set when the query asks for `?timestamp=T`. */
  timestamp?: number;
}

type RouteResult =
  | { ok: true; target: RouteTarget }
  | { ok: false; status: 400 | 404 | 405; detail: string; badgeId?: string };

const BADGE_ID = new RegExp(BADGE_ID_PATTERN);
// The file a path ends in; the repository part before it may arrive decoded, with slashes.
const FILE = /\/(sarif|code-scanning\.sarif|index\.json|badges\/([^/]*))$/;
// <id>[.<style>].svg, <id>.json or <id>: <id>.<style>.svg is the key ?style= maps to; named
// directly (a static front end, or the AWS origin-response parsing the key it missed) it is the same file.
const BADGE_FILE = new RegExp(
  `^([\\s\\S]*?)(?:\\.(${EXTRA_BADGE_STYLES.join('|')})(?=\\.svg$))?(\\.svg|\\.json)?$`,
);

export function route(method: string, path: string, query: string): RouteResult {
  if (method !== 'GET' && method !== 'HEAD') return fail(405, `${safe(method)}: use GET or HEAD`);
  if (path.length > 8192) return fail(400, 'the path is too long');
  const prefix = `/${API_PREFIX}`;
  const file = FILE.exec(path);
  if (path.indexOf(prefix) !== 0 || !file) return fail(404, 'no such resource');
  let rest = path.slice(prefix.length, file.index);
  let resource: RouteTarget['resource'];
  let badgeId: string | undefined;
  if (file[2] === undefined)
    resource = {
      kind: file[1] === 'sarif' ? 'sarif' : file[1] === 'index.json' ? 'index' : 'code-scanning',
    };
  else {
    const m = BADGE_FILE.exec(file[2])!;
    badgeId = m[1]!;
    if (!BADGE_ID.test(badgeId))
      return fail(404, `unknown badge id ${JSON.stringify(safe(badgeId))}`);
    if (m[2]) resource = { kind: 'styled', badgeId, style: m[2] as ExtraBadgeStyle };
    else resource = { kind: !m[3] ? 'explanation' : m[3] === '.svg' ? 'svg' : 'shields', badgeId };
  }

  let at: RouteTarget['at'];
  const atMatch = /\/at\/(\d{1,16})(\/expired)?$/.exec(rest);
  if (atMatch && resource.kind !== 'index') {
    const ts = Number(atMatch[1]);
    if (!Number.isSafeInteger(ts)) return fail(400, 'bad time in the path', badgeId);
    at = { timestamp: ts, expired: atMatch[2] !== undefined };
    rest = rest.slice(0, atMatch.index);
  }

  const segment = canonicalSegment(rest);
  if (!segment.ok) return fail(400, segment.reason, badgeId);
  const encoded = segment.encoded;

  const t = timestampParam(query);
  if (t === 'bad') return fail(400, 'timestamp must be one integer (Unix seconds)', badgeId);
  const style = queryParam(query, 'style');
  if (style !== undefined && resource.kind === 'svg') {
    if (
      style === 'bad' ||
      !(style === 'flat' || (EXTRA_BADGE_STYLES as readonly string[]).includes(style))
    ) {
      return fail(400, `style must be one of flat, ${EXTRA_BADGE_STYLES.join(', ')}`, badgeId);
    }
    // A styled badge is latest-only: with a time it is refused just below.
    if (style !== 'flat')
      resource = { kind: 'styled', badgeId: resource.badgeId, style: style as ExtraBadgeStyle };
  }
  if (resource.kind !== 'index' && isLatestOnly(resource) && (at || t !== undefined)) {
    return fail(400, 'this file exists for the latest result only', badgeId);
  }
  const target: RouteTarget = { encoded, resource };
  if (at) target.at = at;
  if (t !== undefined && !at && resource.kind !== 'index') target.timestamp = t;
  return { ok: true, target };
}

const SEGMENT_SHAPE = 'the repository segment must be an encoded <scheme>://<host>/<path> URL';

/** The repository part, encoded or decoded, as the canonical key segment, or why it is none. */
export function canonicalSegment(
  raw: string,
): { ok: true; encoded: string } | { ok: false; reason: string } {
  if (raw.length === 0) return { ok: false, reason: SEGMENT_SHAPE };
  let decoded = raw;
  // A decoded URL holds "://" already; decoding it again would change a literal "%".
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\//.test(raw)) {
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return { ok: false, reason: `${SEGMENT_SHAPE} (bad %-escape)` };
    }
  }
  // Some front ends merge "//" into "/": restore the URL's "://".
  decoded = decoded.replace(/^([A-Za-z][A-Za-z0-9+.-]*):\/(?!\/)/, '$1://');
  const c = checkRepositoryUrl(decoded);
  if (c.ok) return { ok: true, encoded: c.encoded };
  // A URL of the wrong shape gets the example; any other problem (too long, a control
  // character) is said of the request's segment, in printable ASCII.
  if (c.problem === 'shape') return { ok: false, reason: SEGMENT_SHAPE };
  return { ok: false, reason: printable(`the repository URL in the path ${c.fact}`) };
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

function fail(status: 400 | 404 | 405, detail: string, badgeId?: string): RouteResult {
  const result: RouteResult = { ok: false, status, detail };
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
