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
});
