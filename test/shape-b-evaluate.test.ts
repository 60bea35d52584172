import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadThresholdsB } from '../src/config/thresholds-b.ts';
import type { DecisionFileB, ThresholdsB } from '../src/config/types.ts';
import { catalogB, evaluateScanB, type EvaluationB } from '../src/evaluate/shape-b.ts';
import type { GrantRecord, ScanRecord } from '../src/load/types.ts';
import { ROOT } from './helpers/cli.ts';
import type { StoredValue } from '../src/model/stored-value.ts';

const T = await loadThresholdsB(join(ROOT, 'examples/shape-b/thresholds-b.yaml'));
const URL = 'https://github.com/acme/widget';
const NOV_20 = 1763596800; // 2025-11-20T00:00:00Z
const DAY = 86400;
const OSS = 'MANUAL/Project is open source';
const DIN = 'MANUAL/DIN SPEC XXXX compliant';

function scan(
  values: Record<string, StoredValue>,
  timestamp = NOV_20,
  evidence: Record<string, string> = {},
  repositoryUrl = URL,
): ScanRecord {
  return { kind: 'scan', repositoryUrl, timestamp, values, evidence, source: 'test:1' };
}

function grant(
  ruleId: string,
  granted: boolean,
  timestamp: number,
  extra: Partial<GrantRecord> = {},
): GrantRecord {
  return {
    kind: 'grant',
    repositoryUrl: URL,
    ruleId,
    granted,
    timestamp,
    source: 'test:2',
    ...extra,
  };
}

function evaluate(
  s: ScanRecord,
  grants: GrantRecord[] = [],
  decisions = new Map<string, DecisionFileB>(),
  t: ThresholdsB = T,
): EvaluationB {
  return evaluateScanB(t, decisions, s, grants);
}

const badge = (e: EvaluationB, id: string) => e.badges.find((b) => b.def.id === id)!;
const entry = (e: EvaluationB, id: string, level: string) =>
  e.entries.find((x) => x.def.id === id && x.level === level)!;

describe('Shape B entries and criteria', () => {
  const e = evaluate(
    scan({ COMMITS: 9, ISSUE_REACTION_TIME: 2, RELEASES: 1, PACKAGES: 1, CI_PIPELINE: 4 }),
  );

  it('one entry per badge id and level, with the criteria of docs/reference/api.md, Shape B', () => {
    expect(e.entries.map((x) => [x.def.id, x.level, x.criteria.map((c) => c.rule.id)])).toEqual([
      ['MAINTAINED', 'BRONZE', ['COMMITS']],
      ['MAINTAINED', 'SILVER', ['COMMITS', 'ISSUE_REACTION_TIME']],
      ['MAINTAINED', 'GOLD', ['COMMITS', 'ISSUE_REACTION_TIME', 'RELEASES']],
      ['REUSED', 'BRONZE', ['PACKAGES', 'CI_PIPELINE']],
      ['DIN-SPEC-XXXX', 'BRONZE', [DIN]],
      ['OPEN-SOURCE', 'GOLD', [OSS]],
    ]);
  });

  it('higher levels repeat lower levels criteria, each carrying its own level', () => {
    expect(
      entry(e, 'MAINTAINED', 'GOLD').criteria.map((c) => [c.rule.id, c.badgeId, c.badgeLevel]),
    ).toEqual([
      ['COMMITS', 'MAINTAINED', 'BRONZE'],
      ['ISSUE_REACTION_TIME', 'MAINTAINED', 'SILVER'],
      ['RELEASES', 'MAINTAINED', 'GOLD'],
    ]);
    expect(entry(e, 'MAINTAINED', 'SILVER').criteria.map((c) => c.badgeLevel)).toEqual([
      'BRONZE',
      'SILVER',
    ]);
  });

  it('ruleIndex is the position of the rule in the thresholds file', () => {
    for (const x of e.entries)
      for (const c of x.criteria) expect(T.rules[c.ruleIndex]!.id).toBe(c.rule.id);
  });

  it('the description ends with the current value in parentheses', () => {
    expect(
      entry(e, 'MAINTAINED', 'GOLD').criteria.map((c) => [c.description, c.valueText, c.status]),
    ).toEqual([
      ['Commits: at least 5 commits in the last 6 months (9)', '9', 'pass'],
      ['Issue reaction time: at most 7 days in the last 3 months (2)', '2', 'pass'],
      ['Releases: at least 1 release in the last 6 months (1)', '1', 'pass'],
    ]);
  });

  it('the catalog says numeric for count rules and manual for MANUAL/ rules', () => {
    const catalog = catalogB(T);
    expect(T.rules.map((r) => catalog(r.id))).toEqual([
      'numeric',
      'numeric',
      'numeric',
      'numeric',
      'numeric',
      'manual',
      'manual',
    ]);
    expect(catalog('BUS_FACTOR')).toBeUndefined();
  });
});

