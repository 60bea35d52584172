// Every criterion carries its evidence and the commit it was measured at (issue 35, items 3
// and 4): a repository made here, its last commit months before the scan (a mirror that
// stopped updating), scanned from git alone and built in both shapes. The page says how old
// the data is and shows each criterion's evidence; the explanation carries it as its
// documented extension (checked against the site's openapi.json); SARIF names the commit in
// versionControlProvenance and the evidence in each result (the official schema and SARIF
// Multitool). Shape B's six-month Commits count is never shown beside the scanner's
// twelve-month evidence as if they agreed, and no `<nil>` reaches a page. Expected values come
// from git's own output and dates worked out by hand.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from './helpers/cli-in-process.ts';
import { git, utc, WorkRepo } from './helpers/git-repo.ts';
import { sarifErrors } from './helpers/sarif.ts';
import { multitoolIssues, unexpectedInPlainReport } from './helpers/sarif-multitool.ts';
import { tempDir } from './helpers/tmp.ts';

// 2026-08-22 to 2026-11-27: 9 days of August after the 22nd, 30 + 31, and 27: 97 days.
const E = utc(2026, 11, 27);
const URL = 'https://git.example.org/acme/widget';
const ENC = encodeURIComponent(URL);
/** git.example.org has no forge API badgepress knows: the forge rules' cause, as the docs word it. */
const NOT_ASKED =
  'not asked: no forge API is known for git.example.org; to measure it, name its kind (github, gitlab or gitea) and apiUrl under hosts: in the config';

