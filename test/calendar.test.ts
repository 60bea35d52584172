// The one date formatter the scanner, the evaluator and the pages share (src/model/calendar.ts).
// Expected strings are written by hand (checked with GNU `date -u -d @T`).
import { describe, expect, it } from 'vitest';
import { isoDate, isoTime } from '../src/model/calendar.ts';

describe('isoTime and isoDate', () => {
  it('write a Unix time in UTC to the second, without milliseconds', () => {
    expect(isoTime(1764000000)).toBe('2025-11-24T16:00:00Z');
    expect(isoTime(0)).toBe('1970-01-01T00:00:00Z');
    expect(isoDate(1764000000)).toBe('2025-11-24');
    // Remembered times stay right when one is asked for again.
    expect(isoTime(1710000000)).toBe('2024-03-09T16:00:00Z');
    expect(isoTime(1710000000)).toBe('2024-03-09T16:00:00Z');
  });

  it('give the whole day of a time after year 9999 (an expiry date on a page can land there)', () => {
    // 253402300800 is 10000-01-01T00:00:00Z; 30 days later:
    expect(isoDate(253402300800 + 30 * 86400)).toBe('+010000-01-31');
  });

  it('never throw: NaN is 1970, times beyond Date range are clamped', () => {
    expect(isoTime(Number.NaN)).toBe('1970-01-01T00:00:00Z');
    expect(() => isoTime(1e20)).not.toThrow();
  });

  it('whole seconds write what Date writes, at leap days, century years and year ends', () => {
    // Dates by hand; the arithmetic path must agree with them (and Date) to the second.
    const cases: Array<[string, number]> = [
      ['2000-02-29T23:59:59Z', Date.UTC(2000, 1, 29, 23, 59, 59) / 1000],
      ['2100-03-01T00:00:00Z', Date.UTC(2100, 2, 1) / 1000],
      ['1999-12-31T23:59:59Z', Date.UTC(1999, 11, 31, 23, 59, 59) / 1000],
      ['2024-02-29T12:00:00Z', Date.UTC(2024, 1, 29, 12) / 1000],
      ['9999-12-31T23:59:59Z', 253402300799],
    ];
    for (const [text, unix] of cases) expect(isoTime(unix), String(unix)).toBe(text);
    // Past 9999 and before 1970, Date's own path.
    expect(isoTime(-1)).toBe('1969-12-31T23:59:59Z');
    expect(isoTime(253402300800)).toBe(
      new Date(253402300800000).toISOString().replace('.000Z', 'Z'),
    );
  });
});
