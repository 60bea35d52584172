// A directory build killed mid-write leaves nothing in the API tree: files are staged in
// .badgepress-tmp/<host>-<pid>/ beside it and renamed into place, and the next build removes
// the staging directories of dead processes. A plain re-run (no --prune) then ends exactly
// equal to a clean build.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/gen-store.ts';
import { STAGING_DIR } from '../src/publish/dir-sink.ts';
import { runCli } from './helpers/cli.ts';
import { runCliAsync } from './helpers/cli-async.ts';
import { readTree } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const NOW = '1763600000';
/** What a site holds under api/: index.json, sarif, badges and their per-time copies. */
const SITE_KEY = /^api\/v1\/repositories\/[^/]+\/(index\.json|sarif|badges\/[A-Z0-9_-]+(\.svg)?|at\/\d+\/(expired\/)?(sarif|badges\/[A-Z0-9_-]+(\.svg)?))$/;
const countFiles = (d: string) => (existsSync(d) ? readdirSync(d, { recursive: true }).length : 0);

describe('a directory build killed mid-write', () => {
  it('never leaves a temporary file in the API tree; a plain re-run equals a clean build', async () => {
    const store = join(dir, 'store');
    generateStore({ repos: 80, scans: 4, out: store, seed: 3 });
    const clean = join(dir, 'clean');
    expect(runCli(['build', '--store', store, '--out', clean, '--now', NOW]).code).toBe(0);
    const expected = readTree(clean);

    const out = join(dir, 'killed');
    // A dead build's staging directory, as a kill leaves it (pid 2^22+1 is never a live process
    // here: Linux pids stop at 2^22).
    const dead = join(out, STAGING_DIR, `${hostname()}-${2 ** 22 + 1}`);
    mkdirSync(dead, { recursive: true });
    writeFileSync(join(dead, '17'), 'half a file');
    let killed = 0;
    for (const share of [0.1, 0.4, 0.7]) {
      const target = Math.floor(expected.size * share);
      const r = await runCliAsync(['build', '--store', store, '--out', out, '--now', NOW], {
        started: (child) => {
          const poll = setInterval(() => {
            if (countFiles(join(out, 'api')) >= target) {
              clearInterval(poll);
              child.kill('SIGKILL');
            }
          }, 5);
          child.once('close', () => clearInterval(poll));
        },
      });
      if (r.signal === 'SIGKILL') killed++;
      for (const key of readTree(out).keys()) {
        if (key.startsWith('api/')) expect(key, 'a file in the API tree that is no key of the site').toMatch(SITE_KEY);
      }
    }
    expect(killed).toBeGreaterThanOrEqual(2);

    const rerun = runCli(['build', '--store', store, '--out', out, '--now', NOW, '--json']);
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout).removed).toBe(0); // nothing to prune: nothing was left
    expect(readTree(out)).toEqual(expected);
    expect(existsSync(join(out, STAGING_DIR)), 'staging directories of dead builds are removed').toBe(false);
  });
});
