// Incremental builds on S3, counted at the wire (a proxy in front of s3rver): an unchanged
// rebuild sends no PUT (of the site or of its unchanged state) and lists nothing of it but the
// state's prefix; a new scan
// in one repository lists that repository alone; the state is the last PUT of a build, and a
// repository that failed to publish is left out of it, so the next build redoes it. A state
// larger than a part is uploaded in parts.
import { appendFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStore, repositoryUrl } from '../scripts/lib/synthetic-store.ts';
import { PublishError } from '../src/publish/sink.ts';
import { buildIncrementally } from './helpers/incremental.ts';
import { startFaultProxy, type FaultProxy } from '../scripts/lib/fault-proxy.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';
import { tempDir } from './helpers/tmp.ts';
import { S3StateKeeper } from '../src/incremental/s3-state.ts';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { parseS3Location } from '../src/s3/location.ts';

const dir = tempDir();
const store = join(dir, 'store');
generateStore({ repos: 12, scans: 4, out: store, seed: 5 });
for (const f of readdirSync(store)) utimesSync(join(store, f), 1_700_000_000, 1_700_000_000);
const NOW = 1_763_600_000;

let peer: S3Peer;
let proxy: FaultProxy;
const requests: Array<{ method: string; path: string }> = [];
beforeAll(async () => {
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' });
  peer = await startS3Peer(['site']);
  proxy = await startFaultProxy(peer.port);
  proxy.onRequest = (method, path) => requests.push({ method, path: decodeURIComponent(path) });
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await peer?.stop();
});

const flags = () => ({
  store,
  out: 's3://site/pub/',
  's3-endpoint': proxy.endpoint,
  's3-path-style': true,
});
// Every build holds the output's lease (.badgepress/lease.json, after a probe that the store
// honours conditional writes): those requests are not the site's.
const take = () =>
  requests
    .splice(0)
    .filter((r) => !/\/\.badgepress\/(lease|conditional-writes-probe)/.test(r.path));
const lists = (rs: typeof requests) =>
  rs
    .filter((r) => r.method === 'GET' && /[?&]list-type=2/.test(r.path))
    .map((r) => /prefix=([^&]*)/.exec(r.path)?.[1] ?? '');
