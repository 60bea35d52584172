// src/render/pages/raise.ts: "what would raise it", the smallest change of a value that moves a
// criterion or a badge to a better status. Expected texts are worked out by hand from the bands.
import { describe, expect, it } from 'vitest';
import type { BooleanRuleA, NumericRuleA, RuleB } from '../src/config/types.ts';
import type { BadgeA, CriterionA } from '../src/evaluate/shape-a.ts';
import type { BadgeB, BadgeEntryB, CriterionB } from '../src/evaluate/shape-b.ts';
import {
  needForA,
  needForB,
  raiseBadgeA,
  raiseBadgeB,
  raiseCriterionA,
} from '../src/render/pages/raise.ts';

const text = { description: '', help: '' };
// More is better: 0-1 fail, 2-4 bronze, 5-9 silver, 10+ gold.
const contributors: NumericRuleA = {
  ...text,
  id: 'CONTRIBUTORS',
  name: 'Contributors',
  type: 'numeric',
  unit: 'contributors',
  thresholds: [
    { min: 0, max: 1, status: 'fail' },
    { min: 2, max: 4, status: 'bronze' },
    { min: 5, max: 9, status: 'silver' },
    { min: 10, max: null, status: 'gold' },
  ],
};
// Less is better: 0-2 gold, 3-7 silver, 8+ fail.
const reaction: NumericRuleA = {
  ...text,
  id: 'REACTION',
  name: 'Issue reaction time',
  type: 'numeric',
  unit: 'days',
  thresholds: [
    { min: 0, max: 2, status: 'gold' },
    { min: 3, max: 7, status: 'silver' },
    { min: 8, max: null, status: 'fail' },
  ],
};
const policy = (positiveStatus: BooleanRuleA['positiveStatus']): BooleanRuleA => ({
  ...text,
  id: 'POLICY',
  name: 'Security policy',
  type: 'boolean',
  positiveStatus,
  negativeStatus: 'fail',
});
const crit = (rule: CriterionA['rule'], value: CriterionA['value'], status: CriterionA['status']) =>
  ({ rule, value, status }) as CriterionA;

describe('Shape A: needForA and raiseCriterionA', () => {
  it('names the nearest band at or above the target, in more or fewer units', () => {
    expect(needForA(crit(contributors, 3, 'bronze'), 'silver')).toBe(
      '2 more contributors (Contributors)',
    );
    expect(needForA(crit(contributors, 3, 'bronze'), 'gold')).toBe(
      '7 more contributors (Contributors)',
    );
    // 10/3 days is in silver (its whole days, 3, are); gold ends at 2: 4/3 fewer, shown to two decimals.
    expect(needForA(crit(reaction, 10 / 3, 'silver'), 'gold')).toBe(
      '1.33 fewer days (Issue reaction time)',
    );
  });

  it('is null when the criterion already holds the target, or no band can reach it', () => {
    expect(needForA(crit(contributors, 12, 'gold'), 'gold')).toBeNull();
    expect(needForA(crit(contributors, 7, 'silver'), 'bronze')).toBeNull();
    // A boolean rule whose best is silver cannot make gold.
    expect(needForA(crit(policy('silver'), false, 'fail'), 'gold')).toBeNull();
  });

  it('asks for a measured value when there is none (whatever it is published as), and for presence on a boolean rule', () => {
    const unknown = {
      ...crit(contributors, null, 'unknown'),
      cause: 'not measured: no token for github.com',
    };
    expect(needForA(unknown, 'bronze')).toBe(
      'a measured value for Contributors (not measured: no token for github.com)',
    );
    expect(needForA({ ...unknown, status: 'gold' }, 'gold')).toBe(
      'a measured value for Contributors (not measured: no token for github.com)',
    );
    expect(raiseCriterionA(unknown)).toEqual([
      'a scan that measures it (its value decides the status)',
    ]);
    expect(needForA(crit(policy('gold'), false, 'fail'), 'silver')).toBe('Security policy present');
  });

  it('raiseCriterionA lists the next status up and gold, nothing at gold', () => {
    expect(raiseCriterionA(crit(contributors, 3, 'bronze'))).toEqual([
      '2 more contributors (Contributors) for silver',
      '7 more contributors (Contributors) for gold',
    ]);
    expect(raiseCriterionA(crit(contributors, 9, 'silver'))).toEqual([
      '1 more contributor (Contributors) for gold',
    ]);
    expect(raiseCriterionA(crit(policy('gold'), false, 'fail'))).toEqual([
      'Security policy present for bronze',
      'Security policy present for gold',
    ]);
    expect(raiseCriterionA(crit(contributors, 10, 'gold'))).toEqual([]);
  });
});

