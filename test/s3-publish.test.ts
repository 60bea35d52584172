import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { S3Sink } from '../src/publish/s3-sink.ts';
import { s3Client } from '../src/s3/client.ts';
import { PublishError, SHOWN_KEYS } from '../src/publish/sink.ts';
import { S3Store } from '../src/load/s3-store.ts';
import { originPath } from '../src/model/origin-path.ts';
import { buildSite, readTree } from './helpers/site.ts';
import { ROOT } from './helpers/cli.ts';
import { runCliAsync } from './helpers/cli-async.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { loadSettings } from '../src/config/load.ts';
import { tempDir } from './helpers/tmp.ts';
import { reusedGoldFrom } from '../scripts/lib/thresholds-variant.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';
import { startFaultProxy, type FaultProxy } from '../scripts/lib/fault-proxy.ts';

const dir = tempDir();
// 5 repositories × 10 scans, about 390 keys. The build lists the site one repository at a
// time (each well under a listing page); paging past 1,000 keys is tested on the store side.
const store = join(dir, 'store');
generateStore({ repos: 5, scans: 10, out: store, seed: 11 });
const local = join(dir, 'local');
await buildSite({ store, out: local });
const localTree = readTree(local);

let peer: S3Peer;
let proxy: FaultProxy;
beforeAll(async () => {
  peer = await startS3Peer([
    'site',
    'other',
    'values',
    'keys',
    'killed',
    'denied',
    'corrupt',
    'kms',
    'many',
    'settings',
  ]);
  proxy = await startFaultProxy(peer.port);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await peer?.stop();
});

// The production client (src/s3/client.ts), credentials from the environment as for users.
Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' });
function sinkVia(endpoint: string, bucket: string, prefix = 'pub/', maxAttempts = 3): S3Sink {
  return new S3Sink(
    s3Client({
      endpoint,
      pathStyle: true,
      maxAttempts,
      concurrency: 64,
      connectTimeoutSeconds: 10,
      requestTimeoutSeconds: 60,
    }),
    {
      bucket,
      prefix,
    },
  );
}

async function publish(
  bucket: string,
  opts: {
    prefix?: string;
    config?: string;
    endpoint?: string;
    prune?: boolean;
    maxAttempts?: number;
    storeDir?: string;
  } = {},
) {
  const sink = sinkVia(
    opts.endpoint ?? proxy.endpoint,
    bucket,
    opts.prefix ?? 'pub/',
    opts.maxAttempts ?? 3,
  );
  try {
    return await buildSite({
      store: opts.storeDir ?? store,
      out: 'unused',
      sink,
      ...(opts.config ? { config: opts.config } : {}),
      ...(opts.prune ? { prune: true } : {}),
    });
  } finally {
    await sink.close();
  }
}

const thresholdConfig = (name: string) => reusedGoldFrom(join(dir, name), 22);

// A small store for the tests that run the CLI or fail on purpose: 4 repositories × 6 scans.
const small = join(dir, 'store-small');
generateStore({ repos: 4, scans: 6, out: small, seed: 5 });
const smallLocal = join(dir, 'local-small');
await buildSite({ store: small, out: smallLocal });
const smallTree = readTree(smallLocal);
const perTimeKeys = [...smallTree.keys()].filter((k) => k.includes('/at/'));
// What the CLI writes besides: the human site (pages: true) and api/v1/openapi.json (openapi: true).
const smallCliLocal = join(dir, 'local-small-cli');
await runCommand(['build', '--store', small, '--out', smallCliLocal, '--now', '1763600000']);
const smallCliTree = new Map(
  [...readTree(smallCliLocal)].filter(([k]) => !k.startsWith('.badgepress/')),
);
const cliEnv = () => ({ ...peer.env });

async function expectBucketEqualsSmallTree(bucket: string, tree = smallTree) {
  const objects = new Map(
    [...(await peer.objects(bucket, 'pub/'))].filter(([k]) => !k.startsWith('.badgepress/')),
  );
  expect([...objects.keys()]).toEqual([...tree.keys()]);
  for (const [k, o] of objects) expect(o.body.equals(tree.get(k)!), k).toBe(true);
}

