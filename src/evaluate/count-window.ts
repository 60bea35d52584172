// Counting events in a rule's time window: calendar months in UTC ending at the scan time.
// Shared by both shapes, so a changed timeRangeInMonths re-windows old scans the same way.
import type { StoredValue } from '../load/types.ts';

/** Start (exclusive) of the window of `months` calendar months that ends at `end` (Unix s). */
export function windowStart(end: number, months: number): number {
  const d = new Date(end * 1000);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() - months;
  // Clamp the day to the target month's length: 31 March minus one month is 28/29 February.
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  return Date.UTC(y, m, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()) / 1000;
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

export function isoDate(unix: number): string {
  return new Date(unix * 1000).toISOString().slice(0, 10);
}
