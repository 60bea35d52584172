// The repository URL is the only identifier of a repository. Its canonical form and its one
// encoding are used for every key on disk, in S3, and by the resolver, so this module is pure
// (no Node APIs) and shared by the build and every resolver adapter.

/** Longest encoded repository segment we write: one path segment on common file systems. */
const MAX_SEGMENT_BYTES = 255;

const URL_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#\s]+)\/([\s\S]+)$/;
// C0 controls, DEL and C1 controls never belong in an identifier that ends up in a path.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

// host[:port], the host a name or a bracketed IPv6 address. A name holds none of the
// characters WHATWG URL forbids in a domain (a "%" escape included: write the character).
const AUTHORITY = /^(\[[0-9A-Fa-f:.]+\]|[^\s#%/:<>?@[\\\]^|]+)(:[0-9]{1,5})?$/;
const NON_ASCII = /[^\x00-\x7f]/;

/** The schemes a build accepts when the site config names none. */
export const DEFAULT_SCHEMES: readonly string[] = ['http', 'https'];

/**
 * Why a canonical URL's scheme is not one the site accepts, or undefined. Build only: a
 * resolver does not know the site's list, and a URL nobody built is simply not found.
 */
export function schemeProblem(
  canonicalUrl: string,
  schemes: readonly string[],
): string | undefined {
  const scheme = canonicalUrl.slice(0, canonicalUrl.indexOf(':'));
  if (schemes.indexOf(scheme) >= 0) return undefined;
  return `repositoryUrl uses the scheme "${scheme}", which this site does not accept; accepted: ${schemes.join(', ')} (repositoryUrlSchemes: in the site config)`;
}

/** What is wrong with a URL, for callers that word it for their own context. */
type UrlProblem =
  | 'not-string'
  | 'empty'
  | 'surrogate'
  | 'control'
  | 'shape'
  | 'userinfo'
  | 'host'
  | 'too-long';

/**
 * A host name holding non-ASCII characters, as the WHATWG URL parser writes it (UTS 46:
 * mapped, lower-cased, punycode), or undefined when it is no valid host. The CloudFront
 * Function runs where there is no URL class: it installs a function that notes such a host
 * and leaves the request to Lambda@Edge.
 */
let asciiHost = (host: string): string | undefined => {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
};

export function setAsciiHost(convert: (host: string) => string | undefined): void {
  asciiHost = convert;
}

/** A URL checked and made canonical, or what is wrong with it (`fact` names no subject). */
type UrlCheck =
  | { ok: true; url: string; encoded: string }
  | { ok: false; problem: UrlProblem; fact: string };

export type CanonicalResult =
  | { ok: true; url: string; encoded: string }
  /** `reason` is `fact` said of a stored repositoryUrl, with what to do. */
  | { ok: false; problem: UrlProblem; fact: string; reason: string };

// What a build tells the author of a record; kept apart from checkRepositoryUrl so the edge
// bundles (which only name the fact) leave it out.
const ADVICE: Partial<Record<UrlProblem, string>> = {
  userinfo: '; remove them: the URL is published, and credentials must never be',
  host: '; write a host name, or an IPv6 address in brackets, and an optional :port',
  'too-long': '; shorten the URL',
};

/** checkRepositoryUrl, with the reason a build reports for a stored repositoryUrl. */
export function canonicalRepositoryUrl(input: unknown): CanonicalResult {
  const c = checkRepositoryUrl(input);
  return c.ok
    ? c
    : {
        ok: false,
        problem: c.problem,
        fact: c.fact,
        reason: `repositoryUrl ${c.fact}${ADVICE[c.problem] || ''}`,
      };
}

function fail(problem: UrlProblem, fact: string): UrlCheck {
  return { ok: false, problem, fact };
}

/**
 * Check `<scheme>://<host>/<path>`, lower-case the scheme, write the host in ASCII (lower
 * case, punycode labels for the rest, as DNS does) and keep everything after the host exactly
 * as given: no percent-encoding or decoding, no trailing slash or `.git` removal, so the
 * identifier is what the scanner wrote. Credentials (`user:pass@`) are refused: the URL is
 * published.
 */
export function checkRepositoryUrl(input: unknown): UrlCheck {
  if (typeof input !== 'string') return fail('not-string', 'must be a string');
  if (input.length === 0) return fail('empty', 'is empty');
  // encodeURIComponent refuses a lone UTF-16 surrogate (String#isWellFormed is newer than
  // CloudFront Functions; this is shorter in the edge bundles than a regular expression).
  try {
    encodeURIComponent(input);
  } catch {
    return fail('surrogate', 'holds an unpaired UTF-16 surrogate');
  }
  if (CONTROL.test(input)) return fail('control', 'holds a control character');
  const m = URL_SHAPE.exec(input);
  if (!m)
    return fail(
      'shape',
      `${JSON.stringify(truncate(input))} is not of the form <scheme>://<host>/<path>`,
    );
  if (m[2]!.indexOf('@') >= 0)
    return fail('userinfo', 'holds credentials (user:password@ before the host)');
  const authority = AUTHORITY.exec(m[2]!);
  const host =
    authority &&
    (NON_ASCII.test(authority[1]!) ? asciiHost(authority[1]!) : authority[1]!.toLowerCase());
  if (!host) return fail('host', `has a malformed host ${JSON.stringify(truncate(m[2]!))}`);
  const url = `${m[1]!.toLowerCase()}://${host}${authority![2] || ''}/${m[3]!}`;
  const encoded = encodeURIComponent(url);
  if (encoded.length > MAX_SEGMENT_BYTES)
    return fail(
      'too-long',
      `encodes to ${encoded.length} bytes, more than the ${MAX_SEGMENT_BYTES} one path segment may hold`,
    );
  return { ok: true, url, encoded };
}

function truncate(s: string): string {
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}