describe('Shape A: raiseBadgeA', () => {
  const badge = (status: BadgeA['status'], criteria: CriterionA[]) =>
    ({ status, criteria }) as BadgeA;

  it('targets the next status up and lists only the criteria that lag behind it', () => {
    const b = badge('bronze', [
      crit(contributors, 3, 'bronze'),
      crit(policy('gold'), true, 'gold'),
      crit(reaction, 9, 'fail'),
    ]);
    // Reaction time 9 needs silver's band (max 7): 2 fewer days.
    expect(raiseBadgeA(b)).toEqual({
      target: 'silver',
      needs: ['2 more contributors (Contributors)', '2 fewer days (Issue reaction time)'],
    });
  });

  it('is null for a gold, an expired or an unknown badge', () => {
    expect(raiseBadgeA(badge('gold', [crit(contributors, 10, 'gold')]))).toBeNull();
    expect(raiseBadgeA(badge('expired', [crit(contributors, 3, 'bronze')]))).toBeNull();
    expect(raiseBadgeA(badge('unknown', [crit(contributors, null, 'unknown')]))).toBeNull();
  });
});

describe('Shape B: needForB and raiseBadgeB', () => {
  const rule = (
    name: string,
    threshold: RuleB['threshold'],
    unit = 'commits',
    manual = false,
  ): RuleB => ({
    ...text,
    id: name.toUpperCase(),
    name,
    unit,
    threshold,
    manual,
  });
  const critB = (r: RuleB, value: number | null, status: CriterionB['status']) =>
    ({ rule: r, value, status }) as CriterionB;

  it('says how far a value is from its bounds, and nothing for a pass', () => {
    expect(needForB(critB(rule('Commits', { min: 5 }), 2, 'fail'))).toBe('Commits: 3 more commits');
    expect(needForB(critB(rule('Open issues', { max: 10 }, 'issues'), 12, 'fail'))).toBe(
      'Open issues: 2 fewer issues',
    );
    expect(needForB(critB(rule('Pipelines', { min: 1 }, ''), 0, 'fail'))).toBe('Pipelines: 1 more');
    expect(needForB(critB(rule('Commits', { min: 5 }), 7, 'pass'))).toBeNull();
  });

  it('names a missing value and the two states of a manual check', () => {
    expect(needForB(critB(rule('Commits', { min: 5 }), null, 'fail'))).toBe(
      'Commits: a measured value; the next scan that measures it decides',
    );
    const manual = rule('Code review', {}, '', true);
    expect(needForB(critB(manual, null, 'open'))).toBe(
      "Code review: decided by people; a grant record or the rule's decision file grants it",
    );
    expect(needForB(critB(manual, null, 'fail'))).toBe(
      'Code review: revoked; a newer grant record would grant it again',
    );
  });

  it('raiseBadgeB targets the first level above the highest granted one', () => {
    const commits = rule('Commits', { min: 5 });
    const entry = (level: BadgeEntryB['level'], granted: boolean, criteria: CriterionB[]) =>
      ({ level, granted, criteria }) as BadgeEntryB;
    const bronze = entry('BRONZE', true, [critB(commits, 6, 'pass')]);
    const silver = entry('SILVER', false, [
      critB(commits, 6, 'pass'),
      critB(rule('Releases', { min: 2 }, 'releases'), 1, 'fail'),
    ]);
    const gold = entry('GOLD', false, [critB(rule('Packages', { min: 1 }, 'packages'), 0, 'fail')]);
    expect(raiseBadgeB({ entries: [bronze, silver, gold] } as BadgeB)).toEqual({
      target: 'silver',
      needs: ['Releases: 1 more release'],
    });
    expect(
      raiseBadgeB({ entries: [{ ...bronze, granted: false }, silver, gold] } as BadgeB),
    ).toEqual({
      target: 'bronze',
      needs: [],
    });
    expect(
      raiseBadgeB({
        entries: [bronze, { ...silver, granted: true }, { ...gold, granted: true }],
      } as BadgeB),
    ).toBeNull();
  });
});
