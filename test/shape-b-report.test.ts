import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../src/config/load.ts';
import { loadThresholdsB } from '../src/config/thresholds-b.ts';
import type { DecisionFileB, Settings } from '../src/config/types.ts';
import type { GrantRecord, RepositoryHistory, ScanRecord } from '../src/load/types.ts';
import { evaluatorB } from '../src/evaluate/repository.ts';
import { scanFiles } from '../src/render/shape-files.ts';
import { renderingB } from '../src/render/shape-renderings.ts';
import { BadgeRenderer } from '../src/render/svg.ts';
import { ROOT } from './helpers/cli.ts';
import { sarifErrors } from './helpers/sarif.ts';
import { badgeTemplates } from '../src/config/templates.ts';

/** The badge templates, as a build reads them with its config. */
const BADGES = badgeTemplates();

const T = await loadThresholdsB(join(ROOT, 'examples/shape-b/thresholds-b.yaml'));
const SITE = await loadSettings(join(ROOT, 'examples/shape-b/badgepress.yaml'));
const URL = 'https://github.com/acme/widget';
const ENC = encodeURIComponent(URL);
const TS = 1763596800;
const OSS = 'MANUAL/Project is open source';
const XSS = '<script>alert("x")</script> & \'quotes\'';

const scanRecord: ScanRecord = {
  kind: 'scan',
  repositoryUrl: URL,
  timestamp: TS,
  values: { COMMITS: 12, ISSUE_REACTION_TIME: 9, RELEASES: 2, PACKAGES: null, CI_PIPELINE: 5 },
  evidence: { COMMITS: XSS },
  source: 'test:1',
};
const grants: GrantRecord[] = [
  {
    kind: 'grant',
    repositoryUrl: URL,
    ruleId: OSS,
    granted: true,
    timestamp: TS - 100,
    by: '<b>jane</b>',
    source: 'test:2',
  },
];
const history: RepositoryHistory = {
  repositoryUrl: URL,
  encoded: ENC,
  scans: [scanRecord],
  grants,
};

function render(
  settings: Settings,
  decisions = new Map<string, DecisionFileB>(),
): Map<string, string> {
  const evaluation = evaluatorB(T, decisions).evaluate(history, TS);
  return new Map(
    scanFiles(
      settings,
      new BadgeRenderer(BADGES),
      renderingB(settings, T),
    )(ENC, evaluation.latest).map((f) => [
      !('badgeId' in f.resource)
        ? f.resource.kind
        : `${f.resource.badgeId}${f.resource.kind === 'svg' ? '.svg' : ''}`,
      f.body,
    ]),
  );
}

const files = render(SITE);
const report = JSON.parse(files.get('sarif')!);
const run = report.runs[0];

