// badgepress plan against an S3 prefix (s3rver behind the counting proxy): whether a file
// changed comes from the listing's ETags, so an unchanged plan fetches no object and a
// threshold change fetches exactly the changed explanation files, whose old status it reports.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { readTree } from './helpers/site.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { runCliAsync } from './helpers/cli-async.ts';
import { tempDir } from './helpers/tmp.ts';
import { reusedGoldFrom } from '../scripts/lib/thresholds-variant.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';
import { startFaultProxy, type FaultProxy } from '../scripts/lib/fault-proxy.ts';

const dir = tempDir();
const store = join(dir, 'store');
generateStore({ repos: 6, scans: 4, out: store, seed: 5 });
const NOW = '1763600000';

let peer: S3Peer;
let proxy: FaultProxy;
beforeAll(async () => {
  peer = await startS3Peer(['plan']);
  proxy = await startFaultProxy(peer.port);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await peer?.stop();
});

const s3Args = () => [
  '--store',
  store,
  '--out',
  's3://plan/site',
  '--s3-endpoint',
  proxy.endpoint,
  '--s3-path-style',
  '--now',
  NOW,
];
const run = (args: string[]) => runCliAsync(args, { env: peer.env });

/** Object keys (below the prefix) fetched with GET while `action` runs; listings are not objects. */
async function objectGets(action: () => Promise<unknown>): Promise<string[]> {
  const keys: string[] = [];
  proxy.onRequest = (method, path) => {
    const [pathname, query = ''] = path.split('?');
    // The build state (one object, read by every plan) is not site: only site objects count.
    const key = decodeURIComponent(pathname!).replace(/^\/plan\/site\//, '');
    if (method === 'GET' && !/(^|&)list-type=/.test(query) && !key.startsWith('.badgepress/'))
      keys.push(key);
  };
  try {
    await action();
  } finally {
    proxy.onRequest = undefined;
  }
  return keys.sort();
}

const EXPLANATION = /^api\/v1\/repositories\/[^/]+\/(at\/\d+\/(expired\/)?)?badges\/[^/.]+$/;

describe('badgepress plan over S3', () => {
  it('fetches no object when nothing changed, and only the changed explanations after a threshold change', async () => {
    const published = await run(['build', ...s3Args(), '--json']);
    expect(published.code, published.stderr).toBe(0);

    let same: Awaited<ReturnType<typeof run>> | undefined;
    // --force: every file compared, the site-wide pages too (the state would leave them out, as a build does).
    expect(
      await objectGets(async () => (same = await run(['plan', ...s3Args(), '--json', '--force']))),
    ).toEqual([]);
    expect(same!.code, same!.stderr).toBe(0);
    // The same site in directories, built as the CLI builds (pages and openapi.json included).
    const buildSite = async (o: { out: string; config?: string }) =>
      expect(
        (
          await runCommand([
            'build',
            ...(o.config ? ['--config', o.config] : []),
            '--store',
            store,
            '--out',
            o.out,
            '--now',
            NOW,
          ])
        ).code,
      ).toBe(0);
    const local = join(dir, 'local');
    await buildSite({ out: local });
    const before = readTree(local);
    // --force trusts no file record of the build state, but still reads the headers it names: the
    // objects carry this config's Cache-Control, so a build would re-send none of them.
    expect(JSON.parse(same!.stdout)).toMatchObject({
      added: 0,
      changed: 0,
      removed: 0,
      unchanged: before.size,
      resendsUnchanged: false,
    });

    const config = reusedGoldFrom(join(dir, 'cfg'), 22);
    const changedDir = join(dir, 'local-changed');
    await buildSite({ out: changedDir, config });
    const after = readTree(changedDir);
    const differing = [...after.keys()].filter((k) => !after.get(k)!.equals(before.get(k)!));
    const changedExplanations = differing.filter((k) => EXPLANATION.test(k));
    expect(changedExplanations.length).toBeGreaterThan(0);
    expect(changedExplanations.length).toBeLessThan(differing.length);

    let changed: Awaited<ReturnType<typeof run>> | undefined;
    expect(
      await objectGets(
        async () => (changed = await run(['plan', '--config', config, ...s3Args(), '--json'])),
      ),
    ).toEqual(changedExplanations);
    expect(changed!.code, changed!.stderr).toBe(3);
    const plan = JSON.parse(changed!.stdout);
    // The state records the headers the objects went out with, and they are this build's.
    expect(plan).toMatchObject({
      added: 0,
      changed: differing.length,
      removed: 0,
      unchanged: after.size - differing.length,
      resendsUnchanged: false,
    });
    const status = (t: Map<string, Buffer>, k: string) =>
      JSON.parse(t.get(k)!.toString()).badgeStatus;
    const flips = changedExplanations.filter((k) => status(before, k) !== status(after, k));
    expect(flips.length).toBeGreaterThan(0);
    expect(
      plan.transitions.reduce(
        (n: number, t: { repositories: number; scans?: number; scope: string }) =>
          n + (t.scope === 'latest' ? t.repositories : t.scans!),
        0,
      ),
    ).toBe(flips.length);
  }, 120_000);

  it('says when a build would send unchanged objects again for new cache ages', async () => {
    // The first test published the site with the build state beside it.
    const config = join(dir, 'ages.yaml');
    writeFileSync(config, 'cache:\n  latestMaxAge: 60\n');
    const r = await run(['plan', '--config', config, ...s3Args()]);
    expect(r.code, r.stderr).toBe(3);
    const unchanged = /(\d+) unchanged\n/.exec(r.stdout)?.[1];
    expect(r.stdout).toContain(
      `headers: the ${unchanged} unchanged files are sent again too, once, for their Cache-Control`,
    );
    expect(r.stdout).toContain('caches serve the new ones within 60 s');
  }, 60_000);
});
