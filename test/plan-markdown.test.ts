// plan --format markdown: the transitions and file counts as GFM tables, every data-driven
// string escaped, and the CLI flag wired (a real plan of the example store).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatPlanMarkdown, markdownCell } from '../src/publish/plan-markdown.ts';
import type { PlanReport } from '../src/publish/plan.ts';
import { ROOT, runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

const plan: PlanReport = {
  repositories: 2,
  scans: 5,
  added: 1,
  changed: 4,
  removed: 0,
  unchanged: 10,
  removedExamples: [],
  transitions: [
    {
      badgeId: 'REUSED',
      scope: 'latest',
      from: 'gold',
      to: 'silver',
      repositories: 1,
      examples: ['https://git.example/a|b/`x`\n| evil | row |'],
    },
    {
      badgeId: 'REUSED',
      scope: 'scan',
      from: 'gold',
      to: '<img src=x onerror=alert(1)>',
      repositories: 1,
      scans: 3,
      examples: ['https://git.example/@octocat/#1/**b**'],
    },
  ],
  cachedUrls: { latest: 1, perTime: 3, maxAge: 300 },
  resendsUnchanged: false,
};

/** Cells of a GFM table row: split at pipes not escaped with a backslash. */
function cells(row: string): string[] {
  return row
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

describe('plan --format markdown', () => {
  const md = formatPlanMarkdown(plan);
  const rows = md.split('\n').filter((l) => l.startsWith('|'));

  it('one table row per transition with seven cells, and the file counts', () => {
    const transitionRows = rows.slice(2, 4);
    for (const r of transitionRows) expect(cells(r)).toHaveLength(7);
    expect(cells(transitionRows[1]!).slice(0, 6)).toEqual([
      'REUSED',
      'gold',
      '\\<img src=x onerror=alert(1)\\>',
      'per scan',
      '1',
      '3',
    ]);
    expect(md).toContain('| to change | 4 |');
    expect(md).toContain(
      'cached answers: 1 latest URL and 3 per-time URLs (with the `?timestamp=` requests that redirect there) change; caches serve the new ones within 300 s (`cache.latestMaxAge`), nothing to invalidate',
    );
    expect(md).toContain('| unchanged | 10 |');
  });

  it('escapes pipes, newlines, backticks, HTML, mentions and references in data', () => {
    expect(md.split('\n').some((l) => l.includes('| evil |'))).toBe(false);
    expect(md).not.toMatch(/(?<!\\)`x/);
    expect(md).not.toMatch(/(?<!\\)<img/);
    expect(md).not.toMatch(/(?<!\\)@octocat/);
    expect(md).not.toMatch(/(?<!\\)#1/);
    expect(markdownCell('a|b\r\nc')).toBe('a\\|b c');
    expect(markdownCell('x & y')).toBe('x &amp; y');
  });

  it('the CLI prints it for a real plan (exit 3: everything to add)', () => {
    const out = join(tempDir('plan-md-'), 'site');
    const r = runCli([
      'plan',
      '--config',
      join(ROOT, 'config/badgepress.yaml'),
      '--store',
      join(ROOT, 'examples/store'),
      '--out',
      out,
      '--now',
      '1763600000',
      '--format',
      'markdown',
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^### badgepress plan\n/);
    expect(r.stdout).toMatch(/\| to add \| \d+ \|/);
    expect(r.stdout).toContain('No badge changes status.'); // new files are additions, not transitions
  });

  it('an unknown format is a usage error naming the flag', () => {
    const r = runCli(['plan', '--format', 'html']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--format must be one of text, json, markdown/);
  });
});
