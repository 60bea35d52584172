// The HTTP facts the build (headers files are published with) and every resolver adapter
// (headers answers carry) share. Pure and small: it is bundled into the Worker and the
// CloudFront Function, which have a 10 KB budget.

export const JSON_TYPE = 'application/json';
export const SVG_TYPE = 'image/svg+xml';
/** RFC 9457 problem details: every error answer that is not a badge image. */
export const PROBLEM_TYPE = 'application/problem+json';

const REASONS = {
  302: 'Found',
  304: 'Not Modified',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  503: 'Service Unavailable',
} as const;

/** Reason phrases for the statuses the resolver answers with (edge runtimes want one). */
export const STATUS_TEXT: typeof REASONS & Readonly<Record<number, string | undefined>> = REASONS;

/**
 * Cache-Control of a file or answer: `immutable` for per-time files, which never change; a
 * redirect that can no longer change is long-lived but not immutable (it is not a file).
 */
export function cacheControl(maxAge: number, immutable: boolean): string {
  return `public, max-age=${maxAge}${immutable ? ', immutable' : ''}`;
}

/** The RFC 9457 body of an error answer. */
export function problemBody(status: number, title: string, detail: string): string {
  return JSON.stringify({ type: 'about:blank', title, status, detail });
}

/** What every adapter answers when the store itself fails (never for a request string). */
export function unavailableAnswer(): { status: number; headers: Record<string, string>; body: string } {
  return {
    status: 503,
    headers: { 'content-type': PROBLEM_TYPE, 'cache-control': 'no-store' },
    body: problemBody(503, STATUS_TEXT[503], 'the site could not be read'),
  };
}
