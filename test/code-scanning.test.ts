// code-scanning.sarif for both shapes: valid against the OASIS schema, no error from SARIF
// Multitool's GitHub rules, a location per result, fingerprints stable across scans.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, loadThresholdsA } from '../src/config/load.ts';
import { loadThresholdsB } from '../src/config/thresholds-b.ts';
import { evaluateScanA } from '../src/evaluate/shape-a.ts';
import { evaluateScanB } from '../src/evaluate/shape-b.ts';
import type { ScanRecord } from '../src/load/types.ts';
import { codeScanningA, codeScanningB } from '../src/render/code-scanning.ts';
import { ruleHelpUri } from '../src/render/sarif-common.ts';
import { ROOT } from './helpers/cli.ts';
import { sarifErrors } from './helpers/sarif.ts';
import { multitoolIssues } from './helpers/sarif-multitool.ts';

const SITE = await loadSettings(join(ROOT, 'config/badgepress.yaml'));
// The packaged thresholds, with the security-policy rule pointed at its file as a deployment would.
const PACKAGED_A = await loadThresholdsA(join(ROOT, 'config/thresholds-a.yaml'));
const TA = {
  ...PACKAGED_A,
  rules: PACKAGED_A.rules.map((r) =>
    r.id === 'SECURITY_POLICY' ? { ...r, location: 'SECURITY.md' } : r,
  ),
};
const TB = await loadThresholdsB(join(ROOT, 'config/thresholds-b.yaml'));
const URL = 'https://github.com/acme/widget';
const HOSTILE = '<script>|`x`\n';

function scan(timestamp: number, values: ScanRecord['values']): ScanRecord {
  return { kind: 'scan', repositoryUrl: URL, timestamp, values, evidence: {}, source: 'test:1' };
}

type Report = {
  runs: Array<{
    automationDetails: { id: string };
    tool: { driver: { rules: Array<Record<string, unknown>> } };
    results: Array<{
      ruleId: string;
      level: string;
      locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }>;
      partialFingerprints: Record<string, string>;
    }>;
  }>;
};

// Shape A: SECURITY_POLICY absent (fail, on SECURITY.md), BUS_FACTOR 1 (fail), DEPENDENTS missing (unknown).
const a1 = codeScanningA(
  SITE,
  URL,
  evaluateScanA(
    TA,
    scan(1763596800, { ISSUE_REACTION_TIME: 3, BUS_FACTOR: 1, SECURITY_POLICY: false }),
  ),
  TA.rules,
) as Report;
const a2 = codeScanningA(
  SITE,
  URL,
  evaluateScanA(
    TA,
    scan(1764201600, { ISSUE_REACTION_TIME: 30, BUS_FACTOR: 0, SECURITY_POLICY: false }),
  ),
  TA.rules,
) as Report;
// Nothing measured fails: ISSUE_REACTION_TIME null with its cause, the others missing.
const aUnknown = codeScanningA(
  SITE,
  URL,
  evaluateScanA(TA, {
    ...scan(1763596800, { ISSUE_REACTION_TIME: null }),
    evidence: { ISSUE_REACTION_TIME: 'no token for github.com' },
  }),
  TA.rules,
) as Report;
const b1 = codeScanningB(
  { ...SITE, baseUrl: 'https://badges.example' },
  evaluateScanB(
    TB,
    new Map(),
    scan(1763596800, {
      COMMITS: 1,
      ISSUE_REACTION_TIME: 3,
      RELEASES: 0,
      PACKAGES: null,
      CI_PIPELINE: 5,
    }),
    [],
  ),
  TB.rules,
) as Report;

