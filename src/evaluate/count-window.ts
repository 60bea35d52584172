// Counting events in a rule's time window: calendar months in UTC ending at the scan time.
// Shared by both shapes, so a changed timeRangeInMonths re-windows old scans the same way.
import type { StoredValue } from '../load/types.ts';

/** JavaScript Date's range, in Unix seconds (±100,000,000 days around 1970). */
const DATE_LIMIT_SECONDS = 8.64e12;

/**
 * A Date for any Unix-seconds number. The store caps times at the end of year 9999, but
 * evaluation must never throw on a time it is handed (a build would stop for every
 * repository), so times beyond Date's range are clamped to its ends and NaN counts as 0.
 */
function utcDate(unix: number): Date {
  const s = Number.isNaN(unix) ? 0 : Math.min(DATE_LIMIT_SECONDS, Math.max(-DATE_LIMIT_SECONDS, unix));
  return new Date(s * 1000);
}

/** Start (exclusive) of the window of `months` calendar months that ends at `end` (Unix s). */
export function windowStart(end: number, months: number): number {
  const d = utcDate(end);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() - months;
  // Clamp the day to the target month's length: 31 March minus one month is 28/29 February.
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  const start = Date.UTC(y, m, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()) / 1000;
  // Before Date's range (only for ends near its lower edge): the window reaches back to it.
  return Number.isNaN(start) ? -DATE_LIMIT_SECONDS : start;
}

export interface NumericValue {
  /** null: could not be determined. */
  value: number | null;
  /** Set when the number was counted from events: the window it was counted in. */
  window?: { from: number; to: number; months: number };
}

/** A stored value as the number a rule judges; events are counted in the window if any. */
export function numericValue(v: StoredValue | undefined, scanTime: number, months?: number): NumericValue {
  if (v === undefined || v === null || typeof v === 'boolean') return { value: null };
  if (typeof v === 'number') return { value: v };
  const from = months === undefined ? -Infinity : windowStart(scanTime, months);
  let n = 0;
  for (const t of v.events) if (t > from && t <= scanTime) n++;
  return months === undefined ? { value: n } : { value: n, window: { from, to: scanTime, months } };
}

/** YYYY-MM-DD (UTC) of a Unix time; total: see utcDate. */
export function isoDate(unix: number): string {
  return utcDate(unix).toISOString().split('T')[0]!;
}
