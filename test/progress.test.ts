// The live progress line: drawn on a terminal, never in CI or when piped. A pseudo-terminal
// comes from util-linux `script`; stdout and stderr both arrive through it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore, repositoryUrl } from '../scripts/lib/synthetic-store.ts';
import { childEnv, CLI, ROOT, runCli, spawnChecked } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { isCI } from '../src/commands/progress.ts';

const dir = tempDir();
const store = join(dir, 'store');
generateStore({ repos: 40, scans: 3, out: store, seed: 7 });
// Sixteen repositories in one store file: files and repositories are not the same count.
const single = join(dir, 'single');
mkdirSync(single, { recursive: true });
writeFileSync(
  join(single, 'all.ndjson'),
  Array.from({ length: 16 }, (_, i) =>
    JSON.stringify({
      repositoryUrl: repositoryUrl(i),
      timestamp: 1_763_000_000,
      values: { ISSUE_REACTION_TIME: 1, BUS_FACTOR: 4 },
    }),
  ).join('\n'),
);
const hasScript = spawnSync('script', ['--version']).status === 0;
const PROGRESS = /scans\/s|\r|\x1b\[2K/;

function onTerminal(out: string, env: Record<string, string | undefined>, from = store): string {
  const cmd = [...CLI, 'build', '--store', from, '--out', join(dir, out), '--now', '1763600000']
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  const r = spawnChecked('script', ['-qec', cmd, '/dev/null'], {
    cwd: ROOT,
    env: childEnv(env),
    timeout: 60_000,
  });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return r.stdout;
}

describe.skipIf(!hasScript)('progress on a terminal', () => {
  it('draws a live line (repositories, scans, files, rate, store files of total, ETA), then clears it before the summary', () => {
    const out = onTerminal('tty-site', { CI: undefined });
    expect(out).toMatch(
      /\r\x1b\[2K\d+ repositories, \d+ scans, \d+ site files, \d+ scans\/s, \d+\/40 store files done, ETA \d+ s/,
    );
    expect(out).toMatch(/\r\x1b\[2K[^]*badgepress: 40 repositories, 120 scans/);
  });

  it('with one store file holding 16 repositories, counts store files, never "of 1 repositories", and shows no ETA it cannot base on anything', () => {
    const out = onTerminal('tty-single', { CI: undefined }, single);
    expect(out).toMatch(
      /\r\x1b\[2K\d+ repositories, \d+ scans, \d+ site files, \d+ scans\/s, 0\/1 store files done/,
    );
    expect(out).not.toMatch(/\/1 repositories|ETA/);
    expect(out).toMatch(/badgepress: 16 repositories, 16 scans/);
  });

  it('draws nothing when CI is set, even on a terminal; CI=false and CI=0 are not CI', () => {
    // One value of each kind on a terminal (each a full build): that the command reads CI
    // through isCI. Every other spelling is checked against isCI itself ('reads CI as most tools do').
    // The small store: the line above shows it draws one too.
    const out = onTerminal('ci-site-yes', { CI: 'yes' }, single);
    expect(out).not.toMatch(/scans\/s|\x1b\[2K/);
    expect(out).toMatch(/badgepress: 16 repositories, 16 scans/);
    expect(onTerminal('not-ci-false', { CI: 'false' }, single)).toMatch(
      /\r\x1b\[2K\d+ repositories, .* scans\/s/,
    );
  });
});

describe('progress when piped', () => {
  it('draws nothing with CI unset and no terminal', () => {
    const r = runCli(
      ['build', '--store', single, '--out', join(dir, 'piped'), '--now', '1763600000'],
      {
        env: { CI: undefined },
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(PROGRESS);
    expect(r.stdout).not.toMatch(PROGRESS);
    expect(r.stdout).toMatch(/^badgepress: 16 repositories, 16 scans/);
  });

  it('reads CI as most tools do', () => {
    expect(
      [undefined, '', '0', 'false', 'FALSE', ' false '].map((CI) =>
        isCI(CI === undefined ? {} : { CI }),
      ),
    ).toEqual([false, false, false, false, false, false]);
    expect(['true', '1', 'yes', 'woodpecker'].map((CI) => isCI({ CI }))).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });
});
