// DEPENDENTS judged by the thresholds, with no `dependents:` source in the config: the scan
// does not ask an index, and says so as it does for every rule not asked (`--forge never`, a
// host's `api: false`): the record holds the rule as null with "not asked: <why>", never a
// failure, and the summary names it. Pages, explanations and SARIF of both shapes then give
// that cause, never "the scan did not measure this rule". A scan with `dependents:` at a later
// time writes its count, and the site shows it. Real git repository, real scan and build; the
// index is a loopback stand-in shaped by ecosyste.ms's documented answers. Expected texts are
// the cause as the docs word it, put together by hand.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';
import { startEcosystemsIndex } from './helpers/ecosystems-index.ts';
import { scanAndBuild } from './helpers/scan-and-build.ts';
import { utc, WorkRepo } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';

const root = tempDir('badgepress-dependents-not-asked-');
const URL_ = 'https://example.org/acme/widget';
const ENC = encodeURIComponent(URL_);
const E = utc(2026, 11, 25);
const LATER = utc(2026, 11, 26);
const WHY =
  'no dependents: source in the config; to measure it, add one naming ecosyste.ms or deps.dev';
const CAUSE = `not asked: ${WHY}`;
const NO_FORGE_API =
  'no forge API is known for example.org; to measure it, name its kind (github, gitlab or gitea) and apiUrl under hosts: in the config';

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const api = (out: string, rest: string) => join(out, 'api/v1/repositories', ENC, rest);
const page = (out: string) => readFileSync(join(out, 'repositories', ENC, 'index.html'), 'utf8');
const storeFile = join(root, 'store/example.org/acme/widget.ndjson');
const storedLines = () =>
  readFileSync(storeFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

let index: ForgeServer;
// Shape B judges DEPENDENTS only where its thresholds name it (the shipped ones do not): its own.
const { config, scan, build } = scanAndBuild(root, {
  thresholdsB: join(root, 'thresholds-b.yaml'),
  common: ['codeScanning: true'],
});

beforeAll(async () => {
  const repo = WorkRepo.init(join(root, 'widget'));
  repo.commit({ at: utc(2026, 9, 2), files: { 'SECURITY.md': 'mail us' } });
  repo.commit({ at: utc(2026, 11, 8) });
  repo.bareClone(join(root, 'widget.git'));
  writeFileSync(join(root, 'repos.txt'), `${URL_} mirror=widget.git\n`);
  // Shape B judges DEPENDENTS only where its thresholds name it (the shipped ones do not).
  writeFileSync(
    join(root, 'thresholds-b.yaml'),
    [
      'rules:',
      '  - id: DEPENDENTS',
      '    name: Dependents',
      '    description: Number of known projects that depend on this repository.',
      '    help: Publish packages so dependents can be found.',
      '    unit: dependents',
      '    threshold: { min: 1 }',
      'badges:',
      '  - id: REUSED',
      '    levels:',
      '      - level: BRONZE',
      '        checks: [DEPENDENTS]',
      '',
    ].join('\n'),
  );
  index = await startEcosystemsIndex(25);
}, 60_000);
afterAll(async () => {
  await index?.close();
});

describe('DEPENDENTS without a dependents: source', () => {
  let a: string;
  let b: string;
  beforeAll(async () => {
    const summary = await scan(join(root, 'plain.yaml'), E);
    // Not asked is no failure: exit 0, and the summary names it with why, not as unmeasured.
    expect(summary).toMatchObject({ measured: 1, records: 1, failed: 0, exitCode: 0 });
    // example.org has no forge API badgepress knows: the forge rules are not asked either (the
    // summary names the one the thresholds judge).
    expect(summary.notAsked).toEqual([
      { rules: ['DEPENDENTS'], why: WHY },
      { rules: ['ISSUE_REACTION_TIME'], why: NO_FORGE_API },
    ]);
    expect(summary.unmeasured).toEqual([]);
    a = await build('site-a', 'A', E + 3600);
    b = await build('site-b', 'B', E + 3600);
  }, 60_000);

  it('the record holds it null with the cause, not as failed', () => {
    const [record] = storedLines();
    expect(record.values.DEPENDENTS).toBeNull();
    expect(record.evidence.DEPENDENTS).toBe(CAUSE);
    expect(record.failed).toBeUndefined();
  });

  it('Shape A: the explanation, SARIF and page give the cause; code scanning raises no alert', () => {
    const reused = json(api(a, 'badges/REUSED'));
    expect(reused.badgeStatus).toBe('unknown');
    expect(reused.badgeExplanation.criteria[0]).toMatchObject({
      description: `Dependents is unknown (${CAUSE})`,
      ruleId: 'DEPENDENTS',
      value: null,
      status: 'unknown',
      provenance: { evidence: CAUSE, scannedAt: E },
    });
    expect(reused.badgeExplanation.conclusion).toBe(
      `REUSED is unknown: Dependents is unknown (${CAUSE}).`,
    );
    const result = json(api(a, 'sarif')).runs[0].results.find(
      (r: { ruleId: string }) => r.ruleId === 'DEPENDENTS',
    );
    expect([result.kind, result.level, result.message.text]).toEqual([
      'open',
      'none',
      `Dependents is unknown (${CAUSE}).`,
    ]);
    expect(result.properties.provenance.evidence).toBe(CAUSE);
    const scanning = json(api(a, 'code-scanning.sarif')).runs[0].results;
    expect(scanning.map((r: { ruleId: string }) => r.ruleId)).not.toContain('DEPENDENTS');
    // The REUSED section's Evidence cell (ISSUE_REACTION_TIME, not asked on this host without
    // a forge API, has its own cause in MAINTENANCE's).
    const reusedSection = page(a).slice(page(a).indexOf('id="badge-REUSED"'));
    expect(reusedSection).toContain(`<td><bdi>${CAUSE}</bdi></td>`);
    expect(page(a)).not.toContain('did not measure this rule');
  });

  it('Shape B: the check is open, its provenance and the page giving the cause', () => {
    const result = json(api(b, 'sarif')).runs[0].results[0];
    expect([result.ruleId, result.kind, result.properties.provenance.evidence]).toEqual([
      'DEPENDENTS',
      'open',
      CAUSE,
    ]);
    const criterion = json(api(b, 'badges/REUSED')).badgeExplanation.criteria[0];
    expect(criterion.provenance.evidence).toBe(CAUSE);
    expect(page(b)).toContain(CAUSE);
    expect(page(b)).not.toContain('did not measure this rule');
  });

  it('with dependents: configured, the same time stays as stored and a later scan writes the count', async () => {
    const withIndex = config('with-index', [
      `dependents: { source: ecosyste.ms, apiUrl: "${index.url}" }`,
    ]);
    // A complete record at a time is final, as after --forge never: nothing asked, nothing written.
    const again = await scan(withIndex, E);
    expect(again).toMatchObject({
      measured: 0,
      upToDate: 1,
      records: 0,
      failed: 0,
      incomplete: 0,
      exitCode: 0,
    });
    expect(index.requests).toHaveLength(0);
    const later = await scan(withIndex, LATER);
    expect(later).toMatchObject({ measured: 1, records: 1, failed: 0, exitCode: 0 });
    expect(later.notAsked.map((n) => n.why)).toEqual([NO_FORGE_API]);
    expect(index.requests).toHaveLength(1);
    const records = storedLines();
    expect(records.map((r) => [r.timestamp, r.values.DEPENDENTS])).toEqual([
      [E, null],
      [LATER, 25],
    ]);
    const site = await build('site-later', 'A', LATER + 3600);
    const reused = json(api(site, 'badges/REUSED'));
    // 25 dependents: gold (20 or more, config/thresholds-a.yaml).
    expect([reused.badgeStatus, reused.badgeExplanation.criteria[0].value]).toEqual(['gold', 25]);
    expect(page(site)).not.toContain(CAUSE);
  });
});

describe('a record written without DEPENDENTS (an older scanner, a narrower --rules)', () => {
  it('lacks nothing a scan without dependents: would only hold as not asked: no "incomplete", exit 0', async () => {
    const store = ['--store', join(root, 'store-older')];
    const gitRules = ['--rules', 'BUS_FACTOR,COMMITS,RELEASES,SECURITY_POLICY'];
    expect(await scan(join(root, 'plain.yaml'), E, [...store, ...gitRules])).toMatchObject({
      records: 1,
    });
    // The same time again with every rule: nothing this scan would measure is missing there.
    const again = await scan(join(root, 'plain.yaml'), E, store);
    expect(again).toMatchObject({
      measured: 0,
      upToDate: 1,
      records: 0,
      incomplete: 0,
      exitCode: 0,
    });
  });
});
