// Why an API call failed (a forge's, a dependency index's), worded for a summary line and a
// rule's evidence. Never holds a token: messages are built from the status and headers, never
// from a request's text.
import { remoteText } from '../../model/safe-text.ts';
import { isoTime } from '../../model/calendar.ts';

/**
 * `refused`: a redirect or link to another origin, never followed; `bound`: a repository's
 * bound (requests, seconds, pages, answer bytes) reached; `malformed`: an answer that is not
 * the JSON the API documents.
 */
export type FailureKind =
  | 'rate-limit'
  | 'auth'
  | 'not-found'
  | 'timeout'
  | 'network'
  | 'http'
  | 'refused'
  | 'bound'
  | 'malformed';

export class ApiError extends Error {
  readonly kind: FailureKind;
  readonly status?: number;
  constructor(
    kind: FailureKind,
    /** The whole cause, prefixed with the API's label: "<label>: 403 rate limit, resets 12:03Z". */
    message: string,
    status?: number,
  ) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.name = 'ApiError';
  }
}

/** "12:03Z" for a reset time (Unix s); the date too when it is not today's (UTC). */
function resetClock(resetAt: number, now: number): string {
  const reset = isoTime(resetAt);
  const sameDay = reset.slice(0, 10) === isoTime(now).slice(0, 10);
  return `${sameDay ? '' : `${reset.slice(0, 10)} `}${reset.slice(11, 16)}Z`;
}

const REASONS: Record<number, [FailureKind, string]> = {
  401: ['auth', 'bad or missing credentials'],
  403: ['auth', 'forbidden'],
  404: ['not-found', 'not found or not visible to the token'],
  410: ['not-found', 'gone'],
};

/** The error for an HTTP answer that is not a success, not a rate limit. */
export function httpFailure(label: string, status: number, tokenEnv?: string): ApiError {
  const [kind, reason] = REASONS[status] ?? [
    'http',
    status >= 500 ? 'server error' : 'request refused',
  ];
  const hint = status === 401 && tokenEnv ? ` (check the token in $${tokenEnv})` : '';
  return new ApiError(kind, `${label}: ${status} ${reason}${hint}`, status);
}

/** An answer that is JSON but not what the API documents for `what` ("the answer to /repos/a/b"). */
export function undocumented(label: string, what: string): ApiError {
  return new ApiError('malformed', `${label}: ${what} is not the JSON the API documents`);
}

export function rateLimitFailure(
  label: string,
  status: number,
  resetAt: number | undefined,
  now: number,
  secondary = false,
): ApiError {
  const what = secondary ? 'secondary rate limit' : 'rate limit';
  const when = resetAt === undefined ? '' : `, resets ${resetClock(resetAt, now)}`;
  return new ApiError('rate-limit', `${label}: ${status} ${what}${when}`, status);
}

/** What a thrown value says, for a failure line; anything not ours is worded without its text. */
export function describeFailure(label: string, error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error && error.name === 'TimeoutError') return `${label}: no answer in time`;
  const code = (error as { cause?: { code?: unknown } })?.cause?.code;
  if (typeof code === 'string') return `${label}: connection failed (${code})`;
  // Library errors may quote request headers; only their class is safe to repeat.
  return `${label}: request failed (${error instanceof Error ? error.name : typeof error})`;
}

/**
 * A text bound for a store, page, log or error, made safe (a last guard): every form of every
 * token (raw, percent-encoded, base64) redacted and terminal control removed.
 */
export function redact(text: string, tokens: readonly string[]): string {
  return remoteText(text, tokens);
}
