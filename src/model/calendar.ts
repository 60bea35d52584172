// Calendar windows and dates in UTC: the one definition the scanner (which collects events),
// the evaluator (which counts them) and the pages (which show them) share, so they can never
// disagree about a window or a day.

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

// A page shows each scan time several times (table, charts, their text alternatives) and
// repositories share scan times: formatting them once is a visible part of a page's cost.
const isoTimes = new Map<number, string>();
const MAX_REMEMBERED_TIMES = 4096;

/** YYYY-MM-DDTHH:MM:SSZ (UTC) of a Unix time in whole seconds; total: see utcDate. */
export function isoTime(unix: number): string {
  let s = isoTimes.get(unix);
  if (s === undefined) {
    if (isoTimes.size >= MAX_REMEMBERED_TIMES) isoTimes.clear();
    s = utcDate(unix).toISOString().replace('.000Z', 'Z');
    isoTimes.set(unix, s);
  }
  return s;
}

/** YYYY-MM-DD (UTC) of a Unix time; total: see utcDate. */
export function isoDate(unix: number): string {
  return isoTime(unix).split('T')[0]!;
}
