// What the commands say, read as a person reads it: counts in the right number, a rebuild's
// counts that add up to the first build's, bad records not called "skipped" when --strict
// stops the build, and a --help that says what each flag does.
import { copyFileSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_USAGE } from '../src/commands/build.ts';
import { ROOT } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const BAD = `${JSON.stringify({ repositoryUrl: 'https://github.com/acme/widget', timestamp: 'yesterday', values: {} })}\n`;

function store(name: string, bad = false): string {
  const d = join(dir, name);
  mkdirSync(d);
  copyFileSync(join(ROOT, 'examples/store/acme-widget.ndjson'), join(d, 'acme-widget.ndjson'));
  if (bad) writeFileSync(join(d, 'zz-bad.ndjson'), BAD);
  // Older than a build by more than 2 s: a store file written just before a build is read again by the next.
  for (const f of readdirSync(d)) utimesSync(join(d, f), 1_700_000_000, 1_700_000_000);
  return d;
}

/** Every file the build published under a directory: the build state and the lease aside (its own bookkeeping, never counted). */
const siteFiles = (out: string) =>
  readdirSync(out, { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && !/\/\.badgepress\/(state|lease)\//.test(join(e.parentPath, e.name)),
  ).length;

describe('the build summary', () => {
  it('says "1 repository" and "1 record", and a rebuild says the site-wide pages it did not count', async () => {
    const s = store('one', true);
    const out = join(dir, 'one-out');
    const first = await runCommand(['build', '--store', s, '--out', out, '--now', '1764000000']);
    expect(first.code).toBe(1);
    const files = siteFiles(out);
    expect(first.stdout).toMatch(
      new RegExp(
        `^badgepress: 1 repository, 5 scans, ${files} files written, 0 unchanged, 1 record skipped, [\\d.]+ s → `,
      ),
    );
    expect(first.stderr).toMatch(/zz-bad\.ndjson:1: .*; record skipped\n/);

    const again = await runCommand([
      'build',
      '--store',
      s,
      '--out',
      out,
      '--now',
      '1764000000',
      '--json',
    ]);
    const summary = JSON.parse(again.stdout) as {
      written: number;
      unchanged: number;
      sitePagesKept: boolean;
    };
    // The repository's files are unchanged; the site-wide pages were left as they were.
    expect(summary).toMatchObject({ written: 0, sitePagesKept: true });
    expect(summary.unchanged).toBeLessThan(files);
    const text = await runCommand(['build', '--store', s, '--out', out, '--now', '1764000000']);
    expect(text.stdout).toContain(
      `0 files written, ${summary.unchanged} unchanged (site-wide pages left as they were, not counted), 1 record skipped`,
    );
    // --force compares every file, the site-wide pages too: the count is the first build's.
    const forced = await runCommand([
      'build',
      '--store',
      s,
      '--out',
      out,
      '--now',
      '1764000000',
      '--force',
    ]);
    expect(forced.stdout).toContain(`0 files written, ${files} unchanged, 1 record skipped`);
  });

  it('under --strict names each bad record without calling it skipped, and counts them in the right number', async () => {
    const r = await runCommand([
      'build',
      '--store',
      store('strict', true),
      '--out',
      join(dir, 'strict-out'),
      '--strict',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /zz-bad\.ndjson:1: timestamp must be an integer number of Unix seconds\n/,
    );
    expect(r.stderr).not.toMatch(/skipped/);
    expect(r.stderr).toContain(
      '1 bad record and --strict: nothing written; fix it or drop --strict',
    );
  });

  it('under --strict a warning alone is no bad record: said once (by the check), and the site is built', async () => {
    const s = store('strict-warning');
    const record = {
      repositoryUrl: 'https://github.com/acme/widget',
      timestamp: 1763500000,
      values: { BUS_FACTOR: 3, NOT_A_RULE: 1 },
    };
    writeFileSync(join(s, 'zz-warning.ndjson'), `${JSON.stringify(record)}\n`);
    utimesSync(join(s, 'zz-warning.ndjson'), 1_700_000_000, 1_700_000_000);
    const out = join(dir, 'strict-warning-out');
    const r = await runCommand([
      'build',
      '--store',
      s,
      '--out',
      out,
      '--strict',
      '--now',
      '1764000000',
    ]);
    expect(r.code).toBe(0);
    expect(
      r.stderr.match(
        /^warning: \S*zz-warning\.ndjson:1: rule "NOT_A_RULE" is not defined by the active thresholds/gm,
      ),
    ).toHaveLength(1);
    expect(r.stdout).toMatch(
      /^badgepress: 1 repository, 6 scans, \d+ files written, 0 unchanged, 0 records skipped/,
    );
    expect(siteFiles(out)).toBeGreaterThan(0);
  });
});

describe('build --help', () => {
  it('describes every flag of the synopsis on a line of its own', async () => {
    const r = await runCommand(['build', '--help']);
    expect(r.code).toBe(0);
    const flags = [...BUILD_USAGE.matchAll(/\[(--[a-z0-9-]+)/g)].map((m) => m[1]!);
    expect(flags.length).toBeGreaterThan(10);
    for (const flag of flags)
      expect(r.stdout, flag).toMatch(new RegExp(`^  ${flag}(?: \\S+)? {2,}\\S`, 'm'));
  });
});
