import { describe, expect, it } from 'vitest';
import { loadThresholdsA, PACKAGE_CONFIG_DIR } from '../src/config/load.ts';
import { evaluateScanA } from '../src/evaluate/shape-a.ts';
import type { ScanRecord, StoredValue } from '../src/load/types.ts';

const t = await loadThresholdsA(`${PACKAGE_CONFIG_DIR}/thresholds-a.yaml`);

function scan(values: Record<string, StoredValue>, timestamp = 1_763_000_000): ScanRecord {
  return { kind: 'scan', repositoryUrl: 'https://example.org/a/b', timestamp, values, evidence: {}, source: 'test:1' };
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
    const missing = rule({}, 'SECURITY_POLICY');
    expect([missing.status, missing.met, missing.value]).toEqual(['fail', false, null]);
    expect(missing.message).toMatch(/could not be determined/);
    const nul = rule({ SECURITY_POLICY: null }, 'SECURITY_POLICY');
    expect(nul.value).toBeNull();
  });

  it('a numeric value that could not be determined fails with a warning-level outcome', () => {
    const c = rule({ ISSUE_REACTION_TIME: null }, 'ISSUE_REACTION_TIME');
    expect([c.status, c.met, c.value, c.range]).toEqual(['fail', false, null, undefined]);
  });

  it('badge status is the worst of its criteria', () => {
    expect(badge({ ISSUE_REACTION_TIME: 0, BUS_FACTOR: 4 }, 'MAINTENANCE').status).toBe('gold');
    expect(badge({ ISSUE_REACTION_TIME: 0, BUS_FACTOR: 3 }, 'MAINTENANCE').status).toBe('silver');
    expect(badge({ ISSUE_REACTION_TIME: 9, BUS_FACTOR: 3 }, 'MAINTENANCE').status).toBe('bronze');
    expect(badge({ ISSUE_REACTION_TIME: 9, BUS_FACTOR: 0 }, 'MAINTENANCE').status).toBe('fail');
    expect(badge({ ISSUE_REACTION_TIME: 0 }, 'MAINTENANCE').status).toBe('fail');
    expect(badge({ SECURITY_POLICY: true }, 'SECURITY').status).toBe('gold');
    expect(badge({ DEPENDENTS: 5 }, 'REUSED').status).toBe('silver');
  });

  it('the conclusion names each criterion and its outcome', () => {
    const b = badge({ ISSUE_REACTION_TIME: 3, BUS_FACTOR: 4 }, 'MAINTENANCE');
    expect(b.conclusion).toBe('MAINTENANCE is silver: Issue reaction time is 3 days (silver); Bus factor is 4 contributors (gold).');
  });

  it('count events are counted in the rule window ending at the scan time', () => {
    const windowed = { ...t, rules: t.rules.map((r) => (r.id === 'DEPENDENTS' && r.type === 'numeric' ? { ...r, timeRangeInMonths: 1 } : r)) };
    const day = 86400;
    const s = scan({ DEPENDENTS: { events: [1_763_000_000 - 40 * day, 1_763_000_000 - 10 * day, 1_763_000_000, 1_763_000_000 + 1] } });
    expect(evaluateScanA(windowed, s).criteria.find((c) => c.rule.id === 'DEPENDENTS')!.value).toBe(2);
    expect(evaluateScanA(t, s).criteria.find((c) => c.rule.id === 'DEPENDENTS')!.value).toBe(3);
  });

  it('expired when the moment asked about is more than expireAfterDays after the scan', () => {
    const s = scan({ ISSUE_REACTION_TIME: 0, BUS_FACTOR: 4 });
    const at = (d: number) => evaluateScanA(t, s, { at: s.timestamp + d, expireAfterDays: 30 }).badges[0]!.status;
    expect(at(30 * 86400)).toBe('gold');
    expect(at(30 * 86400 + 1)).toBe('expired');
  });
});
