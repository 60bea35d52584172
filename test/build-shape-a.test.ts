import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectEverySarifValid, sarifErrors } from './helpers/sarif.ts';
import { buildSite, readTree } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';
import { ROOT } from './helpers/cli.ts';

const STORE = join(ROOT, 'examples/store');
const dir = tempDir();
const out = join(dir, 'site');
const built = await buildSite({ store: STORE, out });
const tree = readTree(out);
const json = (key: string) => JSON.parse(tree.get(key)!.toString('utf8'));
const WIDGET = 'api/v1/repositories/https%3A%2F%2Fgithub.com%2Facme%2Fwidget/';

describe('building the example store (Shape A)', () => {
  it('builds every repository with no problems', () => {
    expect(built.issues).toEqual([]);
    expect(built.summary.repositories).toBe(4);
    expect(built.summary.scans).toBe(12);
    // per scan: sarif + 3 × (svg + explanation); per repository: index + latest 7 + 3 shields JSON
    expect(tree.size).toBe(12 * 7 + 4 * 11);
  });

  it('writes the output layout of docs/reference/api.md', () => {
    for (const key of [
      'sarif',
      'index.json',
      'badges/MAINTENANCE.svg',
      'badges/MAINTENANCE',
      'at/1760000000/sarif',
      'at/1763596800/badges/SECURITY.svg',
    ]) {
      expect(tree.has(WIDGET + key), key).toBe(true);
    }
    expect(json(`${WIDGET}index.json`)).toEqual({
      repositoryUrl: 'https://github.com/acme/widget',
      timestamps: [1760000000, 1761000000, 1762000000, 1763000000, 1763596800],
      badges: ['MAINTENANCE', 'SECURITY', 'REUSED'],
    });
  });

  it('canonicalises scheme and host but keeps the path', () => {
    const keys = [...tree.keys()].filter((k) => k.includes('git.example.org'));
    expect(keys.length).toBe(2 * 7 + 11);
    expect(keys[0]).toContain(
      encodeURIComponent('https://git.example.org:8443/platform/api-gateway'),
    );
  });

  it('every report validates against the official SARIF 2.1.0 schema', () => {
    const reports = [...tree.keys()].filter((k) => k.endsWith('/sarif'));
    expect(reports.length).toBe(16);
    for (const key of reports) expect(sarifErrors(json(key)), key).toEqual([]);
    expect(expectEverySarifValid(out)).toBe(16);
  });

  it('the report has exactly the fields docs/reference/api.md lists', () => {
    const report = json(`${WIDGET}at/1763000000/sarif`);
    expect(Object.keys(report)).toEqual(['$schema', 'version', 'runs']);
    expect(report.$schema).toBe('https://json.schemastore.org/sarif-2.1.0.json');
    expect(report.version).toBe('2.1.0');
    const run = report.runs[0];
    expect(Object.keys(run)).toEqual([
      'tool',
      'versionControlProvenance',
      'originalUriBaseIds',
      'properties',
      'results',
    ]);
    // The example store's records name no commit: the repository alone.
    // The repository's root as SARIF names it (Multitool's SARIF2007): a base id, described.
    expect(run.versionControlProvenance).toEqual([
      { repositoryUri: 'https://github.com/acme/widget', mappedTo: { uriBaseId: '%SRCROOT%' } },
    ]);
    expect(run.originalUriBaseIds).toEqual({
      '%SRCROOT%': { description: { text: 'The root of the scanned repository.' } },
    });
    expect(Object.keys(run.tool.driver)).toEqual(['name', 'version', 'informationUri', 'rules']);
    const rules = run.tool.driver.rules;
    expect(rules.map((r: { id: string }) => r.id)).toEqual([
      'ISSUE_REACTION_TIME',
      'BUS_FACTOR',
      'SECURITY_POLICY',
      'DEPENDENTS',
    ]);
    expect(Object.keys(rules[0])).toEqual([
      'id',
      'name',
      'fullDescription',
      'help',
      'helpUri',
      'properties',
    ]);
    expect(rules[0].properties).toEqual({
      unit: 'days',
      thresholds: [
        { min: 0, max: 1, status: 'gold' },
        { min: 2, max: 7, status: 'silver' },
        { min: 8, max: 14, status: 'bronze' },
        { min: 15, max: null, status: 'fail' },
      ],
    });
    expect(rules[1].properties.thresholds).toEqual([
      { min: 4, max: null, status: 'gold' },
      { min: 3, max: 3, status: 'silver' },
      { min: 2, max: 2, status: 'bronze' },
      { min: 0, max: 1, status: 'fail' },
    ]);
    expect(rules[2].properties).toEqual({
      type: 'boolean',
      positiveStatus: 'gold',
      negativeStatus: 'fail',
    });
    expect(run.properties.timestamp).toBe(1763000000);
    expect(run.properties.badges.map((b: { badgeId: string }) => b.badgeId)).toEqual([
      'MAINTENANCE',
      'SECURITY',
      'REUSED',
    ]);
    // reaction 7 days (silver), bus factor 3 (silver), policy true, 5 dependents (silver)
    // The record holds no evidence: the evidence says what the scan reported.
    const said = (evidence: string) => ({
      evidence,
      provenance: { evidence, scannedAt: 1763000000 },
    });
    expect(run.results).toEqual([
      {
        ruleId: 'ISSUE_REACTION_TIME',
        level: 'note',
        message: { text: 'Issue reaction time is 7 days: silver (2..7 days).' },
        properties: {
          value: 7,
          status: 'silver',
          unit: 'days',
          range: { min: 2, max: 7 },
          ...said('The scan reported 7 days.'),
        },
      },
      {
        ruleId: 'BUS_FACTOR',
        level: 'note',
        message: { text: 'Bus factor is 3 contributors: silver (3..3 contributors).' },
        properties: {
          value: 3,
          status: 'silver',
          unit: 'contributors',
          range: { min: 3, max: 3 },
          ...said('The scan reported 3 contributors.'),
        },
      },
      {
        ruleId: 'SECURITY_POLICY',
        level: 'note',
        message: { text: 'Security policy is present: gold.' },
        properties: { value: true, status: 'gold', ...said('The scan reported it present.') },
      },
      {
        ruleId: 'DEPENDENTS',
        level: 'note',
        message: { text: 'Dependents is 5 dependents: silver (5..19 dependents).' },
        properties: {
          value: 5,
          status: 'silver',
          unit: 'dependents',
          range: { min: 5, max: 19 },
          ...said('The scan reported 5 dependents.'),
        },
      },
    ]);
    const first = json(`${WIDGET}at/1760000000/sarif`).runs[0];
    expect(first.results.map((r: { level: string }) => r.level)).toEqual([
      'note',
      'warning',
      'warning',
      'warning',
    ]);
  });

  it('the explanation is the badge object of the report, badgeUrl included', () => {
    for (const ts of [1760000000, 1763596800]) {
      const report = json(`${WIDGET}at/${ts}/sarif`);
      for (const badge of report.runs[0].properties.badges) {
        const explanation = json(`${WIDGET}at/${ts}/badges/${badge.badgeId}`);
        expect(Object.keys(explanation)).toEqual([
          'badgeUrl',
          'badgeId',
          'badgeStatus',
          'badgeInformationUri',
          'badgeExplanation',
        ]);
        expect(explanation).toEqual(badge);
        expect(explanation.badgeUrl).toBe(
          `http://127.0.0.1:8787/${WIDGET}badges/${badge.badgeId}.svg?timestamp=${ts}`,
        );
      }
    }
    const latest = json(`${WIDGET}badges/MAINTENANCE`);
    // The latest record names its commit of 2025-11-17, three days before the scan.
    expect(latest).toEqual(json(`${WIDGET}at/1763596800/badges/MAINTENANCE`));
    expect(latest.badgeStatus).toBe('silver');
    expect(latest.badgeExplanation.criteria).toEqual([
      {
        description: 'Issue reaction time is 3 days',
        ruleId: 'ISSUE_REACTION_TIME',
        value: 3,
        status: 'silver',
        range: { min: 2, max: 7 },
        provenance: {
          evidence: 'The scan reported 3 days.',
          commit: '5c61e16a0b8f4c2d9e7f1a3b5c7d9e1f2a4b6c8d',
          committedAt: 1763337600,
          branch: 'main',
          dataAgeDays: 3,
          scannedAt: 1763596800,
        },
      },
      {
        description: 'Bus factor is 4 contributors',
        ruleId: 'BUS_FACTOR',
        value: 4,
        status: 'gold',
        range: { min: 4, max: null },
        provenance: {
          evidence: 'The scan reported 4 contributors.',
          commit: '5c61e16a0b8f4c2d9e7f1a3b5c7d9e1f2a4b6c8d',
          committedAt: 1763337600,
          branch: 'main',
          dataAgeDays: 3,
          scannedAt: 1763596800,
        },
      },
    ]);
  });

  it('the SVG badge shows the badge id and the status', () => {
    const svg = tree.get(`${WIDGET}badges/SECURITY.svg`)!.toString();
    expect(svg).toContain('aria-label="SECURITY: gold"');
    expect(svg).toContain('<title>SECURITY: gold</title>');
  });

  it('building twice gives identical bytes, and the second build rewrites nothing', async () => {
    const again = join(dir, 'again');
    await buildSite({ store: STORE, out: again });
    expect(readTree(again)).toEqual(tree);
    const mtime = statSync(join(out, `${WIDGET}sarif`)).mtimeMs;
    const second = await buildSite({ store: STORE, out });
    expect(second.summary.written).toBe(0);
    expect(second.summary.unchanged).toBe(tree.size);
    expect(statSync(join(out, `${WIDGET}sarif`)).mtimeMs).toBe(mtime);
    expect(readTree(out)).toEqual(tree);
  });

  it('a threshold change applies to past reports on rebuild', async () => {
    const cfgDir = join(dir, 'cfg');
    mkdirSync(cfgDir, { recursive: true });
    const { readFileSync } = await import('node:fs');
    const thresholds = readFileSync(join(ROOT, 'config/thresholds-a.yaml'), 'utf8').replace(
      '{ min: 0, max: 0, status: fail }\n      - { min: 1, max: 4, status: bronze }',
      '{ min: 0, max: 1, status: fail }\n      - { min: 2, max: 4, status: bronze }',
    );
    writeFileSync(join(cfgDir, 'thresholds-a.yaml'), thresholds);
    writeFileSync(join(cfgDir, 'badgepress.yaml'), 'thresholds:\n  A: thresholds-a.yaml\n');
    const changed = join(dir, 'changed');
    await buildSite({ store: STORE, out: changed, config: join(cfgDir, 'badgepress.yaml') });
    const after = readTree(changed);
    expectEverySarifValid(changed);
    // The 1761000000 scan had 1 dependent: bronze before, fail now.
    expect(json(`${WIDGET}at/1761000000/badges/REUSED`).badgeStatus).toBe('bronze');
    expect(
      JSON.parse(after.get(`${WIDGET}at/1761000000/badges/REUSED`)!.toString()).badgeStatus,
    ).toBe('fail');
  });
});
