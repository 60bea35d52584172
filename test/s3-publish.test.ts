import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/gen-store.ts';
import { S3Sink } from '../src/publish/s3-sink.ts';
import { s3Client } from '../src/s3/client.ts';
import { PublishError } from '../src/publish/sink.ts';
import { S3Store } from '../src/load/s3-store.ts';
import { originPath } from '../src/model/origin-path.ts';
import { buildSite, readTree } from './helpers/site.ts';
import { ROOT, runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { reusedGoldFrom } from './helpers/thresholds.ts';
import { startS3Peer, type S3Peer } from './helpers/s3-peer.ts';
import { startFaultProxy, type FaultProxy } from './helpers/fault-proxy.ts';

const dir = tempDir();
// 15 repositories × 10 scans = 1,170 keys: listing needs a second page.
const store = join(dir, 'store');
generateStore({ repos: 15, scans: 10, out: store, seed: 11 });
const local = join(dir, 'local');
await buildSite({ store, out: local });
const localTree = readTree(local);

let peer: S3Peer;
let proxy: FaultProxy;
beforeAll(async () => {
  peer = await startS3Peer(['site', 'other', 'values', 'keys', 'killed']);
  proxy = await startFaultProxy(peer.port);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await peer?.stop();
});

// The production client (src/s3/client.ts), credentials from the environment as for users.
Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' });
function sinkVia(endpoint: string, bucket: string, prefix = 'pub/', maxAttempts = 3): S3Sink {
  return new S3Sink(s3Client({ endpoint, pathStyle: true, maxAttempts, concurrency: 64 }), { bucket, prefix });
}

async function publish(bucket: string, opts: { prefix?: string; config?: string; endpoint?: string; prune?: boolean; maxAttempts?: number; storeDir?: string } = {}) {
  const sink = sinkVia(opts.endpoint ?? proxy.endpoint, bucket, opts.prefix ?? 'pub/', opts.maxAttempts ?? 3);
  try {
    return await buildSite({ store: opts.storeDir ?? store, out: 'unused', sink, ...(opts.config ? { config: opts.config } : {}), ...(opts.prune ? { prune: true } : {}) });
  } finally {
    await sink.close();
  }
}

const thresholdConfig = (name: string) => reusedGoldFrom(join(dir, name), 22);

describe('publishing to S3 (s3rver on 127.0.0.1)', () => {
  it('holds the same keys and bytes as a directory build, with content types and cache control', async () => {
    proxy.reset();
    const { summary } = await publish('site');
    expect(summary.written).toBe(localTree.size);
    expect(localTree.size).toBeGreaterThan(1000);
    const objects = await peer.objects('site', 'pub/');
    expect([...objects.keys()]).toEqual([...localTree.keys()]);
    for (const [key, o] of objects) {
      expect(o.body.equals(localTree.get(key)!), key).toBe(true);
      expect(o.contentType).toBe(key.endsWith('.svg') ? 'image/svg+xml' : 'application/json');
      expect(o.cacheControl).toBe(key.includes('/at/') ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    }
  });

  it('a rebuild with unchanged inputs sends zero PUTs; a threshold change sends exactly the changed objects', async () => {
    proxy.reset();
    const again = await publish('site');
    expect(proxy.counts.PUT ?? 0).toBe(0);
    expect(again.summary.unchanged).toBe(localTree.size);

    const config = thresholdConfig('cfg-change');
    const changedDir = join(dir, 'local-changed');
    await buildSite({ store, out: changedDir, config });
    const changedTree = readTree(changedDir);
    const differing = [...changedTree.keys()].filter((k) => !changedTree.get(k)!.equals(localTree.get(k)!));
    expect(differing.length).toBeGreaterThan(0);
    proxy.reset();
    const changed = await publish('site', { config });
    expect(proxy.counts.PUT).toBe(differing.length);
    expect(changed.summary.written).toBe(differing.length);
    const objects = await peer.objects('site', 'pub/');
    for (const k of differing) expect(objects.get(k)!.body.equals(changedTree.get(k)!)).toBe(true);
  });

  it('--prune deletes exactly the stale keys of known repositories, never a neighbour whose URL extends one', async () => {
    const c = peer.client();
    const repoPrefix = [...localTree.keys()][0]!.split('/').slice(0, 4).join('/');
    await c.send(new PutObjectCommand({ Bucket: 'site', Key: `pub/${repoPrefix}/badges/OLD.svg`, Body: 'stale' }));
    await c.send(new PutObjectCommand({ Bucket: 'site', Key: `pub/${repoPrefix}x/sarif`, Body: 'neighbour' }));
    await c.send(new PutObjectCommand({ Bucket: 'site', Key: 'pub/unrelated.txt', Body: 'not ours' }));
    c.destroy();
    proxy.reset();
    const { summary } = await publish('site', { config: thresholdConfig('cfg-prune'), prune: true });
    expect(summary.removed).toBe(1);
    expect(proxy.counts.POST).toBe(1); // one DeleteObjects call
    const keys = [...(await peer.objects('site', 'pub/')).keys()];
    expect(keys).not.toContain(`${repoPrefix}/badges/OLD.svg`);
    expect(keys).toContain(`${repoPrefix}x/sarif`);
    expect(keys).toContain('unrelated.txt');
  });

  it('survives injected 500s, 503s and connection resets: re-runs end equal to the directory build', async () => {
    proxy.faultRate = 0.15;
    let failed: unknown = 'not run';
    try {
      // Each run retries through the SDK; whatever still fails, the next run finishes.
      for (let runs = 1; runs <= 8 && failed !== undefined; runs++) {
        try {
          await publish('other', { maxAttempts: 5 });
          failed = undefined;
        } catch (err) {
          failed = err;
          if (err instanceof PublishError) expect(err.keys.length).toBeGreaterThan(0);
        }
      }
    } finally {
      proxy.faultRate = 0;
    }
    expect(failed).toBeUndefined();
    const objects = await peer.objects('other', 'pub/');
    expect([...objects.keys()]).toEqual([...localTree.keys()]);
    for (const [k, o] of objects) expect(o.body.equals(localTree.get(k)!), k).toBe(true);
  });

  it('a bucket that cannot be listed is named with what to check', async () => {
    const sink = sinkVia(peer.endpoint, 'nonexistent-bucket', '', 1);
    await expect(buildSite({ store, out: 'unused', sink })).rejects.toThrow(/--out s3:\/\/nonexistent-bucket\/: cannot list the bucket .*check the bucket name, credentials and --s3-endpoint/);
    await sink.close();
  });

  it('a key that fails is named, and the later phases of its repository are held back', async () => {
    const sink = new S3Sink(peer.client(peer.endpoint), { bucket: 'site', prefix: 'held/' });
    // Make exactly the first per-time PUT fail on every attempt.
    const original = sink.put.bind(sink);
    let victim = '';
    sink.put = async (f) => {
      if (!victim && f.phase === 'at') victim = f.key;
      if (f.key === victim) throw new PublishError([f.key], 'injected');
      return original(f);
    };
    const err = await buildSite({ store, out: 'unused', sink }).catch((e: unknown) => e);
    await sink.close();
    expect(err).toBeInstanceOf(PublishError);
    const keys = (err as PublishError).keys;
    expect(keys[0]).toBe(victim);
    const repo = victim.split('/').slice(0, 4).join('/');
    expect(keys).toContain(`${repo}/index.json`);
    expect(keys).toContain(`${repo}/sarif`);
    const stored = [...(await peer.objects('site', 'held/')).keys()];
    expect(stored).not.toContain(`${repo}/index.json`);
    // Every other repository is complete.
    expect(stored.filter((k) => !k.startsWith(`${repo}/`))).toEqual([...localTree.keys()].filter((k) => !k.startsWith(`${repo}/`)));
  });

  it('a build killed at random points and run again ends complete; index.json never lists missing files', async () => {
    const small = join(dir, 'store-kill');
    generateStore({ repos: 4, scans: 6, out: small, seed: 5 });
    const smallLocal = join(dir, 'local-kill');
    await buildSite({ store: small, out: smallLocal });
    const smallTree = readTree(smallLocal);
    const args = ['build', '--store', small, '--out', 's3://killed/pub', '--s3-endpoint', proxy.endpoint, '--s3-path-style', '--now', '1763600000'];
    const env = { ...peer.env };
    const { NODE_TSX } = await import('./helpers/cli.ts');
    for (const killAfter of [5, 60, 150]) {
      let puts = 0;
      const child = spawn(NODE_TSX[0], [...NODE_TSX.slice(1), `${ROOT}src/cli.ts`, ...args], { cwd: ROOT, env: { ...process.env, ...env, CI: 'true' }, stdio: 'ignore' });
      proxy.onRequest = (method) => {
        if (method === 'PUT' && ++puts === killAfter) child.kill('SIGKILL');
      };
      await new Promise((ok) => child.once('exit', ok));
      proxy.onRequest = undefined;
      // Frozen at the kill: every time an index.json lists has its per-time files.
      const objects = await peer.objects('killed', 'pub/');
      for (const [key, o] of objects) {
        if (!key.endsWith('/index.json')) continue;
        const prefix = key.slice(0, -'index.json'.length);
        for (const ts of JSON.parse(o.body.toString()).timestamps) {
          for (const f of ['sarif', 'badges/MAINTENANCE.svg', 'badges/SECURITY', 'badges/REUSED.svg']) expect(objects.has(`${prefix}at/${ts}/${f}`), `${prefix}at/${ts}/${f}`).toBe(true);
        }
      }
    }
    // Not runCli: spawnSync would block this process, and with it the proxy the CLI talks to.
    const final = spawn(NODE_TSX[0], [...NODE_TSX.slice(1), `${ROOT}src/cli.ts`, ...args], { cwd: ROOT, env: { ...process.env, ...env, CI: 'true' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    final.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise((ok) => final.once('exit', ok));
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    const objects = await peer.objects('killed', 'pub/');
    expect([...objects.keys()]).toEqual([...smallTree.keys()]);
    for (const [k, o] of objects) expect(o.body.equals(smallTree.get(k)!), k).toBe(true);
  });

  it('reads stored values from S3 with key:line errors', async () => {
    const c = peer.client();
    for (const name of ['mixed.ndjson', 'latin1.ndjson']) {
      await c.send(new PutObjectCommand({ Bucket: 'values', Key: `in/${name}`, Body: readFileSync(join(ROOT, 'examples/bad-store', name)) }));
    }
    const issues: string[] = [];
    const { summary } = await buildSite({ store: 'unused', out: join(dir, 'from-s3'), source: new S3Store(c, { bucket: 'values', prefix: 'in/' }) }).then((b) => {
      for (const i of b.issues) issues.push(`${i.where}: ${i.message}`);
      return b;
    });
    c.destroy();
    expect(summary.scans).toBe(3);
    expect(issues).toContainEqual(expect.stringMatching(/^s3:\/\/values\/in\/mixed\.ndjson:2: repositoryUrl "not a url"/));
    expect(issues).toContainEqual(expect.stringMatching(/^s3:\/\/values\/in\/latin1\.ndjson:1: line is not valid UTF-8/));
  });

  it('the path an adapter sends (each "%" as "%25") returns the object, for awkward URLs', async () => {
    const awkward = ['https://h.org/a space/x', 'https://h.org/a+plus/x', 'https://h.org/100%25/x', 'https://h.org/γλώσσα/x', 'https://git.example.org:8443/p/x', 'https://gitlab.com/a/b/c/d/e/f/project'];
    const awkwardStore = join(dir, 'awkward');
    mkdirSync(awkwardStore, { recursive: true });
    writeFileSync(join(awkwardStore, 'a.ndjson'), awkward.map((u) => JSON.stringify({ repositoryUrl: u, timestamp: 1763000000, values: { BUS_FACTOR: 3 } })).join('\n'));
    await publish('keys', { storeDir: awkwardStore, prefix: '' });
    for (const url of awkward) {
      for (const resource of ['sarif', 'badges/MAINTENANCE.svg', 'at/1763000000/badges/MAINTENANCE']) {
        const key = `api/v1/repositories/${encodeURIComponent(url)}/${resource}`;
        const res = await new Promise<{ status: number; type?: string; cache?: string }>((ok, fail) =>
          request({ host: '127.0.0.1', port: peer.port, path: `/keys/${originPath(key)}` }, (r) => {
            r.resume();
            ok({ status: r.statusCode!, ...(r.headers['content-type'] ? { type: r.headers['content-type'] } : {}), ...(r.headers['cache-control'] ? { cache: r.headers['cache-control'] } : {}) });
          })
            .on('error', fail)
            .end(),
        );
        expect(res.status, `${url} ${resource}`).toBe(200);
        expect(res.type).toBe(resource.endsWith('.svg') ? 'image/svg+xml' : 'application/json');
        expect(res.cache).toMatch(/^public, max-age=/);
      }
    }
  });
});
