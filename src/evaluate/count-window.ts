// Counting events in a rule's time window: calendar months in UTC ending at the scan time.
// Shared by both shapes, so a changed timeRangeInMonths re-windows old scans the same way.

import { windowStart } from '../model/calendar.ts';
import type { StoredValue } from '../model/stored-value.ts';

export interface NumericValue {
  /** null: could not be determined. */
  value: number | null;
  /** Set when the number was counted from events: the window it was counted in. */
  window?: { from: number; to: number; months: number };
}

/** A stored value as the number a rule judges; events are counted in the window if any. */
export function numericValue(
  v: StoredValue | undefined,
  scanTime: number,
  months?: number,
): NumericValue {
  if (v === undefined || v === null || typeof v === 'boolean') return { value: null };
  if (typeof v === 'number') return { value: v };
  const from = months === undefined ? -Infinity : windowStart(scanTime, months);
  let n = 0;
  for (const t of v.events) if (t > from && t <= scanTime) n++;
  return months === undefined ? { value: n } : { value: n, window: { from, to: scanTime, months } };
}
