// Count-plus-noun has one home, src/model/plural.ts (issue 32 item 4): every count reads the
// same (digits grouped, the noun in the right number), and no file of src/ words one by hand.
import { describe, expect, it } from 'vitest';
import { lastMonths } from '../src/model/plural.ts';

describe('lastMonths(), the window before a time in words', () => {
  it('says "the last month" for one, and groups the digits of many', () => {
    expect([1, 2, 6, 1200].map(lastMonths)).toEqual([
      'the last month',
      'the last 2 months',
      'the last 6 months',
      'the last 1,200 months',
    ]);
  });
});