const puts = (rs: typeof requests) =>
  rs
    .filter((r) => r.method === 'PUT')
    .map((r) => r.path.replace(/^\/site\/pub\//, '').replace(/\?.*/, ''));

describe('incremental builds on S3', () => {
  it('unchanged: no PUT of the site, no listing of it; one new scan: that repository listed and written alone', async () => {
    // Builds without --prune (which also lists the site-wide pages' folders, to remove what they left behind).
    const first = await buildIncrementally({ flags: flags(), now: NOW, prune: false });
    expect(first.summary.written).toBeGreaterThan(0);
    take();

    const again = await buildIncrementally({ flags: flags(), now: NOW, prune: false });
    const rs = take();
    expect(again.summary).toMatchObject({
      written: 0,
      reused: 12,
      repositories: 12,
      scans: first.summary.scans,
      unchanged: first.summary.written,
    });
    // The state has the same bytes: it is not sent again either.
    expect(puts(rs)).toEqual([]);
    expect(lists(rs)).toEqual(['pub/.badgepress/state/']);
    // state read, state layouts listed: O(1), whatever the site's size
    expect(rs.length).toBe(2);

    // A new scan of one repository: its prefix is listed, its files written, then the state.
    addScan(3, 1);
    const one = await buildIncrementally({ flags: flags(), now: NOW, prune: false });
    const rs1 = take();
    expect(one.summary).toMatchObject({ reused: 11, repositories: 12 });
    expect(lists(rs1)).toEqual([
      'pub/.badgepress/state/',
      `pub/api/v1/repositories/${encodeURIComponent(repositoryUrl(3))}/`,
    ]);
    const written = puts(rs1);
    // First the mark of what this build may publish (the next build redoes it if this one
    // never finishes), then the files, then the state, and the mark goes.
    expect(written[0]).toBe('.badgepress/state/1/0.pending.json');
    expect(written.at(-1)).toBe('.badgepress/state/1/0.json');
    expect(
      written
        .slice(1, -1)
        .every((k) => k.startsWith(`api/v1/repositories/${encodeURIComponent(repositoryUrl(3))}/`)),
    ).toBe(true);
    expect(written.length - 2).toBe(one.summary.written);
    expect(rs1.at(-1)).toMatchObject({ method: 'POST', path: '/site/?delete=' });
  });

  it('a repository that failed to publish is not in the state: the next build redoes it', async () => {
    await buildIncrementally({ flags: flags(), now: NOW });
    addScan(5, 2);
    const enc = encodeURIComponent(repositoryUrl(5));
    proxy.deny = (method, path) =>
      method === 'PUT' && decodeURIComponent(path).includes(`${enc}/index.json`);
    const failed = await buildIncrementally({ flags: flags(), now: NOW }).catch((e: unknown) => e);
    proxy.deny = undefined;
    expect(failed).toBeInstanceOf(PublishError);
    take();
    const next = await buildIncrementally({ flags: flags(), now: NOW });
    expect(next.summary.reused).toBe(11);
    expect(puts(take())).toContain(`api/v1/repositories/${enc}/index.json`);
  });
});

/** One more scan of repository i, a week after its last, with an mtime in the past (see the property test). */
describe('the state on S3', () => {
  it('a state edited in the bucket is named, set aside beside its key, and the build is a full one', async () => {
    const out = { ...flags(), out: 's3://site/edited/' };
    await buildIncrementally({ flags: out, now: NOW });
    const key = 'edited/.badgepress/state/1/0.json';
    const client = peer.client();
    const text = (await peer.objects('site', key)).get('')!.body.toString('utf8');
    await client.send(
      new PutObjectCommand({ Bucket: 'site', Key: key, Body: text.replace('"r",', '"r", ') }),
    );
    const warnings: string[] = [];
    const again = await buildIncrementally({ flags: out, now: NOW, warn: (m) => warnings.push(m) });
    client.destroy();
    expect(warnings).toEqual([
      expect.stringMatching(
        /^build state s3:\/\/site\/edited\/\.badgepress\/state\/1\/0\.json: line \d+ is the end of other lines than these: the state was edited; set aside as s3:\/\/site\/edited\/\.badgepress\/state\/1\/0\.json\.untrusted; this build is a full one/,
      ),
    ]);
    expect(again.summary.reused).toBe(0);
    const kept = await peer.objects('site', 'edited/.badgepress/state/1/');
    expect([...kept.keys()].sort()).toEqual(['0.json', '0.json.untrusted']);
    expect(kept.get('0.json.untrusted')!.body.toString('utf8')).toBe(text.replace('"r",', '"r", '));
    expect((await buildIncrementally({ flags: out, now: NOW })).summary.reused).toBe(12);
  });

  // S3 keeps each object's Cache-Control from its PUT, and a PUT is skipped for the same bytes:
  // an upgrade that changed which files are immutable (issue 37) or new cache ages must still
  // reach the objects whose bytes stay the same, or per-time files stay immutable for a year.
  it('new cache ages: the next build re-sends every object with its new Cache-Control, once', async () => {
    const ages = { ...flags(), out: 's3://site/ages/' };
    await buildIncrementally({ flags: ages, now: NOW, prune: false });
    const config = join(dir, 'ages.yaml');
    writeFileSync(config, 'cache:\n  latestMaxAge: 60\n');
    take();
    await buildIncrementally({ flags: { ...ages, config }, now: NOW, prune: false });
    const site = [...(await peer.objects('site', 'ages/')).entries()].filter(
      ([key]) => !key.startsWith('.badgepress/'),
    );
    expect(site.length).toBeGreaterThan(12 * 4 * 7);
    const wrong = site
      .filter(([, o]) => o.cacheControl !== 'public, max-age=60')
      .map(([key, o]) => `${key}: ${o.cacheControl}`);
    expect(wrong).toEqual([]);
    expect(puts(take()).filter((k) => !k.includes('/.badgepress/'))).toHaveLength(site.length);
    // Once told, they stay told: the same config again sends nothing.
    await buildIncrementally({ flags: { ...ages, config }, now: NOW, prune: false });
    expect(puts(take())).toEqual([]);
  });

  it('a state larger than a part goes up in parts (one object in the end) and reads back line for line', async () => {
    const st = new S3StateKeeper(
      peer.client(proxy.endpoint),
      parseS3Location('s3://site/parts/')!,
      5 * 1024 * 1024,
    );
    const lines = Array.from(
      { length: 150_000 },
      (_, i) =>
        `${JSON.stringify(['r', `https://example.org/r${i}`, i, 0, 0, null, null, null, null])}\n`,
    );
    take();
    await st.write('.badgepress/state/1/0.json', lines);
    const rs = take();
    expect(rs.filter((r) => r.method === 'PUT' && /partNumber=/.test(r.path))).toHaveLength(2);
    expect(rs.filter((r) => r.method === 'POST')).toHaveLength(2);
    const back: string[] = [];
    for await (const l of (await st.read('.badgepress/state/1/0.json'))!) back.push(l);
    expect(back).toEqual(lines.map((l) => l.slice(0, -1)));
    await st.close();
  });

  it('a local copy that cannot be written is named as local, sends nothing and keeps the old state', async () => {
    const st = new S3StateKeeper(peer.client(proxy.endpoint), parseS3Location('s3://site/local/')!);
    const key = '.badgepress/state/1/0.json';
    await st.write(key, ['{"old":true}\n']);
    const notFolder = join(dir, 'tmpdir-is-a-file');
    writeFileSync(notFolder, '');
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = notFolder;
    take();
    try {
      await expect(st.write(key, ['{"new":true}\n'])).rejects.toThrow(
        `build state s3://site/local/${key}: cannot write its local copy (ENOTDIR); free space in ${notFolder} or set TMPDIR to a writable folder; the site is published`,
      );
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    function* failing(): Generator<string> {
      yield '{"new":true}\n';
      throw new Error('a summary line could not be read');
    }
    await expect(st.write(key, failing())).rejects.toThrow(
      `build state s3://site/local/${key}: cannot write its local copy (Error: a summary line could not be read); the site is published`,
    );
    expect(take()).toEqual([]);
    const back: string[] = [];
    for await (const l of (await st.read(key))!) back.push(l);
    expect(back).toEqual(['{"old":true}']);
    await st.close();
  });
});

function addScan(i: number, n: number): void {
  const file = join(store, `repo-${String(i).padStart(2, '0')}.ndjson`);
  appendFileSync(
    file,
    `${JSON.stringify({ repositoryUrl: repositoryUrl(i), timestamp: 1_763_000_000 + n, values: { BUS_FACTOR: n } })}\n`,
  );
  utimesSync(file, 1_700_000_000 + n, 1_700_000_000 + n);
}