describe('publishing to S3 (s3rver on 127.0.0.1)', () => {
  it('holds the same keys and bytes as a directory build, with content types and cache control', async () => {
    proxy.reset();
    const { summary } = await publish('site');
    expect(summary.written).toBe(localTree.size);
    expect(localTree.size).toBeGreaterThan(300);
    const objects = await peer.objects('site', 'pub/');
    expect([...objects.keys()]).toEqual([...localTree.keys()]);
    for (const [key, o] of objects) {
      expect(o.body.equals(localTree.get(key)!), key).toBe(true);
      expect(o.contentType).toBe(key.endsWith('.svg') ? 'image/svg+xml' : 'application/json');
      // Per-time files too: a threshold change rewrites them (issue 37), so none is immutable.
      expect(o.cacheControl).toBe('public, max-age=300');
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
    const differing = [...changedTree.keys()].filter(
      (k) => !changedTree.get(k)!.equals(localTree.get(k)!),
    );
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
    await c.send(
      new PutObjectCommand({
        Bucket: 'site',
        Key: `pub/${repoPrefix}/badges/OLD.svg`,
        Body: 'stale',
      }),
    );
    await c.send(
      new PutObjectCommand({ Bucket: 'site', Key: `pub/${repoPrefix}x/sarif`, Body: 'neighbour' }),
    );
    await c.send(
      new PutObjectCommand({ Bucket: 'site', Key: 'pub/unrelated.txt', Body: 'not ours' }),
    );
    c.destroy();
    proxy.reset();
    const { summary } = await publish('site', {
      config: thresholdConfig('cfg-prune'),
      prune: true,
    });
    expect(summary.removed).toBe(1);
    expect(proxy.counts.POST).toBe(1); // one DeleteObjects call
    const keys = [...(await peer.objects('site', 'pub/')).keys()];
    expect(keys).not.toContain(`${repoPrefix}/badges/OLD.svg`);
    expect(keys).toContain(`${repoPrefix}x/sarif`);
    expect(keys).toContain('unrelated.txt');
  });

  it('survives injected 500s, 503s and connection resets: re-runs end equal to the directory build', async () => {
    proxy.reset();
    proxy.faultRate = 0.15;
    let failed: unknown = 'not run';
    try {
      // Each run retries through the SDK; whatever still fails, the next run finishes.
      for (let runs = 1; runs <= 8 && failed !== undefined; runs++) {
        try {
          await publish('other', { maxAttempts: 5, storeDir: small });
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
    // The faults really happened, of every kind.
    expect(proxy.injected.reset).toBeGreaterThan(0);
    expect(proxy.injected['500']).toBeGreaterThan(0);
    expect(proxy.injected['503']).toBeGreaterThan(0);
    await expectBucketEqualsSmallTree('other');
  });

  it('a bucket that cannot be listed is named with what to check', async () => {
    const sink = sinkVia(peer.endpoint, 'nonexistent-bucket', '', 1);
    await expect(buildSite({ store, out: 'unused', sink })).rejects.toThrow(
      /--out s3:\/\/nonexistent-bucket\/: cannot list the bucket .*check the bucket name, credentials and --s3-endpoint/,
    );
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
    const err = await buildSite({ store: small, out: 'unused', sink }).catch((e: unknown) => e);
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
    expect(stored.filter((k) => !k.startsWith(`${repo}/`))).toEqual(
      [...smallTree.keys()].filter((k) => !k.startsWith(`${repo}/`)),
    );
  });

  const killedLeaseRemoved = async () => {
    const c = peer.client();
    await c.send(new DeleteObjectCommand({ Bucket: 'killed', Key: 'pub/.badgepress/lease.json' }));
    c.destroy();
  };

  it('a build killed at seeded random points and run again ends complete; while it runs, no index.json lists a missing object and no latest object precedes its index', async () => {
    const args = [
      'build',
      '--store',
      small,
      '--out',
      's3://killed/pub',
      '--s3-endpoint',
      proxy.endpoint,
      '--s3-path-style',
      '--now',
      '1763600000',
    ];
    const seed = Number(process.env.BADGEPRESS_KILL_SEED ?? 20251120);
    let state = seed;
    const random = () =>
      ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % 100_000) / 100_000;
    const watcher = bucketWatcher(peer.client(), 'killed', 'pub/');
    const killPoints: number[] = [];
    for (let round = 0; round < 3; round++) {
      const remaining =
        smallCliTree.size -
        [...(await peer.objects('killed', 'pub/')).keys()].filter(
          (k) => !k.startsWith('.badgepress/'),
        ).length;
      expect(remaining, `seed ${seed}: nothing left to kill in round ${round}`).toBeGreaterThan(1);
      // Anywhere among the PUTs still to come, the last one included.
      const killAfter = 1 + Math.floor(random() * remaining);
      killPoints.push(killAfter);
      let puts = 0;
      const run = runCliAsync(args, {
        env: cliEnv(),
        started: (child) => {
          proxy.onRequest = (method) => {
            if (method === 'PUT' && ++puts === killAfter) child.kill('SIGKILL');
          };
        },
      });
      const exit = await watcher.while(run);
      proxy.onRequest = undefined;
      expect(
        exit.signal,
        `seed ${seed}, kill points ${killPoints}: the build was to be killed at PUT ${killAfter}; ${exit.stderr}`,
      ).toBe('SIGKILL');
      // The killed build's lease holds until it lapses unrenewed; the test knows its holder is gone.
      await killedLeaseRemoved();
    }
    const final = await watcher.while(runCliAsync(args, { env: cliEnv() }));
    expect(final.stderr).not.toMatch(/error/i);
    expect(final.code).toBe(0);
    await watcher.poll();
    await watcher.close();
    // The watcher looked often enough to see indexes while the builds ran.
    expect(watcher.indexesChecked).toBeGreaterThan(0);
    expect(watcher.problems).toEqual([]);
    expect(smallCliTree.has('api/v1/openapi.json')).toBe(true);
    await expectBucketEqualsSmallTree('killed', smallCliTree);
  });

  it('reads stored values from S3 with key:line errors', async () => {
    const c = peer.client();
    for (const name of ['mixed.ndjson', 'latin1.ndjson']) {
      await c.send(
        new PutObjectCommand({
          Bucket: 'values',
          Key: `in/${name}`,
          Body: readFileSync(join(ROOT, 'examples/bad-store', name)),
        }),
      );
    }
    const issues: string[] = [];
    const { summary } = await buildSite({
      store: 'unused',
      out: join(dir, 'from-s3'),
      source: new S3Store(c, { bucket: 'values', prefix: 'in/' }),
    }).then((b) => {
      for (const i of b.issues) issues.push(`${i.where}: ${i.message}`);
      return b;
    });
    c.destroy();
    expect(summary.scans).toBe(3);
    expect(issues).toContainEqual(
      expect.stringMatching(/^s3:\/\/values\/in\/mixed\.ndjson:2: repositoryUrl "not a url"/),
    );
    expect(issues).toContainEqual(
      expect.stringMatching(/^s3:\/\/values\/in\/latin1\.ndjson:1: line is not valid UTF-8/),
    );
  });

  it('the path an adapter sends (each "%" as "%25") returns the object, for awkward URLs', async () => {
    const awkward = [
      'https://h.org/a space/x',
      'https://h.org/a+plus/x',
      'https://h.org/100%25/x',
      'https://h.org/γλώσσα/x',
      'https://git.example.org:8443/p/x',
      'https://gitlab.com/a/b/c/d/e/f/project',
    ];
    const awkwardStore = join(dir, 'awkward');
    mkdirSync(awkwardStore, { recursive: true });
    writeFileSync(
      join(awkwardStore, 'a.ndjson'),
      awkward
        .map((u) =>
          JSON.stringify({ repositoryUrl: u, timestamp: 1763000000, values: { BUS_FACTOR: 3 } }),
        )
        .join('\n'),
    );
    await publish('keys', { storeDir: awkwardStore, prefix: '' });
    for (const url of awkward) {
      for (const resource of [
        'sarif',
        'badges/MAINTENANCE.svg',
        'at/1763000000/badges/MAINTENANCE',
      ]) {
        const key = `api/v1/repositories/${encodeURIComponent(url)}/${resource}`;
        const res = await new Promise<{ status: number; type?: string; cache?: string }>(
          (ok, fail) =>
            request(
              { host: '127.0.0.1', port: peer.port, path: `/keys/${originPath(key)}` },
              (r) => {
                r.resume();
                ok({
                  status: r.statusCode!,
                  ...(r.headers['content-type'] ? { type: r.headers['content-type'] } : {}),
                  ...(r.headers['cache-control'] ? { cache: r.headers['cache-control'] } : {}),
                });
              },
            )
              .on('error', fail)
              .end(),
        );
        expect(res.status, `${url} ${resource}`).toBe(200);
        expect(res.type).toBe(resource.endsWith('.svg') ? 'image/svg+xml' : 'application/json');
        expect(res.cache).toMatch(/^public, max-age=/);
      }
    }
  });

  it('PUTs refused with 403 AccessDenied: the error says AccessDenied and which keys, the CLI exits 4 with the reason', async () => {
    proxy.reset();
    // The build lease is the CLI's first PUT: let it through, so the site's files are refused.
    proxy.deny = (method, path) => method === 'PUT' && !path.includes('.badgepress');
    try {
      const err = await publish('denied', { storeDir: small }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PublishError);
      const e = err as PublishError;
      expect(e.keys.sort()).toEqual([...smallTree.keys()].sort());
      // Per-time keys were tried and refused; the rest was held back, each group with its reason.
      expect(e.message).toMatch(
        new RegExp(
          `^${smallTree.size} keys not published: AccessDenied: Access Denied \\(${perTimeKeys.length} keys\\); held back: at files of the same repository failed \\(${smallTree.size - perTimeKeys.length} keys\\)$`,
        ),
      );
      expect(proxy.injected['403']).toBe(perTimeKeys.length);
      const lines = e.keyLines();
      expect(lines).toHaveLength(SHOWN_KEYS + 1);
      expect(lines[0]).toMatch(
        /^ {2}not published: api\/v1\/repositories\/.+\/at\/\d+\/.+ \(AccessDenied: Access Denied\)$/,
      );
      expect(lines.at(-1)).toBe(`  … and ${smallTree.size - SHOWN_KEYS} more`);

      const cli = await runCliAsync(
        [
          'build',
          '--store',
          small,
          '--out',
          's3://denied/cli',
          '--s3-endpoint',
          proxy.endpoint,
          '--s3-path-style',
        ],
        {
          env: cliEnv(),
        },
      );
      expect(cli.code).toBe(4);
      expect(cli.stderr).toContain(
        `not published: AccessDenied: Access Denied (${perTimeKeys.length} keys)`,
      );
    } finally {
      proxy.deny = undefined;
    }
  });

  it('a body altered on the way is caught by the MD5/ETag check, named by key; a clean re-run completes', async () => {
    proxy.reset();
    proxy.corrupt = (method) => method === 'PUT';
    let err: unknown;
    try {
      err = await publish('corrupt', { storeDir: small }).catch((e: unknown) => e);
    } finally {
      proxy.corrupt = undefined;
    }
    expect(err).toBeInstanceOf(PublishError);
    const e = err as PublishError;
    expect(proxy.injected.corrupt).toBe(perTimeKeys.length);
    expect(e.failures[0]!.reason).toMatch(
      /^ETag mismatch: the stored object is not the bytes sent/,
    );
    expect(e.failures[0]!.keys.sort()).toEqual(perTimeKeys);
    expect(e.message).toContain(
      `ETag mismatch: the stored object is not the bytes sent (altered on the way or by the store) (${perTimeKeys.length} keys)`,
    );
    // The altered objects are in the bucket; the next run sees their ETags differ and sends them again.
    proxy.reset();
    const { summary } = await publish('corrupt', { storeDir: small });
    expect(summary.written).toBe(smallTree.size);
    await expectBucketEqualsSmallTree('corrupt');
  });

  it('under SSE-KMS (an ETag that is no MD5) uploads are not failed by the ETag check', async () => {
    proxy.reset();
    proxy.kms = (method) => method === 'PUT';
    try {
      const { summary } = await publish('kms', { storeDir: small });
      expect(summary.written).toBe(smallTree.size);
      expect(proxy.injected.kms).toBe(smallTree.size);
    } finally {
      proxy.kms = undefined;
    }
    await expectBucketEqualsSmallTree('kms');
  });

  it('--store s3:// objects that cannot be read are named by key, with what to check', async () => {
    const c = peer.client();
    await c.send(
      new PutObjectCommand({
        Bucket: 'values',
        Key: 'denied/a.ndjson',
        Body: readFileSync(join(ROOT, 'examples/bad-store/mixed.ndjson')),
      }),
    );
    c.destroy();
    proxy.reset();
    // Listing is a GET of the bucket; reading an object is a GET of its key: refuse only those.
    proxy.deny = (method, path) => method === 'GET' && !path.includes('list-type=');
    const client = s3Client({
      endpoint: proxy.endpoint,
      pathStyle: true,
      maxAttempts: 1,
      concurrency: 4,
      connectTimeoutSeconds: 10,
      requestTimeoutSeconds: 60,
    });
    try {
      const err = await buildSite({
        store: 'unused',
        out: join(dir, 'denied-store'),
        source: new S3Store(client, { bucket: 'values', prefix: 'denied/' }),
      }).catch((e: unknown) => e);
      expect((err as Error).message).toBe(
        'store s3://values/denied/a.ndjson: cannot read (AccessDenied: Access Denied); check that the credentials may read it (s3:GetObject), and --s3-endpoint',
      );
      expect(proxy.injected['403']).toBeGreaterThan(0);
    } finally {
      proxy.deny = undefined;
      client.destroy();
    }
  });

  it('--store s3:// lists past 1,000 keys', async () => {
    const c = peer.client();
    const limit = pLimit(32);
    const names = Array.from(
      { length: 1005 },
      (_, i) => `part-${String(i).padStart(4, '0')}.ndjson`,
    );
    await Promise.all(
      names.map((name, i) =>
        limit(() =>
          c.send(
            new PutObjectCommand({
              Bucket: 'many',
              Key: `in/${name}`,
              Body: JSON.stringify({
                repositoryUrl: `https://h.org/o/r${i}`,
                timestamp: 1763000000,
                values: { BUS_FACTOR: 3 },
              }),
            }),
          ),
        ),
      ),
    );
    await c.send(
      new PutObjectCommand({ Bucket: 'many', Key: 'in/notes.txt', Body: 'not a store file' }),
    );
    proxy.reset();
    const client = s3Client({
      endpoint: proxy.endpoint,
      pathStyle: true,
      maxAttempts: 1,
      concurrency: 4,
      connectTimeoutSeconds: 10,
      requestTimeoutSeconds: 60,
    });
    try {
      expect(await new S3Store(client, { bucket: 'many', prefix: 'in/' }).list()).toEqual(names);
      expect(proxy.counts.GET).toBe(2); // two pages of ListObjectsV2
    } finally {
      client.destroy();
      c.destroy();
    }
  });

  it('maxAttempts and requestChecksumCalculation set in the config take effect', async () => {
    const config = (extra: string) => {
      const file = join(dir, `s3-settings-${extra.replace(/\W+/g, '-')}.yaml`);
      writeFileSync(
        file,
        `store: ${small}\nout: s3://settings/pub\ns3:\n  endpoint: ${proxy.endpoint}\n  pathStyle: true\n${extra}`,
      );
      return file;
    };
    const attempts = async (maxAttempts: number) => {
      const settings = await loadSettings(config(`  maxAttempts: ${maxAttempts}\n`));
      const client = s3Client(settings.s3);
      proxy.reset();
      proxy.faultRate = 1;
      try {
        await expect(
          client.send(new ListObjectsV2Command({ Bucket: 'settings' })),
        ).rejects.toThrow();
      } finally {
        proxy.faultRate = 0;
        client.destroy();
      }
      return proxy.counts.GET;
    };
    expect(await attempts(1)).toBe(1);
    expect(await attempts(3)).toBe(3);

    const checksumHeaders = async (setting: string) => {
      const settings = await loadSettings(config(setting));
      const client = s3Client(settings.s3);
      const seen: string[] = [];
      proxy.onRequest = (method, _path, headers) => {
        if (method === 'PUT')
          seen.push(
            ...Object.keys(headers).filter(
              (h) => h.startsWith('x-amz-checksum-') || h === 'x-amz-sdk-checksum-algorithm',
            ),
          );
      };
      try {
        await client.send(
          new PutObjectCommand({ Bucket: 'settings', Key: 'probe', Body: 'probe' }),
        );
      } finally {
        proxy.onRequest = undefined;
        client.destroy();
      }
      return seen;
    };
    expect(await checksumHeaders('')).not.toEqual([]); // the SDK's default: a checksum on every upload
    expect(await checksumHeaders('  requestChecksumCalculation: WHEN_REQUIRED\n')).toEqual([]);
  });
});

/**
 * Looks at a bucket again and again while builds run, as a reader would, and records every
 * moment the ordering promise is broken: an index.json listing a time whose per-time objects
 * are not all there, or a latest object present before its repository's index.json.
 */
function bucketWatcher(client: S3Client, bucket: string, prefix: string) {
  const repoOf = (key: string) => key.split('/').slice(0, 4).join('/');
  const latestKeys = [...smallTree.keys()].filter(
    (k) => !k.includes('/at/') && !k.endsWith('/index.json'),
  );
  const list = async (): Promise<Set<string>> => {
    // s3rver lists by reading its directories, and answers 500 when an object (the build's
    // lease, say) is deleted or rewritten between its readdir and its stat; S3's listing has no
    // such race. A build after a killed one sends every object again for its headers (no state
    // says which Cache-Control they carry), so the race comes often: a pause, and a new listing.
    for (let attempt = 1; ; attempt++) {
      try {
        const keys = new Set<string>();
        for await (const page of paginateListObjectsV2(
          { client },
          { Bucket: bucket, Prefix: prefix },
        ))
          for (const o of page.Contents ?? []) keys.add(o.Key!.slice(prefix.length));
        return keys;
      } catch (err) {
        if (attempt >= 40 || (err as { name?: string }).name !== 'InternalError') throw err;
        await new Promise((ok) => setTimeout(ok, 10));
      }
    }
  };
  const watcher = {
    problems: [] as string[],
    indexesChecked: 0,
    async poll(): Promise<void> {
      const before = await list();
      for (const key of latestKeys) {
        if (before.has(key) && !before.has(`${repoOf(key)}/index.json`))
          watcher.problems.push(`${key} present before ${repoOf(key)}/index.json`);
      }
      const listed: Array<{ repo: string; timestamps: number[] }> = [];
      for (const key of before) {
        if (!key.endsWith('/index.json')) continue;
        try {
          const res = await client.send(
            new GetObjectCommand({ Bucket: bucket, Key: prefix + key }),
          );
          listed.push({
            repo: repoOf(key),
            timestamps: JSON.parse(await res.Body!.transformToString()).timestamps,
          });
        } catch {
          // Still being written (not yet confirmed to the build): nothing promised yet.
        }
      }
      // Listed after the indexes were read: whatever was confirmed before them is in it.
      const after = await list();
      for (const { repo, timestamps } of listed) {
        watcher.indexesChecked++;
        for (const ts of timestamps) {
          const expected = perTimeKeys.filter((k) => k.startsWith(`${repo}/at/${ts}/`));
          if (expected.length === 0)
            watcher.problems.push(
              `${repo}/index.json lists ${ts}, a time the build does not produce`,
            );
          for (const k of expected)
            if (!after.has(k))
              watcher.problems.push(`${repo}/index.json lists ${ts} but ${k} is missing`);
        }
      }
    },
    /** Polls until `run` settles, then returns its result. */
    async while<T>(run: Promise<T>): Promise<T> {
      let settled = false;
      void run.finally(() => (settled = true));
      while (!settled) {
        await watcher.poll();
        await new Promise((ok) => setTimeout(ok, 5));
      }
      return run;
    },
    async close(): Promise<void> {
      client.destroy();
    },
  };
  return watcher;
}