describe('Shape B report', () => {
  it('has the envelope, a driver without version, and the default rules with index, unit and threshold', () => {
    expect(Object.keys(report)).toEqual(['$schema', 'version', 'runs']);
    const members = [
      'tool',
      'versionControlProvenance',
      'originalUriBaseIds',
      'properties',
      'results',
    ];
    expect(Object.keys(run)).toEqual(members);
    expect(run.versionControlProvenance).toEqual([
      { repositoryUri: URL, mappedTo: { uriBaseId: '%SRCROOT%' } },
    ]);
    expect(Object.keys(run.originalUriBaseIds)).toEqual(['%SRCROOT%']);
    expect(Object.keys(run.tool.driver)).toEqual(['name', 'informationUri', 'rules']);
    expect(
      run.tool.driver.rules.map((r: { id: string; properties: object }, i: number) => [
        i,
        r.id,
        r.properties,
      ]),
    ).toEqual([
      [0, 'COMMITS', { unit: 'commits', threshold: { min: 5, timeRangeInMonths: 6 } }],
      [1, 'ISSUE_REACTION_TIME', { unit: 'days', threshold: { max: 7, timeRangeInMonths: 3 } }],
      [2, 'RELEASES', { unit: 'releases', threshold: { min: 1, timeRangeInMonths: 6 } }],
      [3, 'PACKAGES', { unit: 'packages', threshold: { min: 1, timeRangeInMonths: 6 } }],
      [4, 'CI_PIPELINE', { unit: 'runs', threshold: { min: 1, timeRangeInMonths: 6 } }],
      [5, 'MANUAL/DIN SPEC XXXX compliant', { unit: '', threshold: { min: 1 } }],
      [6, OSS, { unit: '', threshold: { min: 1 } }],
    ]);
    expect(Object.keys(run.tool.driver.rules[0])).toEqual([
      'id',
      'name',
      'fullDescription',
      'help',
      'helpUri',
      'properties',
    ]);
  });

  it('run.properties: one badge entry per id and level with the default criteria, and testedRepository', () => {
    expect(Object.keys(run.properties)).toEqual(['badges', 'testedRepository']);
    expect(run.properties.testedRepository).toBe(URL);
    type Entry = {
      badgeId: string;
      badgeLevel: string;
      badgeGranted: boolean;
      isHighestGrantedBadge: boolean;
      badgeExplanation: { criteria: Array<{ ruleId: string; badgeLevel: string }> };
    };
    const badges: Entry[] = run.properties.badges;
    expect(
      badges.map((b) => [
        b.badgeId,
        b.badgeLevel,
        b.badgeExplanation.criteria.map((c) => c.ruleId),
      ]),
    ).toEqual([
      ['MAINTAINED', 'BRONZE', ['COMMITS']],
      ['MAINTAINED', 'SILVER', ['COMMITS', 'ISSUE_REACTION_TIME']],
      ['MAINTAINED', 'GOLD', ['COMMITS', 'ISSUE_REACTION_TIME', 'RELEASES']],
      ['REUSED', 'BRONZE', ['PACKAGES', 'CI_PIPELINE']],
      ['DIN-SPEC-XXXX', 'BRONZE', ['MANUAL/DIN SPEC XXXX compliant']],
      ['OPEN-SOURCE', 'GOLD', [OSS]],
    ]);
    expect(Object.keys(badges[0]!)).toEqual([
      'badgeId',
      'badgeLevel',
      'badgeUrl',
      'badgeGranted',
      'badgeInformationUri',
      'isHighestGrantedBadge',
      'badgeExplanation',
    ]);
    // 12 commits pass, 9 days fail: BRONZE only; PACKAGES undetermined; OSS granted by record; DIN undecided.
    expect(badges.map((b) => [b.badgeGranted, b.isHighestGrantedBadge])).toEqual([
      [true, true],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
      [true, true],
    ]);
    expect(badges[2]!.badgeExplanation.criteria.map((c) => c.badgeLevel)).toEqual([
      'BRONZE',
      'SILVER',
      'GOLD',
    ]);
    expect(run.properties.badges[0].badgeUrl).toBe(
      `http://127.0.0.1:8787/api/v1/repositories/${ENC}/badges/MAINTAINED.svg?timestamp=${TS}`,
    );
    expect(run.properties.badges[4].badgeInformationUri).toBe('');
    expect(run.properties.badges[1].badgeExplanation.criteria[1]).toEqual({
      description: 'Issue reaction time: at most 7 days in the last 3 months (9)',
      value: '9',
      status: 'fail',
      ruleId: 'ISSUE_REACTION_TIME',
      threshold: { max: 7, timeRangeInMonths: 3 },
      badgeId: 'MAINTAINED',
      badgeLevel: 'SILVER',
      evidence: 'The scan reported 9 days.',
      provenance: { evidence: 'The scan reported 9 days.', scannedAt: TS },
    });
    // open criteria carry no evidence (the contract); their provenance says why they are open
    expect(run.properties.badges[3].badgeExplanation.criteria[0]).not.toHaveProperty('evidence');
    expect(run.properties.badges[3].badgeExplanation.criteria[0].provenance).toEqual({
      evidence: 'not measured: the scan could not determine it',
      scannedAt: TS,
    });
  });

  it('one result per criterion occurrence, with the right ruleIndex', () => {
    const criteria = run.properties.badges.flatMap(
      (b: { badgeExplanation: { criteria: unknown[] } }) => b.badgeExplanation.criteria,
    );
    expect(run.results).toHaveLength(10);
    expect(run.results).toHaveLength(criteria.length);
    const ids = run.tool.driver.rules.map((r: { id: string }) => r.id);
    run.results.forEach(
      (
        r: {
          ruleId: string;
          ruleIndex: number;
          kind: string;
          message: string;
          properties: Record<string, unknown>;
        },
        i: number,
      ) => {
        const c = criteria[i];
        expect(ids[r.ruleIndex]).toBe(r.ruleId);
        expect(r.ruleId).toBe(c.ruleId);
        expect(r.kind).toBe(c.status);
        expect(r.message).toBe(c.description);
        expect(r.properties).toEqual({
          badgeId: c.badgeId,
          badgeLevel: c.badgeLevel,
          evidence: c.evidence ?? '',
          threshold: c.threshold,
          value: c.value,
          provenance: c.provenance,
        });
        expect(Object.keys(r)).toEqual(['kind', 'message', 'ruleId', 'ruleIndex', 'properties']);
      },
    );
    expect(
      run.results
        .filter((r: { ruleId: string }) => r.ruleId === 'COMMITS')
        .map((r: { ruleIndex: number }) => r.ruleIndex),
    ).toEqual([0, 0, 0]);
    expect(run.results.map((r: { ruleIndex: number }) => r.ruleIndex)).toEqual([
      0, 0, 1, 0, 1, 2, 3, 4, 5, 6,
    ]);
    expect(run.results[6]).toMatchObject({
      kind: 'open',
      properties: { evidence: '', value: '<nil>' },
    });
  });

  it('default mode fails the official schema only on the message type; strictSarif validates', () => {
    const errors = sarifErrors(report);
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e).toMatch(/^\/runs\/0\/results\/\d+\/message must be object$/);
    expect(new Set(errors.map((e) => e.match(/results\/(\d+)/)![1])).size).toBe(10);
    const strict = JSON.parse(render({ ...SITE, strictSarif: true }).get('sarif')!);
    expect(sarifErrors(strict)).toEqual([]);
    expect(strict.runs[0].results[0].message).toEqual({ text: run.results[0].message });
    // nothing else differs between the modes
    for (const r of strict.runs[0].results) r.message = r.message.text;
    expect(strict).toEqual(report);
  });
});

