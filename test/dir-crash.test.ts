// A directory build killed mid-write: readers only ever see whole files under their keys
// (each file is written as `.<name>.tmp` beside it and renamed), and a plain re-run (no
// --prune) with the same inputs ends exactly equal to a clean build, because it writes the
// files that were in flight again under the same temporary names.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { runCliAsync } from './helpers/cli-async.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { readTree } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const NOW = '1763600000';
/** What a site holds under api/: index.json, sarif, badges and their per-time copies. */
const API_KEY =
  /^api\/v1\/repositories\/[^/]+\/(index\.json|sarif|code-scanning\.sarif|badges\/[A-Z0-9_-]+(\.[a-z-]+)?(\.svg|\.json)?|at\/\d+\/(expired\/)?(sarif|badges\/[A-Z0-9_-]+(\.svg)?))$|^api\/v1\/openapi\.json$/;
/** The human site's pages beside it. */
const PAGE_KEY =
  /^(index\.html|404\.html|sitemap\.xml|robots\.txt|favicon\.svg|sitemaps\/\d+\.xml|assets\/[^/]+|repositories\/(page\/\d+\.html|search\.json|[^/]+\/(index\.html|feed\.atom))|(badges|rules)\/[^/]+\/index\.html)$/;
/** A build's bookkeeping (lease, state, shard summaries), never served. */
const BOOKKEEPING = /^\.badgepress\//;
const SITE_KEY = new RegExp(`${API_KEY.source}|${PAGE_KEY.source}|${BOOKKEEPING.source}`);
/** A temporary file a kill may leave: hidden, beside the key it was becoming. */
const LEFTOVER = /^(.*\/)\.([^/]+)\.tmp$/;
/** Repositories whose publishing has begun: one short listing per poll (a recursive count of
 *  the growing tree every 15 ms cost more CPU than the builds it watched). */
const countRepositories = (d: string) => (existsSync(d) ? readdirSync(d).length : 0);

describe('a directory build killed mid-write', () => {
  it('leaves only hidden temporaries beside their keys; a plain re-run equals a clean build', async () => {
    const store = join(dir, 'store');
    // About 2,000 files: a build long enough to be killed at 10, 40 and 70 % of its repositories.
    generateStore({ repos: 40, scans: 4, out: store, seed: 3 });
    const clean = join(dir, 'clean');
    // The reference build and the re-run are about the files, not the process: in-process.
    expect((await runCommand(['build', '--store', store, '--out', clean, '--now', NOW])).code).toBe(
      0,
    );
    const expected = readTree(clean);
    const repositories = readdirSync(join(clean, 'api/v1/repositories')).length;
    expect(repositories).toBe(40);

    const out = join(dir, 'killed');
    let killed = 0;
    for (const share of [0.1, 0.4, 0.7]) {
      const target = Math.floor(repositories * share);
      const r = await runCliAsync(['build', '--store', store, '--out', out, '--now', NOW], {
        started: (child) => {
          const poll = setInterval(() => {
            if (countRepositories(join(out, 'api/v1/repositories')) >= target) {
              clearInterval(poll);
              child.kill('SIGKILL');
            }
          }, 15);
          child.once('close', () => clearInterval(poll));
        },
      });
      if (r.signal === 'SIGKILL') killed++;
      // The killed build's lease holds until it lapses unrenewed; the test knows its holder is gone.
      for (const name of existsSync(join(out, '.badgepress'))
        ? readdirSync(join(out, '.badgepress'))
        : []) {
        if (name.startsWith('lease'))
          rmSync(join(out, '.badgepress', name), { recursive: true, force: true });
      }
      for (const key of readTree(out).keys()) {
        const leftover = LEFTOVER.exec(key);
        expect(
          leftover ? `${leftover[1]}${leftover[2]}` : key,
          'a file that is neither a key nor the temporary of one',
        ).toMatch(SITE_KEY);
      }
    }
    expect(killed).toBeGreaterThanOrEqual(2);

    const rerun = await runCommand([
      'build',
      '--store',
      store,
      '--out',
      out,
      '--now',
      NOW,
      '--json',
    ]);
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout).removed).toBe(0); // without --prune: nothing removed, nothing left over
    expect(readTree(out)).toEqual(expected);
  });
});
