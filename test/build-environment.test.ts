// The environment and the settings as input: a full temporary folder is named with the file
// that could not be written, and an expiry no date can hold is a config error at load.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { loadSettings } from '../src/config/load.ts';
import { CLI, childEnv, ROOT, spawnChecked } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { configProblems } from './helpers/config.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const NOW = '1763600000';

/** A private mount namespace can be made here (root, util-linux unshare): CI runs as root. */
const canMount = spawnSync('unshare', ['--mount', 'true']).status === 0;

describe('a full temporary folder', () => {
  it.skipIf(!canMount)(
    'the build fails naming the temporary file it could not write and TMPDIR',
    () => {
      const store = join(dir, 'store');
      // Summary lines of 40 repositories: far more than the 4 KiB folder holds.
      generateStore({ repos: 40, scans: 2, out: store, seed: 3 });
      const full = join(dir, 'full');
      mkdirSync(full);
      // A tmpfs of one page in a mount namespace of the child's own: a real ENOSPC, nothing mocked.
      const r = spawnChecked(
        'unshare',
        [
          '--mount',
          'sh',
          '-c',
          'mount -t tmpfs -o size=4k tmpfs "$0" && exec "$@"',
          full,
          ...CLI,
          'build',
          '--store',
          store,
          '--out',
          join(dir, 'out'),
          '--now',
          NOW,
        ],
        {
          cwd: ROOT,
          env: childEnv({ TMPDIR: full }),
          timeout: 60_000,
        },
      );
      expect(r.status, r.stderr).toBe(4);
      expect(r.stderr).toMatch(
        new RegExp(
          `^badgepress: cannot write the temporary file ${full}/badgepress-\\S+ \\(ENOSPC\\); free space in ${full} or set TMPDIR to a folder with room$`,
          'm',
        ),
      );
    },
  );
});

describe('expireAfterDays', () => {
  it('a value no date can hold is a config error with file:line, exit 2', async () => {
    const problemsOf = configProblems(dir, (file) => loadSettings(file));
    const { file, problems } = await problemsOf('shape: A\nexpireAfterDays: 99980000\n');
    expect(problems).toEqual([`${file}:2 expireAfterDays: must be <= 36500`]);
    expect((await problemsOf('expireAfterDays: 36500\n')).problems).toEqual([]);
    const config = join(dir, 'absurd.yaml');
    writeFileSync(config, 'expireAfterDays: 99980000\n');
    const r = await runCommand([
      'build',
      '--config',
      config,
      '--store',
      join(ROOT, 'examples/store'),
      '--out',
      join(dir, 'absurd'),
      '--now',
      NOW,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${config}:1 expireAfterDays: must be <= 36500`);
  });
});
