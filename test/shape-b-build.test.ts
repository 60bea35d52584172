import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, ROOT } from './helpers/cli.ts';
import { sarifErrors } from './helpers/sarif.ts';
import { buildSite, readTree } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';

const EXAMPLE = join(ROOT, 'examples/shape-b');
const CONFIG = join(EXAMPLE, 'badgepress.yaml');
const dir = tempDir();
const out = join(dir, 'site');
const built = await buildSite({ config: CONFIG, store: join(EXAMPLE, 'store'), out });
const tree = readTree(out);
const json = (key: string) => JSON.parse(tree.get(key)!.toString('utf8'));
const repo = (url: string) => `api/v1/repositories/${encodeURIComponent(url)}/`;
const WIDGET = repo('https://github.com/acme/widget');
const TOOL = repo('https://codeberg.org/acme/tool');
const SERVICE = repo('https://gitlab.example.org/platform/team/sub/service');
const status = (prefix: string, id: string) => json(`${prefix}badges/${id}`).badgeStatus;

describe('building examples/shape-b', () => {
  it('builds every repository with no problems', () => {
    expect(built.issues).toEqual([]);
    expect(built.summary).toMatchObject({ repositories: 3, scans: 5, skipped: 0 });
    // per scan: sarif + 4 × (svg + explanation); per repository: index + the latest 9 + 4 shields JSON
    expect(tree.size).toBe(5 * 9 + 3 * 14);
  });

  it('index.json lists the Shape B badge ids', () => {
    expect(json(`${WIDGET}index.json`)).toEqual({
      repositoryUrl: 'https://github.com/acme/widget',
      timestamps: [1755000000, 1760000000, 1763596800],
      badges: ['MAINTAINED', 'REUSED', 'DIN-SPEC-XXXX', 'OPEN-SOURCE'],
    });
  });

  it('applies the grant and its later revocation by scan time', () => {
    expect(
      ['1755000000', '1760000000', '1763596800'].map((t) =>
        status(`${WIDGET}at/${t}/`, 'OPEN-SOURCE'),
      ),
    ).toEqual(['unknown', 'gold', 'fail']);
    const criteria = (t: string) =>
      json(`${WIDGET}at/${t}/badges/OPEN-SOURCE`).badgeExplanation.criteria[0];
    expect(criteria('1755000000')).toMatchObject({ value: '<nil>', status: 'open' });
    expect(criteria('1760000000').evidence).toBe(
      'Granted manually by jane@example.org on 2025-09-16: MIT licence checked.',
    );
    expect(criteria('1763596800').evidence).toBe(
      'Not granted: revoked by jane@example.org on 2025-11-01: licence file removed.',
    );
    expect(tree.get(`${WIDGET}badges/OPEN-SOURCE.svg`)!.toString()).toContain(
      'aria-label="OPEN-SOURCE: none"',
    );
  });

  it('applies the decision files: a listed URL, a regex, and a URL canonicalised from the file', () => {
    expect(status(WIDGET, 'DIN-SPEC-XXXX')).toBe('bronze');
    expect(json(`${TOOL}badges/DIN-SPEC-XXXX`).badgeExplanation.criteria[0].evidence).toBe(
      'Granted manually by DIN review board (decision file din-spec.yaml: the repository matches ^https://codeberg\\.org/acme/).',
    );
    expect(status(SERVICE, 'OPEN-SOURCE')).toBe('gold');
    // No grant and no decision file: undecided, so unknown, never the repository's failure.
    expect(status(SERVICE, 'DIN-SPEC-XXXX')).toBe('unknown');
  });

  it('judges the example values as documented', () => {
    expect(['MAINTAINED', 'REUSED'].map((id) => status(WIDGET, id))).toEqual(['gold', 'bronze']);
    expect(
      ['1755000000', '1760000000'].map((t) => status(`${WIDGET}at/${t}/`, 'MAINTAINED')),
    ).toEqual(['bronze', 'silver']);
    expect(status(SERVICE, 'MAINTAINED')).toBe('gold');
    const tool = json(`${TOOL}sarif`).runs[0];
    expect(
      tool.results
        .filter((r: { kind: string }) => r.kind === 'open')
        .map((r: { ruleId: string }) => r.ruleId),
    ).toEqual([
      'COMMITS',
      'COMMITS',
      'ISSUE_REACTION_TIME',
      'COMMITS',
      'ISSUE_REACTION_TIME',
      'PACKAGES',
      'MANUAL/Project is open source',
    ]);
  });

  it('every report fails the official schema only on the message type (strictSarif is off in the example)', () => {
    const reports = [...tree.keys()].filter((k) => k.endsWith('/sarif'));
    expect(reports).toHaveLength(8);
    for (const key of reports) {
      const errors = sarifErrors(json(key));
      expect(errors.length, key).toBeGreaterThan(0);
      for (const e of errors)
        expect(e, key).toMatch(/^\/runs\/0\/results\/\d+\/message must be object$/);
    }
  });

  it('the documented command builds the same bytes', () => {
    const cliOut = join(dir, 'dist-b');
    const r = runCli([
      'build',
      '--config',
      'examples/shape-b/badgepress.yaml',
      '--out',
      cliOut,
      '--now',
      '1763600000',
    ]);
    expect(r.stderr.replace(/^npm warn.*\n/gm, '')).toBe('');
    expect(r.code).toBe(0);
    // 87 API files, 102 of the human site (pages: true: groups, search files by any part of a name, the search's 7 prefix pages a c g p s t w and the feeds' stylesheet included) and api/v1/openapi.json (openapi: true).
    expect(r.stdout).toMatch(
      /^badgepress: 3 repositories, 5 scans, 190 files written, 0 unchanged, 0 records skipped/,
    );
    const api = new Map(
      [...readTree(cliOut)].filter(([k]) => k.startsWith('api/v1/repositories/')),
    );
    expect(api).toEqual(tree);
  });
});
