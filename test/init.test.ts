// `badgepress init [DIR]`: a starting config an installed package's user can edit, copied from
// the packaged files (comments and every section kept), and a build without --config that
// says which settings it read.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startingSettings } from '../src/config/starting-config.ts';
import { ROOT, runCli } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const packaged = readFileSync(join(ROOT, 'config/badgepress.yaml'), 'utf8');
/** The comments of a YAML text (a `#` after a space or at a line's start; "#dfb317" is a value). */
const comments = (text: string) =>
  text.split('\n').flatMap((l) => /(?:^|\s)(# .*)$/.exec(l)?.[1] ?? []);

describe('badgepress init', () => {
  it('writes the packaged settings with their comments and the thresholds of the shape; a build in DIR then reads them', () => {
    const site = join(dir, 'site-a');
    const init = runCli(['init', site]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(
      `wrote ${join(site, 'config/badgepress.yaml')}, ${join(site, 'config/thresholds-a.yaml')} and ${join(site, 'config/repositories.txt')} (Shape A)`,
    );
    // The next step it names is the scan, of the list it wrote (comments only, as packaged).
    expect(init.stdout).toContain(
      `Next: list the repositories to measure in ${join(site, 'config/repositories.txt')}`,
    );
    expect(init.stdout).toContain(
      `run "badgepress scan --repos config/repositories.txt" and "badgepress build" in ${site}`,
    );
    expect(readFileSync(join(site, 'config/repositories.txt'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'config/repositories.txt'), 'utf8'),
    );
    const written = readFileSync(join(site, 'config/badgepress.yaml'), 'utf8');
    // Every comment of the packaged file is there, every setting too; only where things are changed.
    expect(comments(packaged).length).toBeGreaterThan(10);
    for (const c of comments(packaged)) expect(written).toContain(c);
    const [mine, theirs] = [parse(written), parse(packaged)];
    expect(Object.keys(mine)).toEqual(Object.keys(theirs));
    expect(mine).toEqual({
      ...theirs,
      shape: 'A',
      store: '../store',
      out: '../dist',
      thresholds: { A: 'thresholds-a.yaml' },
    });
    expect(readFileSync(join(site, 'config/thresholds-a.yaml'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'config/thresholds-a.yaml'), 'utf8'),
    );

    copyFileSync(
      join(ROOT, 'examples/store/acme-widget.ndjson'),
      join(site, 'store/acme-widget.ndjson'),
    );
    const build = runCli(['build', '--now', '1764000000'], { cwd: site });
    expect(build.code, build.stderr).toBe(0);
    expect(build.stdout).toMatch(
      new RegExp(
        `^badgepress: 1 repository, 5 scans, .* → ${join(site, 'dist')} \\(settings: ${join(site, 'config/badgepress.yaml')}\\)\\n$`,
      ),
    );
  });

  it('writes Shape B on --shape B, and keeps what exists unless --force', async () => {
    const site = join(dir, 'site-b');
    expect((await runCommand(['init', site, '--shape', 'B'])).code).toBe(0);
    expect(parse(readFileSync(join(site, 'config/badgepress.yaml'), 'utf8'))).toMatchObject({
      shape: 'B',
      thresholds: { B: 'thresholds-b.yaml' },
    });
    expect(readFileSync(join(site, 'config/thresholds-b.yaml'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'config/thresholds-b.yaml'), 'utf8'),
    );
    writeFileSync(join(site, 'config/badgepress.yaml'), 'shape: B\n# mine\n');
    const again = await runCommand(['init', site, '--shape', 'B']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      `${join(site, 'config/badgepress.yaml')} and ${join(site, 'config/thresholds-b.yaml')} already exist: edit them, or pass --force`,
    );
    expect(readFileSync(join(site, 'config/badgepress.yaml'), 'utf8')).toBe('shape: B\n# mine\n');
    expect((await runCommand(['init', site, '--shape', 'B', '--force'])).code).toBe(0);
    expect(readFileSync(join(site, 'config/badgepress.yaml'), 'utf8')).toContain(
      '# public address',
    );
    expect((await runCommand(['init', site, '--shape', 'C'])).stderr).toContain(
      '--shape "C": expected A or B',
    );
    // The repository list is the user's: --force keeps it.
    writeFileSync(join(site, 'config/repositories.txt'), 'https://example.org/mine\n');
    const forced = await runCommand(['init', site, '--shape', 'B', '--force']);
    expect(forced.stdout).not.toContain('repositories.txt (Shape B)');
    expect(readFileSync(join(site, 'config/repositories.txt'), 'utf8')).toBe(
      'https://example.org/mine\n',
    );
  });

  it('carries a section the packaged file gains, with its comments', () => {
    const gained = `${packaged}later:                         # a section added to the packaged file later\n  since: 90                    # days of history\n`;
    const written = startingSettings(gained, 'A');
    expect(written).toContain('# a section added to the packaged file later');
    expect(parse(written).later).toEqual({ since: 90 });
    // The scan: section the packaged file holds today comes along the same way.
    expect(parse(startingSettings(packaged, 'A')).scan).toEqual(parse(packaged).scan);
  });
});

describe('a build without --config', () => {
  it('in a directory without config/ says the packaged settings name no store, and how to give one', () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const r = runCli(['build', '--out', 'x'], { cwd: empty });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `no store given: no --config and no ./config/badgepress.yaml, so the packaged settings (${join(ROOT, 'config/badgepress.yaml')}) are used`,
    );
    expect(r.stderr).toContain('run "badgepress init"');
  });
});
