// The HTTP facts the build (headers files are published with) and every resolver adapter
// (headers answers carry) share. Pure and small: it is bundled into the Worker and the
// CloudFront Function, which have a 10 KB budget.

/**
 * Cache ages in seconds: every API answer a rebuild can change (latest and per-time files,
 * indexes, redirects, errors, pages); and content-hashed assets, which never change.
 */
export interface CacheAges {
  latestMaxAge: number;
  immutableMaxAge: number;
}

/** The cache ages a site that names none gets, from the build and from every resolver adapter alike. */
export const DEFAULT_CACHE: Readonly<CacheAges> = { latestMaxAge: 300, immutableMaxAge: 31536000 };

export const JSON_TYPE = 'application/json';
export const SVG_TYPE = 'image/svg+xml';
/** RFC 9457 problem details: every error answer that is not a badge image. */
export const PROBLEM_TYPE = 'application/problem+json';

/** Reason phrases for the statuses the resolver answers with (edge runtimes want one). */
export const STATUS_TEXT: Readonly<Record<number, string | undefined>> = {
  302: 'Found',
  304: 'Not Modified',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  503: 'Service Unavailable',
};

/**
 * Cache-Control of a file or answer: `immutable` only for what never changes under its key
 * (content-hashed assets); per-time files are rebuilt after a threshold change, so not them.
 */
export function cacheControl(maxAge: number, immutable: boolean): string {
  return `public, max-age=${maxAge}${immutable ? ', immutable' : ''}`;
}

/** The RFC 9457 body of an error answer. */
export function problemBody(status: number, title: string, detail: string): string {
  return JSON.stringify({ type: 'about:blank', title, status, detail });
}

export const HTML_TYPE = 'text/html; charset=utf-8';
/**
 * XML files of the site: the sitemap and each repository's Atom feed. The feed goes out as
 * plain XML, not application/atom+xml: Chromium shows an atom+xml answer as raw text and
 * applies no stylesheet to it, while feed readers read Atom from either type.
 */
export const XML_TYPE = 'application/xml';
/** The content type of each kind of page file, by the key's extension: what the build publishes
 *  a page with and what a resolver answers it with (any other extension is JSON). */
export const PAGE_TYPES: Readonly<Record<string, string>> = {
  html: HTML_TYPE,
  atom: XML_TYPE,
  xml: XML_TYPE,
  txt: 'text/plain; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: SVG_TYPE,
};
/** One JSON document a line: store files, summaries, the build state. */
export const NDJSON_TYPE = 'application/x-ndjson';

/** Both policies start alike (one string in the edge bundles). */
// Both policies are whole literals: a bundle that uses one keeps no part of the other.
/**
 * Pages may not run inline script: only the site's own script, stylesheet and images.
 * Inline SVG presentation attributes are not styles, so the charts need no 'unsafe-inline'.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
/**
 * An SVG opened on its own (a badge URL in a tab) is a document that could run script; no
 * SVG of a site needs any or loads anything. Inline styles stay: the social badge has a <style>.
 */
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";

/**
 * The headers every answer of every adapter carries, added to `headers` (lower-case names):
 * nosniff, so no browser reads a file as another type than the one sent (a report's JSON as
 * HTML), and a policy on pages, on XML (feeds, the sitemap) and on SVG. Written without spread: CloudFront Functions use it.
 */
export function withAnswerHeaders(headers: Record<string, string>): Record<string, string> {
  headers['x-content-type-options'] = 'nosniff';
  const type = headers['content-type'];
  // An XML file opened in a tab is a document too (a feed styled by the site's stylesheets).
  if (type === SVG_TYPE || type === HTML_TYPE || type === XML_TYPE)
    headers['content-security-policy'] = type === SVG_TYPE ? SVG_CSP : PAGE_CSP;
  return headers;
}

/**
 * The same for answers a resolver makes itself and never a page (redirects, problems, error
 * badges): all a CloudFront Function needs, whose bundle must stay small.
 */
export function withResolverAnswerHeaders(headers: Record<string, string>): Record<string, string> {
  headers['x-content-type-options'] = 'nosniff';
  if (headers['content-type'] === SVG_TYPE) headers['content-security-policy'] = SVG_CSP;
  return headers;
}

/** What every adapter answers when the store itself fails (never for a request string). */
export function unavailableAnswer(): {
  status: number;
  headers: Record<string, string>;
  body: string;
} {
  return {
    status: 503,
    headers: { 'content-type': PROBLEM_TYPE, 'cache-control': 'no-store' },
    body: problemBody(503, STATUS_TEXT[503]!, 'the site could not be read'),
  };
}
