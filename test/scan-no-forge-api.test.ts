// A repository on a host no `hosts:` entry names and badgepress does not know (a plain git
// server): the scan asks no forge API there, and says so as it does for every rule not asked
// (`--forge never`, a host's `api: false`): the record holds the forge rules
// (CI_PIPELINE, ISSUE_REACTION_TIME, PACKAGES) as null with "not asked: <why>", never a failure,
// RELEASES keeps git's tags with its evidence saying the forge releases were not read, and the
// summary names those the thresholds judge. Pages,
// explanations and SARIF of both shapes then give that cause, never "the scan did not measure
// this rule". Once the host is named under `hosts:`, a scan at a later time measures them.
// Real git over HTTP (git http-backend on 127.0.0.1), real scan and build; the forge is the
// GitLab stand-in. Expected texts are the cause as the docs word it, put together by hand.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';
import { startGitLab } from '../scripts/lib/forge-peers/gitlab.ts';
import { scanAndBuild } from './helpers/scan-and-build.ts';
import { TEST_GITLAB_TOKEN } from './helpers/cli-in-process.ts';
import { startGitHttp, type GitHttpServer } from './helpers/git-http.ts';
import { utc, WorkRepo } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';
import { storeFileName } from '../src/store/record-line.ts';

const root = tempDir('badgepress-no-forge-api-');
const E = utc(2026, 11, 25);
const LATER = utc(2026, 11, 26);
const FORGE_RULES = ['CI_PIPELINE', 'ISSUE_REACTION_TIME', 'PACKAGES'];
const NO_DEPENDENTS =
  'no dependents: source in the config; to measure it, add one naming ecosyste.ms or deps.dev';

let http: GitHttpServer;
let gitlab: ForgeServer;
let host: string;
/** Why the forge rules are not asked on `host`, as docs/reference/scan.md words it. */
let why: string;
let cause: string;

