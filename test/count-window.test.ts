import { describe, expect, it } from 'vitest';
import { numericValue } from '../src/evaluate/count-window.ts';
import { isoDate, windowStart } from '../src/model/calendar.ts';

const utc = (s: string) => Date.parse(s) / 1000;

describe('calendar-month windows in UTC', () => {
  it('goes back whole calendar months', () => {
    expect(windowStart(utc('2026-06-15T12:00:00Z'), 6)).toBe(utc('2025-12-15T12:00:00Z'));
    expect(windowStart(utc('2026-03-01T00:00:00Z'), 3)).toBe(utc('2025-12-01T00:00:00Z'));
  });
  it('clamps to the end of a shorter month', () => {
    expect(windowStart(utc('2026-03-31T08:00:00Z'), 1)).toBe(utc('2026-02-28T08:00:00Z'));
    expect(windowStart(utc('2024-03-31T08:00:00Z'), 1)).toBe(utc('2024-02-29T08:00:00Z'));
    expect(windowStart(utc('2025-08-31T10:20:30Z'), 6)).toBe(utc('2025-02-28T10:20:30Z'));
    expect(windowStart(utc('2024-08-31T10:20:30Z'), 6)).toBe(utc('2024-02-29T10:20:30Z'));
  });

  it('the start is exclusive and the scan time inclusive', () => {
    const scan = utc('2025-08-31T10:20:30Z');
    const start = utc('2025-02-28T10:20:30Z');
    const count = (t: number) => numericValue({ events: [t] }, scan, 6).value;
    expect([
      count(start - 1),
      count(start),
      count(start + 1),
      count(scan - 1),
      count(scan),
      count(scan + 1),
    ]).toEqual([0, 0, 1, 1, 1, 0]);
    expect(numericValue({ events: [start, start + 1, scan, scan + 1] }, scan, 6)).toEqual({
      value: 2,
      window: { from: start, to: scan, months: 6 },
    });
  });

  it('never throws, whatever time it is handed', () => {
    for (const t of [9007199254740991, -9007199254740991, 8.64e12 + 1, Number.NaN]) {
      expect(() => isoDate(t)).not.toThrow();
      expect(Number.isNaN(windowStart(t, 1200))).toBe(false);
    }
    expect(isoDate(253402300799)).toBe('9999-12-31');
    expect(isoDate(0)).toBe('1970-01-01');
    expect(numericValue({ events: [1] }, 9007199254740991, 6).value).toBe(0);
  });
});
