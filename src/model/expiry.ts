// When a Shape A scan expires (config expireAfterDays): one arithmetic for the evaluator, the
// pages that say when, and the build state that knows when a repository's latest files flip.

export const DAY_SECONDS = 86400;

/** The last second a scan still counts: `expireAfterDays` days after it. */
export function expiresAt(scanTime: number, expireAfterDays: number): number {
  return scanTime + expireAfterDays * DAY_SECONDS;
}

/** Whether a scan has expired at `at` (a moment past expiresAt). */
export function expiredAt(scanTime: number, expireAfterDays: number | null, at: number): boolean {
  return expireAfterDays !== null && at > expiresAt(scanTime, expireAfterDays);
}
