import { describe, expect, it } from 'vitest';
import { loadThresholdsA, PACKAGE_CONFIG_DIR } from '../src/config/load.ts';
import { evaluateScanA } from '../src/evaluate/shape-a.ts';
import type { ScanRecord } from '../src/load/types.ts';
import type { StoredValue } from '../src/model/stored-value.ts';

const t = await loadThresholdsA(`${PACKAGE_CONFIG_DIR}/thresholds-a.yaml`);

function scan(
  values: Record<string, StoredValue>,
  timestamp = 1_763_000_000,
  evidence: Record<string, string> = {},
): ScanRecord {
  return {
    kind: 'scan',
    repositoryUrl: 'https://example.org/a/b',
    timestamp,
    values,
    evidence,
    source: 'test:1',
  };
}
function rule(values: Record<string, StoredValue>, id: string) {
  return evaluateScanA(t, scan(values)).criteria.find((c) => c.rule.id === id)!;
}
function badge(values: Record<string, StoredValue>, id: string) {
  return evaluateScanA(t, scan(values)).badges.find((b) => b.def.id === id)!;
}

describe('Shape A bands (the defaults of config/thresholds-a.yaml)', () => {
  it.each([
    [0, 'gold', 0, 1],
    [1, 'gold', 0, 1],
    [2, 'silver', 2, 7],
    [7, 'silver', 2, 7],
    [8, 'bronze', 8, 14],
    [14, 'bronze', 8, 14],
    [15, 'fail', 15, null],
    [400, 'fail', 15, null],
  ] as const)('ISSUE_REACTION_TIME %i days → %s', (days, status, min, max) => {
    const c = rule({ ISSUE_REACTION_TIME: days }, 'ISSUE_REACTION_TIME');
    expect(c.status).toBe(status);
    expect(c.range).toEqual({ min, max });
    expect(c.met).toBe(status !== 'fail');
    expect(c.value).toBe(days);
  });

  it.each([
    [0, 'fail'],
    [1, 'fail'],
    [2, 'bronze'],
    [3, 'silver'],
    [4, 'gold'],
    [5, 'gold'],
  ] as const)('BUS_FACTOR %i → %s', (n, status) => {
    expect(rule({ BUS_FACTOR: n }, 'BUS_FACTOR').status).toBe(status);
  });

  it('a fraction belongs to the band of its integer part', () => {
    expect(rule({ ISSUE_REACTION_TIME: 1.5 }, 'ISSUE_REACTION_TIME').status).toBe('gold');
    expect(rule({ ISSUE_REACTION_TIME: 7.9 }, 'ISSUE_REACTION_TIME').status).toBe('silver');
  });

  it('SECURITY_POLICY true, false, missing', () => {
    const yes = rule({ SECURITY_POLICY: true }, 'SECURITY_POLICY');
    expect([yes.status, yes.met, yes.value, yes.range]).toEqual(['gold', true, true, undefined]);
    const no = rule({ SECURITY_POLICY: false }, 'SECURITY_POLICY');
    expect([no.status, no.met, no.value]).toEqual(['fail', false, false]);
    // A rule the record lacks is unknown, never the negative status's fail.
    const missing = rule({}, 'SECURITY_POLICY');
    expect([missing.status, missing.met, missing.value]).toEqual(['unknown', false, null]);
    expect(missing.description).toBe(
      'Security policy is unknown (not measured: the scan did not measure this rule)',
    );
    const nul = rule({ SECURITY_POLICY: null }, 'SECURITY_POLICY');
    expect([nul.status, nul.value, nul.cause]).toEqual([
      'unknown',
      null,
      'not measured: the scan could not determine it',
    ]);
  });

  it('a numeric value nobody measured is unknown, in no band, with the cause the record gives', () => {
    const c = rule({ ISSUE_REACTION_TIME: null }, 'ISSUE_REACTION_TIME');
    expect([c.status, c.met, c.value, c.range]).toEqual(['unknown', false, null, undefined]);
    const said = evaluateScanA(
      t,
      scan({ ISSUE_REACTION_TIME: null }, 1_763_000_000, {
        ISSUE_REACTION_TIME: 'GitHub API did not answer (2026-11-27).',
      }),
    ).criteria[0]!;
    expect(said.cause).toBe('not measured: GitHub API did not answer (2026-11-27)');
    expect(said.message).toBe(
      'Issue reaction time is unknown (not measured: GitHub API did not answer (2026-11-27)).',
    );
    // The scanner's own "not asked: …" (badgepress scan --forge never) is not prefixed again.
    const notAsked = evaluateScanA(
      t,
      scan({ ISSUE_REACTION_TIME: null }, 1_763_000_000, {
        ISSUE_REACTION_TIME: 'not asked: --forge never (git alone)',
      }),
    ).criteria[0]!;
    expect(notAsked.description).toBe(
      'Issue reaction time is unknown (not asked: --forge never (git alone))',
    );
  });

  it('badge status is the worst of its criteria', () => {
    expect(badge({ ISSUE_REACTION_TIME: 0, BUS_FACTOR: 4 }, 'MAINTENANCE').status).toBe('gold');
    expect(badge({ ISSUE_REACTION_TIME: 0, BUS_FACTOR: 3 }, 'MAINTENANCE').status).toBe('silver');
    expect(badge({ ISSUE_REACTION_TIME: 9, BUS_FACTOR: 3 }, 'MAINTENANCE').status).toBe('bronze');
    expect(badge({ ISSUE_REACTION_TIME: 9, BUS_FACTOR: 0 }, 'MAINTENANCE').status).toBe('fail');
    expect(badge({ SECURITY_POLICY: true }, 'SECURITY').status).toBe('gold');
    expect(badge({ DEPENDENTS: 5 }, 'REUSED').status).toBe('silver');
  });

  it('a badge: any fail fails it; else any unknown makes it unknown', () => {
    expect(badge({ ISSUE_REACTION_TIME: 0 }, 'MAINTENANCE').status).toBe('unknown');
    expect(badge({ ISSUE_REACTION_TIME: null, BUS_FACTOR: null }, 'MAINTENANCE').status).toBe(
      'unknown',
    );
    // A measured failure beside an unknown criterion still fails the badge.
    expect(badge({ ISSUE_REACTION_TIME: 30 }, 'MAINTENANCE').status).toBe('fail');
    expect(badge({ ISSUE_REACTION_TIME: null, BUS_FACTOR: 1 }, 'MAINTENANCE').status).toBe('fail');
    expect(badge({}, 'SECURITY').status).toBe('unknown');
    expect(badge({}, 'REUSED').status).toBe('unknown');
  });

  it("an unknown badge's conclusion names each unknown criterion and why", () => {
    const s = scan({ ISSUE_REACTION_TIME: null, BUS_FACTOR: 4 }, 1_763_000_000, {
      ISSUE_REACTION_TIME: 'no token for github.com',
    });
    expect(evaluateScanA(t, s).badges[0]!.conclusion).toBe(
      'MAINTENANCE is unknown: Issue reaction time is unknown (not measured: no token for github.com); Bus factor is 4 contributors (gold).',
    );
    const failing = evaluateScanA(t, scan({ ISSUE_REACTION_TIME: 20 })).badges[0]!;
    expect(failing.conclusion).toBe(
      'MAINTENANCE is fail: Issue reaction time is 20 days (fail); Bus factor is unknown (not measured: the scan did not measure this rule).',
    );
  });

  it('unknownAs publishes unknown as a contract status, ranked as that status', () => {
    const s = scan({ ISSUE_REACTION_TIME: 3 });
    const as = (unknownAs: 'gold' | 'fail' | 'expired') =>
      evaluateScanA(t, s, undefined, { unknownAs }).badges[0]!;
    expect([
      as('fail').status,
      as('fail').criteria[1]!.status,
      as('fail').criteria[1]!.met,
    ]).toEqual(['fail', 'fail', false]);
    // gold for the unknown BUS_FACTOR: the badge is the measured silver.
    expect([as('gold').status, as('gold').criteria[1]!.status]).toEqual(['silver', 'gold']);
    expect(as('expired').status).toBe('expired');
    // The words still say it was not measured.
    expect(as('fail').conclusion).toBe(
      'MAINTENANCE is fail: Issue reaction time is 3 days (silver); Bus factor is unknown (not measured: the scan did not measure this rule) (fail).',
    );
    expect(evaluateScanA(t, s, undefined, { unknownAs: null }).badges[0]!.status).toBe('unknown');
  });

  it('the conclusion names each criterion and its outcome', () => {
    const b = badge({ ISSUE_REACTION_TIME: 3, BUS_FACTOR: 4 }, 'MAINTENANCE');
    expect(b.conclusion).toBe(
      'MAINTENANCE is silver: Issue reaction time is 3 days (silver); Bus factor is 4 contributors (gold).',
    );
  });

  it('count events are counted in the rule window ending at the scan time', () => {
    const windowed = {
      ...t,
      rules: t.rules.map((r) =>
        r.id === 'DEPENDENTS' && r.type === 'numeric' ? { ...r, timeRangeInMonths: 1 } : r,
      ),
    };
    const day = 86400;
    const s = scan({
      DEPENDENTS: {
        events: [
          1_763_000_000 - 40 * day,
          1_763_000_000 - 10 * day,
          1_763_000_000,
          1_763_000_000 + 1,
        ],
      },
    });
    expect(evaluateScanA(windowed, s).criteria.find((c) => c.rule.id === 'DEPENDENTS')!.value).toBe(
      2,
    );
    expect(evaluateScanA(t, s).criteria.find((c) => c.rule.id === 'DEPENDENTS')!.value).toBe(3);
  });

  it('expired when the moment asked about is more than expireAfterDays after the scan', () => {
    const s = scan({ ISSUE_REACTION_TIME: 0, BUS_FACTOR: 4 });
    const at = (d: number) =>
      evaluateScanA(t, s, { at: s.timestamp + d, expireAfterDays: 30 }).badges[0]!.status;
    expect(at(30 * 86400)).toBe('gold');
    expect(at(30 * 86400 + 1)).toBe('expired');
  });
});