describe('undetermined values', () => {
  const e = evaluate(scan({ COMMITS: null, ISSUE_REACTION_TIME: 3 }));

  it('are <nil> and open, carry no evidence, and keep the badge ungranted', () => {
    const commits = entry(e, 'MAINTAINED', 'BRONZE').criteria[0]!;
    expect(commits).toMatchObject({
      valueText: '<nil>',
      value: null,
      status: 'open',
      description: 'Commits: at least 5 commits in the last 6 months (<nil>)',
    });
    expect('evidence' in commits).toBe(false);
    // a missing value (RELEASES) is undetermined just as null is; so is an undecided manual check
    expect(entry(e, 'MAINTAINED', 'GOLD').criteria.map((c) => c.status)).toEqual([
      'open',
      'pass',
      'open',
    ]);
    expect(entry(e, 'OPEN-SOURCE', 'GOLD').criteria[0]).toMatchObject({
      valueText: '<nil>',
      status: 'open',
    });
    expect(entry(e, 'OPEN-SOURCE', 'GOLD').criteria[0]!.evidence).toBeUndefined();
    expect(e.entries.map((x) => x.granted)).toEqual([false, false, false, false, false, false]);
    expect(badge(e, 'MAINTAINED').status).toBe('fail');
  });
});

describe('granted and highest flags for every pass/fail combination of levels', () => {
  // One value per level: index 0 BRONZE (COMMITS), 1 SILVER (ISSUE_REACTION_TIME), 2 GOLD (RELEASES).
  const PASS = [5, 7, 1];
  const FAIL = [4, 8, 0];
  for (let mask = 0; mask < 8; mask++) {
    const passing = [0, 1, 2].map((i) => (mask & (1 << i)) !== 0);
    const v = passing.map((p, i) => (p ? PASS[i] : FAIL[i])!);
    // A level is granted only when its own check and every lower one pass.
    const granted = passing.map((_, i) => passing.slice(0, i + 1).every(Boolean));
    const top = granted.lastIndexOf(true);
    it(`BRONZE ${passing[0] ? 'pass' : 'fail'}, SILVER ${passing[1] ? 'pass' : 'fail'}, GOLD ${passing[2] ? 'pass' : 'fail'}`, () => {
      const e = evaluate(scan({ COMMITS: v[0]!, ISSUE_REACTION_TIME: v[1]!, RELEASES: v[2]! }));
      const entries = badge(e, 'MAINTAINED').entries;
      expect(entries.map((x) => x.granted)).toEqual(granted);
      expect(entries.map((x) => x.isHighestGranted)).toEqual(granted.map((_, i) => i === top));
      expect(entries[2]!.criteria.map((c) => c.status)).toEqual(
        passing.map((p) => (p ? 'pass' : 'fail')),
      );
      expect(badge(e, 'MAINTAINED').status).toBe(
        top < 0 ? 'fail' : ['bronze', 'silver', 'gold'][top],
      );
      // The explanation always shows the highest level the badge defines.
      expect(badge(e, 'MAINTAINED').explained.level).toBe('GOLD');
    });
  }

  it('bounds are inclusive, and a badge with two checks needs both', () => {
    const e = evaluate(scan({ PACKAGES: 1, CI_PIPELINE: 0 }));
    expect(entry(e, 'REUSED', 'BRONZE').criteria.map((c) => c.status)).toEqual(['pass', 'fail']);
    expect(entry(e, 'REUSED', 'BRONZE').granted).toBe(false);
    expect(
      entry(evaluate(scan({ PACKAGES: 1, CI_PIPELINE: 1 })), 'REUSED', 'BRONZE').isHighestGranted,
    ).toBe(true);
  });

  it('the conclusion names the status, every level, what does not pass and which criteria are shown', () => {
    const e = evaluate(scan({ COMMITS: 6, ISSUE_REACTION_TIME: 1, RELEASES: 0 }));
    expect(badge(e, 'MAINTAINED').conclusion).toBe(
      'MAINTAINED is granted at SILVER (BRONZE granted, SILVER granted, GOLD not granted); not passing: Releases: at least 1 release in the last 6 months (0) is fail. The criteria shown are those of GOLD, the highest level the badge defines.',
    );
  });
});

