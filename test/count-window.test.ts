import { describe, expect, it } from 'vitest';
import { windowStart } from '../src/evaluate/count-window.ts';

const utc = (s: string) => Date.parse(s) / 1000;

describe('calendar-month windows in UTC', () => {
  it('goes back whole calendar months', () => {
    expect(windowStart(utc('2026-06-15T12:00:00Z'), 6)).toBe(utc('2025-12-15T12:00:00Z'));
    expect(windowStart(utc('2026-03-01T00:00:00Z'), 3)).toBe(utc('2025-12-01T00:00:00Z'));
  });
  it('clamps to the end of a shorter month', () => {
    expect(windowStart(utc('2026-03-31T08:00:00Z'), 1)).toBe(utc('2026-02-28T08:00:00Z'));
    expect(windowStart(utc('2024-03-31T08:00:00Z'), 1)).toBe(utc('2024-02-29T08:00:00Z'));
  });
});
