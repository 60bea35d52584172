// The repository URL is the only identifier of a repository. Its canonical form and its one
// encoding are used for every key on disk, in S3, and by the resolver, so this module is pure
// (no Node APIs) and shared by the build and every resolver adapter.

/** Longest encoded repository segment we write: one path segment on common file systems. */
export const MAX_SEGMENT_BYTES = 255;

const URL_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#\s]+)\/([\s\S]+)$/;
// C0 controls, DEL and C1 controls never belong in an identifier that ends up in a path.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// A lone UTF-16 surrogate (String#isWellFormed, spelled out for CloudFront Functions).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a URL, for callers that word it for their own context. */
export type UrlProblem = 'not-string' | 'empty' | 'surrogate' | 'control' | 'shape' | 'too-long';

export type CanonicalResult =
  | { ok: true; url: string; encoded: string }
  /** `fact` names no subject ("holds a control character"); `reason` is it said of a stored repositoryUrl. */
  | { ok: false; problem: UrlProblem; fact: string; reason: string };

// No default parameter: this module also runs as a CloudFront Function, which has none.
function fail(problem: UrlProblem, fact: string, advice: string): CanonicalResult {
  return { ok: false, problem, fact, reason: `repositoryUrl ${fact}${advice}` };
}

/**
 * Check `<scheme>://<host>/<path>`, lower-case scheme and host (ASCII letters only) and keep
 * everything after the host exactly as given: no percent-encoding or decoding, no trailing
 * slash or `.git` removal, so the identifier is what the scanner wrote.
 */
export function canonicalRepositoryUrl(input: unknown): CanonicalResult {
  if (typeof input !== 'string') return fail('not-string', 'must be a string', '');
  if (input.length === 0) return fail('empty', 'is empty', '');
  if (LONE_SURROGATE.test(input)) return fail('surrogate', 'holds an unpaired UTF-16 surrogate', '');
  if (CONTROL.test(input)) return fail('control', 'holds a control character', '');
  const m = URL_SHAPE.exec(input);
  if (!m) return fail('shape', `${JSON.stringify(truncate(input))} is not of the form <scheme>://<host>/<path>`, '');
  const url = `${asciiLower(m[1]!)}://${asciiLower(m[2]!)}/${m[3]!}`;
  const encoded = encodeURIComponent(url);
  if (encoded.length > MAX_SEGMENT_BYTES) {
    return fail('too-long', `encodes to ${encoded.length} bytes, more than the ${MAX_SEGMENT_BYTES} one path segment may hold`, '; shorten the URL');
  }
  return { ok: true, url, encoded };
}

function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (c) => c.toLowerCase());
}

function truncate(s: string): string {
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}
