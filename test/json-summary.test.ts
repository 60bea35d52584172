// --json: one machine-readable line, for a run that succeeds and for one that fails (with its
// exit code), and no progress line when piped.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { runCli } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const store = join(dir, 'store');
generateStore({ repos: 40, scans: 3, out: store, seed: 7 });

describe('summaries', () => {
  it('--json prints one JSON line with the error and exit code when a run fails (2 and 4)', async () => {
    const bad = runCli([
      'build',
      '--store',
      store,
      '--out',
      join(dir, 'json-fail'),
      '--shard',
      '5/2',
      '--json',
    ]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toEqual({
      error: expect.stringMatching(/^--shard "5\/2": /),
      exitCode: 2,
    });
    // an output that cannot be written (a file stands where a directory must go): 4
    const blocker = join(dir, 'json-fail-file');
    writeFileSync(blocker, 'not a directory');
    const io = await runCommand([
      'build',
      '--store',
      store,
      '--out',
      join(blocker, 'site'),
      '--json',
    ]);
    expect(io.code).toBe(4);
    expect(io.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(io.stdout)).toEqual({
      error: expect.stringMatching(
        /json-fail-file\/site: cannot write .* \(ENOTDIR\); check that --out names a writable directory/,
      ),
      exitCode: 4,
    });
    // a store that is not there is a wrong argument: 2
    const missing = await runCommand([
      'build',
      '--store',
      join(dir, 'no-such-store'),
      '--out',
      join(dir, 'json-fail'),
      '--json',
    ]);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toEqual({
      error: expect.stringMatching(
        /no-such-store: no such directory; give the directory of stored values with --store/,
      ),
      exitCode: 2,
    });
    const cfg = join(dir, 'json-bad-cfg.yaml');
    writeFileSync(cfg, 'shape: C\n');
    const config = await runCommand(['plan', '--config', cfg, '--store', store, '--json']);
    expect(config.code).toBe(2);
    expect(JSON.parse(config.stdout)).toMatchObject({
      error: 'configuration problems, nothing written',
      problems: [expect.stringMatching(/shape/)],
      exitCode: 2,
    });
  });

  it('--json prints one machine-readable summary and no progress line when piped', () => {
    const r = runCli([
      'build',
      '--store',
      store,
      '--out',
      join(dir, 'json-out'),
      '--now',
      '1763600000',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      repositories: 40,
      scans: 120,
      skipped: 0,
      exitCode: 0,
      shard: null,
    });
    expect(r.stderr).not.toMatch(/\r|scans\/s/);
  });
});
