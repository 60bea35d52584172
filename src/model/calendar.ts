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
  const s = Number.isNaN(unix)
    ? 0
    : Math.min(DATE_LIMIT_SECONDS, Math.max(-DATE_LIMIT_SECONDS, unix));
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

/** The first second of year 10000: below it, and from 1970, toISOString writes four-digit years. */
const YEAR_10000 = 253402300800;

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * What `toISOString` writes, without its milliseconds, for whole seconds from 1970 to 9999,
 * in arithmetic (days to a civil date after Howard Hinnant's `civil_from_days`): a build's
 * scan times are mostly distinct, so the cache above misses and Date's own path was most of
 * the cost.
 */
function isoTimeOfSeconds(unix: number): string {
  const days = Math.floor(unix / 86400);
  let rest = unix - days * 86400;
  const hh = Math.floor(rest / 3600);
  rest -= hh * 3600;
  const mm = Math.floor(rest / 60);
  const ss = rest - mm * 60;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${y}-${two(m)}-${two(d)}T${two(hh)}:${two(mm)}:${two(ss)}Z`;
}

/** YYYY-MM-DDTHH:MM:SSZ (UTC) of a Unix time in whole seconds; total: see utcDate. */
export function isoTime(unix: number): string {
  let s = isoTimes.get(unix);
  if (s === undefined) {
    if (isoTimes.size >= MAX_REMEMBERED_TIMES) isoTimes.clear();
    s =
      Number.isInteger(unix) && unix >= 0 && unix < YEAR_10000
        ? isoTimeOfSeconds(unix)
        : utcDate(unix).toISOString().replace('.000Z', 'Z');
    isoTimes.set(unix, s);
  }
  return s;
}

/** YYYY-MM-DD (UTC) of a Unix time; total: see utcDate. */
export function isoDate(unix: number): string {
  return isoTime(unix).split('T')[0]!;
}