describe('count rules re-windowed with the current time range', () => {
  // Events a day inside 1, 2, 4 and 7 months before the scan (the window's start is exclusive).
  const events = [1, 2, 4, 7].map((m) => Date.UTC(2025, 10 - m, 21) / 1000);
  const old = scan({ COMMITS: { events }, RELEASES: { events: [] } });

  it('counts events in the last timeRangeInMonths calendar months before the scan', () => {
    const c = entry(evaluate(old), 'MAINTAINED', 'BRONZE').criteria[0]!;
    expect(c.valueText).toBe('3');
    expect(c.status).toBe('fail');
    expect(c.evidence).toBe(
      '3 commits counted between 2025-05-20 and 2025-11-20 (the last 6 months before the scan).',
    );
  });

  it('a changed time range changes the report of the same old scan', () => {
    const longer: ThresholdsB = {
      ...T,
      rules: T.rules.map((r) =>
        r.id === 'COMMITS' ? { ...r, threshold: { min: 4, timeRangeInMonths: 8 } } : r,
      ),
    };
    const c = entry(evaluate(old, [], new Map(), longer), 'MAINTAINED', 'BRONZE').criteria[0]!;
    expect([c.valueText, c.status, c.description]).toEqual([
      '4',
      'pass',
      'Commits: at least 4 commits in the last 8 months (4)',
    ]);
    const shorter: ThresholdsB = {
      ...T,
      rules: T.rules.map((r) =>
        r.id === 'COMMITS' ? { ...r, threshold: { min: 1, timeRangeInMonths: 1 } } : r,
      ),
    };
    expect(
      entry(evaluate(old, [], new Map(), shorter), 'MAINTAINED', 'BRONZE').criteria[0]!.evidence,
    ).toBe('1 commit counted between 2025-10-20 and 2025-11-20 (the last month before the scan).');
  });

  it('events after the scan time do not count; the store evidence wins over the computed sentence', () => {
    const s = scan({ COMMITS: { events: [NOV_20 - DAY, NOV_20 + DAY] }, RELEASES: 2 }, NOV_20, {
      RELEASES: 'tags v1.2.0, v1.3.0',
    });
    expect(entry(evaluate(s), 'MAINTAINED', 'BRONZE').criteria[0]!.valueText).toBe('1');
    expect(entry(evaluate(s), 'MAINTAINED', 'GOLD').criteria[2]!.evidence).toBe(
      'tags v1.2.0, v1.3.0',
    );
    expect(entry(evaluate(scan({ PACKAGES: 3 })), 'REUSED', 'BRONZE').criteria[0]!.evidence).toBe(
      'The scan reported 3 packages.',
    );
  });
});

describe('manual checks', () => {
  const grants = [
    grant(OSS, true, NOV_20 - 30 * DAY, { by: 'jane@example.org', note: 'MIT licence checked' }),
    grant(OSS, false, NOV_20 - 10 * DAY, { by: 'joe@example.org' }),
    grant(DIN, true, NOV_20 + DAY, { by: 'board' }),
  ];
  const oss = (at: number, decisions = new Map<string, DecisionFileB>()) =>
    entry(evaluate(scan({}, at), grants, decisions), 'OPEN-SOURCE', 'GOLD');

  it('the newest grant record at or before the scan time applies; granted:false revokes', () => {
    expect(oss(NOV_20 - 31 * DAY).criteria[0]!.status).toBe('open');
    const granted = oss(NOV_20 - 30 * DAY);
    expect(granted.granted).toBe(true);
    expect(granted.isHighestGranted).toBe(true);
    expect(granted.criteria[0]).toMatchObject({
      valueText: '1',
      status: 'pass',
      evidence: 'Granted manually by jane@example.org on 2025-10-21: MIT licence checked.',
    });
    const revoked = oss(NOV_20);
    expect(revoked.granted).toBe(false);
    expect(revoked.criteria[0]).toMatchObject({
      valueText: '0',
      status: 'fail',
      evidence: 'Not granted: revoked by joe@example.org on 2025-11-10.',
    });
  });

  it('a grant dated after the scan does not apply to it', () => {
    expect(
      entry(evaluate(scan({}, NOV_20), grants), 'DIN-SPEC-XXXX', 'BRONZE').criteria[0]!.status,
    ).toBe('open');
    expect(
      entry(evaluate(scan({}, NOV_20 + DAY), grants), 'DIN-SPEC-XXXX', 'BRONZE').criteria[0]!
        .status,
    ).toBe('pass');
  });

  const decision = (d: Partial<DecisionFileB>): Map<string, DecisionFileB> =>
    new Map([
      [OSS, { ruleId: OSS, name: 'open-source.yaml', granted: [], grantedRegex: [], ...d }],
    ]);

  it('decision files grant listed URLs and URLs a pattern matches; other repositories stay open', () => {
    const listed = evaluate(scan({}), [], decision({ granted: [URL], by: 'OSS board' }));
    expect(entry(listed, 'OPEN-SOURCE', 'GOLD').criteria[0]).toMatchObject({
      status: 'pass',
      evidence:
        'Granted manually by OSS board (decision file open-source.yaml lists the repository).',
    });
    const regex = decision({ grantedRegex: [/^https:\/\/codeberg\.org\/acme\//u] });
    const matched = evaluate(scan({}, NOV_20, {}, 'https://codeberg.org/acme/tool'), [], regex);
    expect(entry(matched, 'OPEN-SOURCE', 'GOLD').criteria[0]).toMatchObject({
      status: 'pass',
      evidence:
        'Granted manually (decision file open-source.yaml: the repository matches ^https:\\/\\/codeberg\\.org\\/acme\\/).',
    });
    const other = evaluate(scan({}, NOV_20, {}, 'https://codeberg.org/other/tool'), [], regex);
    expect(entry(other, 'OPEN-SOURCE', 'GOLD').criteria[0]!.status).toBe('open');
  });

  it('a grant record decides over a decision file', () => {
    const listed = decision({ granted: [URL] });
    expect(oss(NOV_20, listed).criteria[0]!.status).toBe('fail'); // revoked by record, listed by file
    expect(oss(NOV_20 - 31 * DAY, listed).criteria[0]!.status).toBe('pass'); // no record yet: the file
  });
});