const { config, scan, build } = scanAndBuild(root, { common: ['codeScanning: true'] });
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const storedLines = (store = 'store') =>
  readFileSync(join(root, store, storeFileName(host, 'acme/widget')), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
/** The repository's folder of the API and the site, named by its URL as the store holds it. */
const enc = () => encodeURIComponent(storedLines()[0].repositoryUrl);
const api = (out: string, rest: string) => join(out, 'api/v1/repositories', enc(), rest);
const page = (out: string) => readFileSync(join(out, 'repositories', enc(), 'index.html'), 'utf8');

beforeAll(async () => {
  const repo = WorkRepo.init(join(root, 'widget'));
  repo.commit({ at: utc(2026, 9, 2), files: { 'SECURITY.md': 'mail us' } });
  repo.commit({ at: utc(2026, 11, 8) });
  repo.tag('v1', { annotatedAt: utc(2026, 11, 9) });
  mkdirSync(join(root, 'served/acme'), { recursive: true });
  repo.bareClone(join(root, 'served/acme/widget.git'));
  http = await startGitHttp(join(root, 'served'));
  host = `127.0.0.1:${http.port}`;
  why = `no forge API is known for ${host}; to measure it, name its kind (github, gitlab or gitea) and apiUrl under hosts: in the config`;
  cause = `not asked: ${why}`;
  writeFileSync(join(root, 'repos.txt'), `${http.url}/acme/widget.git\n`);
  gitlab = await startGitLab({
    pipelines: [{ created: '2026-10-01T00:00:00Z', status: 'success' }],
    packages: [{ name: 'widget', version: '1.0.0', type: 'npm', created: '2026-10-02T00:00:00Z' }],
  });
}, 60_000);
afterAll(async () => {
  await http?.close();
  await gitlab?.close();
});

describe('a repository on a host without a forge API', () => {
  let a: string;
  let b: string;
  beforeAll(async () => {
    // Shape A's shipped thresholds judge ISSUE_REACTION_TIME of the forge's rules (and DEPENDENTS):
    // the summary names what they judge.
    const summaryA = await scan(join(root, 'plain.yaml'), E);
    // Not asked is no failure: exit 0, and the summary names them with why, not as unmeasured.
    expect(summaryA).toMatchObject({
      measured: 1,
      records: 1,
      failed: 0,
      exitCode: 0,
      unmeasured: [],
    });
    expect(summaryA.notAsked).toEqual([
      { rules: ['DEPENDENTS'], why: NO_DEPENDENTS },
      { rules: ['ISSUE_REACTION_TIME'], why },
    ]);
    // Shape B's judge the three (and RELEASES, git's too: never named as not asked).
    const summaryB = await scan(config('plain-b', [], 'B'), E, ['--store', join(root, 'store-b')]);
    expect(summaryB).toMatchObject({
      measured: 1,
      records: 1,
      failed: 0,
      exitCode: 0,
      unmeasured: [],
    });
    expect(summaryB.notAsked).toEqual([{ rules: FORGE_RULES, why }]);
    a = await build('site-a', 'A', E + 3600);
    b = await build('site-b', 'B', E + 3600, ['--store', join(root, 'store-b')]);
  }, 60_000);

  it('the record holds the forge rules null with the cause, RELEASES git tags saying the forge was not read', () => {
    const [record] = storedLines('store-b');
    for (const rule of FORGE_RULES)
      expect([rule, record.values[rule], record.evidence[rule]]).toEqual([rule, null, cause]);
    expect(record.values.RELEASES).toEqual({ events: [utc(2026, 11, 9)] });
    expect(record.evidence.RELEASES).toBe(
      `1 tag dated in the 12 months to 2026-11-25 (newest v1, 2026-11-09); forge releases not read: ${cause}`,
    );
    expect(record.failed).toBeUndefined();
    // Shape A's thresholds judge fewer, and the summary named fewer; the record holds the same.
    const [recordA] = storedLines();
    expect([recordA.values, recordA.evidence]).toEqual([
      { ...record.values, DEPENDENTS: null },
      { ...record.evidence, DEPENDENTS: `not asked: ${NO_DEPENDENTS}` },
    ]);
  });

  it('Shape A: the explanation, SARIF and page give the cause', () => {
    const maintenance = json(api(a, 'badges/MAINTENANCE'));
    // One author: BUS_FACTOR 1 fails the badge (band 0–1), whatever the unknown beside it.
    expect(maintenance.badgeStatus).toBe('fail');
    expect(maintenance.badgeExplanation.criteria[0]).toMatchObject({
      description: `Issue reaction time is unknown (${cause})`,
      ruleId: 'ISSUE_REACTION_TIME',
      value: null,
      status: 'unknown',
      provenance: { evidence: cause, scannedAt: E },
    });
    const result = json(api(a, 'sarif')).runs[0].results.find(
      (r: { ruleId: string }) => r.ruleId === 'ISSUE_REACTION_TIME',
    );
    expect([result.kind, result.level, result.message.text]).toEqual([
      'open',
      'none',
      `Issue reaction time is unknown (${cause}).`,
    ]);
    expect(result.properties.provenance.evidence).toBe(cause);
    // Unknown is no finding: code scanning raises no alert for it.
    const scanning = json(api(a, 'code-scanning.sarif')).runs[0].results;
    expect(scanning.map((r: { ruleId: string }) => r.ruleId)).not.toContain('ISSUE_REACTION_TIME');
    const section = page(a).slice(page(a).indexOf('id="badge-MAINTENANCE"'));
    expect(section).toContain(`<td><bdi>${cause}</bdi></td>`);
    expect(page(a)).not.toContain('did not measure this rule');
  });

  it('Shape B: the forge checks are open with the cause; RELEASES passes on git tags, its note naming what was not read', () => {
    const results = json(api(b, 'sarif')).runs[0].results;
    const byRule = (id: string) => results.find((r: { ruleId: string }) => r.ruleId === id);
    for (const rule of FORGE_RULES)
      expect([rule, byRule(rule).kind, byRule(rule).properties.provenance.evidence]).toEqual([
        rule,
        'open',
        cause,
      ]);
    const releases = byRule('RELEASES');
    expect(releases.kind).toBe('pass');
    // By hand: v1 (2026-11-09) is the one tag in the 6 months before 2026-11-25.
    expect(releases.properties.provenance.evidence).toBe(
      '1 release counted between 2026-05-25 and 2026-11-25 (the last 6 months before the scan). ' +
        `The scan's own note, over its window: 1 tag dated in the 12 months to 2026-11-25 (newest v1, 2026-11-09); forge releases not read: ${cause}`,
    );
    const reused = json(api(b, 'badges/REUSED')).badgeExplanation.criteria;
    expect(reused.map((c: { provenance: { evidence: string } }) => c.provenance.evidence)).toEqual([
      cause,
      cause,
    ]);
    expect(page(b)).toContain(cause);
    expect(page(b)).not.toContain('did not measure this rule');
  });

  it('--forge never says that is why, as on any host', async () => {
    const summary = await scan(join(root, 'plain.yaml'), E, [
      '--store',
      join(root, 'store-never'),
      '--forge',
      'never',
    ]);
    expect(summary.notAsked).toContainEqual({
      rules: ['ISSUE_REACTION_TIME'],
      why: '--forge never (git alone)',
    });
    expect(JSON.stringify(summary)).not.toContain('no forge API is known');
  });

  it('with the host named under hosts:, the same time stays as stored and a later scan measures the forge rules', async () => {
    const named = config('named', [
      `hosts:\n  "${host}": { kind: gitlab, apiUrl: "${gitlab.url}", tokenEnv: TEST_GITLAB_TOKEN, requestsPerSecond: 1000 }`,
    ]);
    // A complete record at a time is final, as after --forge never: nothing asked, nothing written.
    const again = await scan(named, E, [], TEST_GITLAB_TOKEN);
    expect(again).toMatchObject({
      measured: 0,
      upToDate: 1,
      records: 0,
      failed: 0,
      incomplete: 0,
      exitCode: 0,
    });
    expect(gitlab.requests).toHaveLength(0);
    const later = await scan(named, LATER, [], TEST_GITLAB_TOKEN);
    expect(later).toMatchObject({ measured: 1, records: 1, failed: 0, exitCode: 0 });
    expect(later.notAsked).toEqual([{ rules: ['DEPENDENTS'], why: NO_DEPENDENTS }]);
    expect(gitlab.requests.length).toBeGreaterThan(0);
    const records = storedLines();
    expect(records.map((r) => r.timestamp)).toEqual([E, LATER]);
    const [, now] = records;
    // From the stand-in's pipeline and package, by hand.
    expect(now.values.CI_PIPELINE).toEqual({ events: [utc(2026, 10, 1)] });
    expect(now.values.PACKAGES).toEqual({ events: [utc(2026, 10, 2)] });
    for (const rule of [...FORGE_RULES, 'RELEASES'])
      expect(now.evidence[rule] ?? '').not.toContain('not asked');
    const site = await build('site-later', 'B', LATER + 3600);
    const reused = json(api(site, 'badges/REUSED'));
    // One package and one pipeline in the 6 months before the scan: REUSED's one level.
    expect(reused.badgeExplanation.criteria.map((c: { status: string }) => c.status)).toEqual([
      'pass',
      'pass',
    ]);
    expect(page(site)).not.toContain(cause);
  });
});