describe('code-scanning.sarif', () => {
  it('Shape A: one result per measured failing rule, each with a location; an unknown rule raises no alert', () => {
    const results = a1.runs[0]!.results;
    expect(
      results.map((r) => [
        r.ruleId,
        r.level,
        r.locations[0]!.physicalLocation.artifactLocation.uri,
      ]),
    ).toEqual([
      ['BUS_FACTOR', 'error', 'README.md'],
      ['SECURITY_POLICY', 'error', 'SECURITY.md'],
    ]);
    expect(aUnknown.runs[0]!.results).toEqual([]);
  });

  it('Shape B: a rule repeated across levels is reported once; an open check (no value, no decision) raises no alert', () => {
    const results = b1.runs[0]!.results;
    const ids = results.map((r) => r.ruleId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(results.find((r) => r.ruleId === 'COMMITS')?.level).toBe('error');
    expect(ids).not.toContain('PACKAGES');
    expect(ids.filter((id) => id.startsWith('MANUAL/'))).toEqual([]);
    expect(ids).not.toContain('CI_PIPELINE');
  });

  it('Shape B: a revoked manual grant is decided, so it raises an alert; only an undecided check does not', () => {
    const revoked = {
      kind: 'grant' as const,
      repositoryUrl: URL,
      ruleId: 'MANUAL/Project is open source',
      granted: false,
      timestamp: 1763000000,
      source: 'test:2',
    };
    const values = { COMMITS: 9, ISSUE_REACTION_TIME: 3, RELEASES: 1, PACKAGES: 1, CI_PIPELINE: 5 };
    const report = codeScanningB(
      SITE,
      evaluateScanB(TB, new Map(), scan(1763596800, values), [revoked]),
      TB.rules,
    ) as Report;
    expect(report.runs[0]!.results.map((r) => [r.ruleId, r.level])).toEqual([
      ['MANUAL/Project is open source', 'error'],
    ]);
  });

  it('rules carry shortDescription, fullDescription, help and helpUri on the site', () => {
    for (const report of [a1, b1]) {
      for (const rule of report.runs[0]!.tool.driver.rules) {
        expect(Object.keys(rule)).toEqual(
          expect.arrayContaining(['shortDescription', 'fullDescription', 'help', 'helpUri']),
        );
      }
    }
    const manual = b1.runs[0]!.tool.driver.rules.find((r) => String(r.id).startsWith('MANUAL/'))!;
    expect(manual.helpUri).toBe(ruleHelpUri('https://badges.example', String(manual.id)));
    expect(manual.helpUri).toMatch(/^https:\/\/badges\.example\/rules\/MANUAL%2F[^/ ]+\/$/);
  });

  it('fingerprints and the automation category stay across scans; the run id changes', () => {
    const fp = (r: Report) =>
      Object.fromEntries(
        r.runs[0]!.results.map((x) => [x.ruleId, x.partialFingerprints['badgepress/v1']]),
      );
    expect(fp(a2).BUS_FACTOR).toBe(fp(a1).BUS_FACTOR);
    expect(fp(a2).SECURITY_POLICY).toBe(fp(a1).SECURITY_POLICY);
    expect(fp(a1).BUS_FACTOR).not.toBe(fp(a1).SECURITY_POLICY);
    expect(a1.runs[0]!.automationDetails.id).toBe('badgepress/1763596800/');
    expect(a2.runs[0]!.automationDetails.id).toBe('badgepress/1764201600/');
  });

  it('both shapes validate against the OASIS SARIF 2.1.0 schema', () => {
    for (const report of [a1, a2, aUnknown, b1]) expect(sarifErrors(report)).toEqual([]);
  });

  it('SARIF Multitool (rule kinds Sarif and Gh) reports no error and no warning for either shape, and can fail: the plain sarif endpoint shape has GitHub errors', {
    timeout: 120_000,
  }, () => {
    const stripped = JSON.parse(JSON.stringify(a1)) as Report;
    for (const r of stripped.runs[0]!.results) delete (r as { locations?: unknown }).locations;
    // One run of the tool for the three reports.
    const [ofA, ofB, ofStripped, ofUnknown] = multitoolIssues(a1, b1, stripped, aUnknown);
    expect(ofA).toEqual([]);
    expect(ofB).toEqual([]);
    expect(ofUnknown).toEqual([]);
    expect(ofStripped!.filter((i) => i.level === 'error').length).toBeGreaterThan(0);
  });

  it('escapes nothing it need not: hostile rule text stays JSON text', () => {
    const report = codeScanningA(
      SITE,
      URL,
      evaluateScanA(
        { ...TA, rules: TA.rules.map((r) => ({ ...r, name: HOSTILE })) },
        scan(1763596800, { BUS_FACTOR: 1 }),
      ),
      TA.rules.map((r) => ({ ...r, help: HOSTILE })),
    );
    expect(sarifErrors(report)).toEqual([]);
  });
});
