// The live progress line: drawn on a terminal, never in CI or when piped. A pseudo-terminal
// comes from util-linux `script`; stdout and stderr both arrive through it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/gen-store.ts';
import { NODE_TSX, ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const store = join(dir, 'store');
generateStore({ repos: 40, scans: 3, out: store, seed: 7 });
const hasScript = spawnSync('script', ['--version']).status === 0;

function onTerminal(out: string, env: Record<string, string>): string {
  const cmd = [...NODE_TSX, `${ROOT}src/cli.ts`, 'build', '--store', store, '--out', join(dir, out), '--now', '1763600000']
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return r.stdout;
}

describe.skipIf(!hasScript)('progress on a terminal', () => {
  it('draws a live line (repositories of total, scans, files, rate, ETA), then clears it before the summary', () => {
    const out = onTerminal('tty-site', { CI: '' });
    expect(out).toMatch(/\r\x1b\[2K\d+\/40 repositories, \d+ scans, \d+ files, \d+ scans\/s, ETA \d+ s/);
    expect(out).toMatch(/\r\x1b\[2K[^]*badgepress: 40 repositories, 120 scans/);
  });

  it('draws nothing when CI is set, even on a terminal', () => {
    const out = onTerminal('ci-site', { CI: 'true' });
    expect(out).not.toMatch(/scans\/s|\x1b\[2K/);
    expect(out).toMatch(/badgepress: 40 repositories, 120 scans/);
  });
});