describe('evidence and the commit measured reach pages, explanations and SARIF', () => {
  const root = tempDir('badgepress-evidence-');
  const bare = join(root, 'widget.git');
  const config = join(root, 'badgepress.yaml');
  const out = { A: join(root, 'site-a'), B: join(root, 'site-b') };
  let head: string;
  let committedAt: number;
  let committedDay: string;
  const read = (shape: 'A' | 'B', key: string) => readFileSync(join(out[shape], key), 'utf8');
  const api = (shape: 'A' | 'B', rest: string) =>
    JSON.parse(read(shape, `api/v1/repositories/${ENC}/${rest}`));
  /** A page's text as a reader sees it: tags dropped, entities decoded, spaces joined. */
  const pageText = (html: string) =>
    html
      .replace(/<svg[\s\S]*?<\/svg>/g, '')
      .replace(/<\/(dt|dd|td|th|p|li)>/g, ' ')
      .replace(/<[^>]+>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&')
      .replace(/\s+/g, ' ');

  beforeAll(async () => {
    const repo = WorkRepo.init(join(root, 'widget'));
    // Six commits in the scanner's 12 months before E, three of them in Shape B's 6 months.
    for (const [m, d] of [
      [12, 10],
      [2, 10],
      [4, 10],
      [6, 10],
      [7, 10],
    ] as const)
      repo.commit({
        at: utc(m === 12 ? 2025 : 2026, m, d),
        files: m === 12 ? { 'SECURITY.md': 'mail us' } : undefined,
      });
    repo.commit({ at: utc(2026, 8, 22) });
    repo.bareClone(bare);
    head = git(bare, ['rev-parse', 'HEAD']).trim();
    committedAt = Number(git(bare, ['log', '-1', '--format=%ct']).trim());
    committedDay = git(bare, ['log', '-1', '--format=%cs']).trim();
    writeFileSync(
      config,
      [
        'store: store',
        'strictSarif: true',
        'codeScanning: true',
        'scan:\n  mirrors: mirrors',
        '',
      ].join('\n'),
    );
    writeFileSync(join(root, 'repos.txt'), `${URL} mirror=${bare}\n`);
    const scan = await runCommand([
      'scan',
      '--config',
      config,
      '--repos',
      join(root, 'repos.txt'),
      '--store',
      join(root, 'store'),
      '--as-of',
      String(E),
      '--json',
    ]);
    expect(scan.code, scan.stderr).toBe(0);
    for (const shape of ['A', 'B'] as const) {
      const build = await runCommand([
        'build',
        '--config',
        config,
        '--store',
        join(root, 'store'),
        '--out',
        out[shape],
        '--shape',
        shape,
        '--now',
        String(E),
      ]);
      expect(build.code, build.stderr).toBe(0);
    }
  }, 60_000);

  it('the repository page says which commit the data is of and how old it was (both shapes)', () => {
    expect(committedDay).toBe('2026-08-22');
    for (const shape of ['A', 'B'] as const) {
      const text = pageText(read(shape, `repositories/${ENC}/index.html`));
      expect(text).toContain(
        `Data as of 2026-08-22, commit ${head.slice(0, 7)} on main; scanned 2026-11-27 (data 97 days old)`,
      );
      expect(text).not.toContain('<nil>');
      expect(text).not.toContain('no value stored');
    }
  });

  it('Shape A: the page, the explanation and the SARIF carry each criterion evidence and the commit', () => {
    const record = JSON.parse(
      readFileSync(join(root, 'store/git.example.org/acme/widget.ndjson'), 'utf8'),
    );
    const text = pageText(read('A', `repositories/${ENC}/index.html`));
    // BUS_FACTOR as the scanner worded it, and a forge rule not asked on a host without a forge
    // API says why and what to do.
    expect(text).toContain(record.evidence.BUS_FACTOR);
    expect(text).toContain(`Issue reaction time not measured unknown ${NOT_ASKED}`);

    const explanation = api('A', 'badges/MAINTENANCE');
    const bus = explanation.badgeExplanation.criteria.find(
      (c: { ruleId: string }) => c.ruleId === 'BUS_FACTOR',
    );
    expect(bus.provenance).toEqual({
      evidence: record.evidence.BUS_FACTOR,
      commit: head,
      committedAt,
      branch: 'main',
      dataAgeDays: 97,
      scannedAt: E,
    });

    const sarif = api('A', 'sarif');
    expect(sarif.runs[0].versionControlProvenance).toEqual([
      {
        repositoryUri: URL,
        revisionId: head,
        branch: 'main',
        mappedTo: { uriBaseId: '%SRCROOT%' },
      },
    ]);
    for (const r of sarif.runs[0].results) {
      expect(r.properties.evidence, r.ruleId).toBe(r.properties.provenance.evidence);
      expect(r.properties.evidence, r.ruleId).not.toBe('');
      expect(r.properties.provenance.commit).toBe(head);
    }
  });

  it('Shape B: a count re-windowed to the rule shows evidence of that window, the scanner note naming its own', () => {
    const sarif = api('B', 'sarif');
    expect(sarif.runs[0].versionControlProvenance).toEqual([
      {
        repositoryUri: URL,
        revisionId: head,
        branch: 'main',
        mappedTo: { uriBaseId: '%SRCROOT%' },
      },
    ]);
    const commits = sarif.runs[0].results.find((r: { ruleId: string }) => r.ruleId === 'COMMITS');
    // Commits after 2026-05-27: 06-10, 07-10, 08-22.
    expect(commits.properties.value).toBe('3');
    expect(commits.properties.evidence).toMatch(
      /^3 commits counted between 2026-05-27 and 2026-11-27 \(the last 6 months before the scan\)\. The scan's own note, over its window: 6 non-merge commits in the 12 months to 2026-11-27/,
    );
    const text = pageText(read('B', `repositories/${ENC}/index.html`));
    expect(text).toContain(commits.properties.evidence);
    // A rule the scan did not ask for: open, and the page and provenance say why.
    const reaction = sarif.runs[0].results.find(
      (r: { ruleId: string }) => r.ruleId === 'ISSUE_REACTION_TIME',
    );
    expect([reaction.kind, reaction.properties.value, reaction.properties.evidence]).toEqual([
      'open',
      '<nil>',
      '',
    ]);
    expect(reaction.properties.provenance.evidence).toBe(NOT_ASKED);
    expect(text).toContain(reaction.properties.provenance.evidence);
  });

  it("explanations of both shapes validate against the site's openapi.json, provenance included", () => {
    const Ajv = (Ajv2020 as unknown as { default?: typeof Ajv2020 }).default ?? Ajv2020;
    for (const shape of ['A', 'B'] as const) {
      const doc = JSON.parse(read(shape, 'api/v1/openapi.json'));
      const ajv = new Ajv({ strict: false, allErrors: true });
      ajv.addSchema({ ...doc, $id: 'openapi' });
      const explanation = ajv.getSchema(`openapi#/components/schemas/BadgeExplanation${shape}`)!;
      const provenance = ajv.getSchema('openapi#/components/schemas/CriterionProvenance')!;
      for (const badge of shape === 'A' ? ['MAINTENANCE', 'SECURITY'] : ['MAINTAINED', 'REUSED']) {
        const body = api(shape, `badges/${badge}`);
        expect(explanation(body), JSON.stringify(explanation.errors)).toBe(true);
        for (const c of body.badgeExplanation.criteria)
          expect(
            provenance(c.provenance),
            `${badge} ${c.ruleId} ${JSON.stringify(provenance.errors)}`,
          ).toBe(true);
      }
      // The schema can fail: a provenance without evidence is refused.
      expect(provenance({ scannedAt: E })).toBe(false);
    }
  });

  it('SARIF of both shapes and the code-scanning file pass the official schema and SARIF Multitool', {
    timeout: 120_000,
  }, () => {
    const reports = [
      api('A', 'sarif'),
      api('B', 'sarif'),
      api('A', 'code-scanning.sarif'),
      api('B', 'code-scanning.sarif'),
    ];
    for (const r of reports) expect(sarifErrors(r)).toEqual([]);
    for (const r of reports.slice(2))
      expect(r.runs[0].versionControlProvenance[0]).toMatchObject({
        repositoryUri: URL,
        revisionId: head,
        branch: 'main',
      });
    const [ofA, ofB, ofScanningA, ofScanningB] = multitoolIssues(...reports);
    // The plain reports keep the documented shape: no SARIF error, no warning but the two its
    // words draw (SARIF2007's repository root is given: mappedTo.uriBaseId); the code-scanning
    // files have no issue at all, GitHub's rules included.
    expect(unexpectedInPlainReport(ofA!)).toEqual([]);
    expect(unexpectedInPlainReport(ofB!)).toEqual([]);
    expect(ofScanningA).toEqual([]);
    expect(ofScanningB).toEqual([]);
  });
});