describe('Shape B explanations and badges', () => {
  it('the explanation: status = highest granted level, fail or unknown, criteria of the highest level, conclusion', () => {
    const m = JSON.parse(files.get('MAINTAINED')!);
    expect(Object.keys(m)).toEqual([
      'badgeUrl',
      'badgeId',
      'badgeStatus',
      'badgeInformationUri',
      'badgeExplanation',
    ]);
    expect(m.badgeStatus).toBe('bronze');
    expect(m.badgeExplanation.criteria).toEqual(run.properties.badges[2].badgeExplanation.criteria);
    expect(m.badgeExplanation.conclusion).toMatch(
      /^MAINTAINED is granted at BRONZE \(BRONZE granted, SILVER not granted, GOLD not granted\); not passing: Issue reaction time/,
    );
    expect(m.badgeExplanation.conclusion).toMatch(
      /The criteria shown are those of GOLD, the highest level the badge defines\.$/,
    );
    // PACKAGES is null: nothing fails, so the badge is unknown, not fail (issue 35).
    expect(JSON.parse(files.get('REUSED')!).badgeStatus).toBe('unknown');
    expect(JSON.parse(files.get('OPEN-SOURCE')!).badgeStatus).toBe('gold');
  });

  it('the SVG shows the badge id and the highest granted level, or none', () => {
    expect(files.get('MAINTAINED.svg')).toContain('aria-label="MAINTAINED: bronze"');
    expect(files.get('MAINTAINED.svg')).toContain(SITE.colors.bronze);
    expect(files.get('REUSED.svg')).toContain('aria-label="REUSED: none"');
    expect(files.get('OPEN-SOURCE.svg')).toContain('aria-label="OPEN-SOURCE: gold"');
    expect(files.get('DIN-SPEC-XXXX.svg')).toContain('<title>DIN-SPEC-XXXX: none</title>');
  });

  it('evidence text stays a JSON string and nothing of it reaches an SVG', () => {
    const commits = run.properties.badges[0].badgeExplanation.criteria[0];
    expect(commits.evidence).toBe(XSS);
    expect(run.results[0].properties.evidence).toBe(XSS);
    expect(JSON.parse(files.get('MAINTAINED')!).badgeExplanation.criteria[0].evidence).toBe(XSS);
    expect(files.get('sarif')).toContain(JSON.stringify(XSS));
    expect(JSON.parse(files.get('OPEN-SOURCE')!).badgeExplanation.criteria[0].evidence).toBe(
      'Granted manually by <b>jane</b> on 2025-11-19.',
    );
    for (const [name, body] of files)
      if (name.endsWith('.svg')) expect(body).not.toMatch(/script|<b>|jane/);
  });
});
