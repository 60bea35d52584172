// A store file that changes while a build reads it (a scanner appending during the nightly
// build) must never split a repository: each file is seen in one version, and a file that
// changed between the loader's two passes leaves its repositories as they were, named in an
// error, for the next build to pick up. Both store kinds, with the real file system and s3rver.
import { appendFileSync, mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { build } from '../src/pipeline/loop.ts';
import { resolveFlags } from '../src/commands/setup.ts';
import { loadShape } from '../src/pipeline/stages.ts';
import { DirectoryStore, type StoreSource, type VersionedBytes } from '../src/load/store.ts';
import { S3Store } from '../src/load/s3-store.ts';
import type { LoadIssue } from '../src/load/types.ts';
import { DirectorySink } from '../src/publish/dir-sink.ts';
import { s3Client } from '../src/s3/client.ts';
import { readTree } from './helpers/site.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const X = 'https://github.com/acme/x';
const Y = 'https://github.com/acme/y';
const scan = (url: string, t: number) =>
  `${JSON.stringify({ repositoryUrl: url, timestamp: t, values: { BUS_FACTOR: 3 } })}\n`;
const STORE = {
  'b.ndjson': scan(X, 1763000000) + scan(X, 1763100000),
  'c.ndjson': scan(Y, 1763000000),
};
const APPENDED = scan(X, 1763200000);

/** Runs `hook` just before the second read of b.ndjson (the loader's second pass). */
function onSecondReadOfB<T extends StoreSource>(store: T, hook: () => Promise<void>): T {
  let reads = 0;
  const readVersioned = store.readVersioned.bind(store);
  Object.defineProperty(store, 'keepBetweenPassesBytes', { value: 0 });
  store.readVersioned = async (name: string): Promise<VersionedBytes> => {
    if (name === 'b.ndjson' && ++reads === 2) await hook();
    return readVersioned(name);
  };
  return store;
}

async function buildInto(
  out: string,
  store: StoreSource,
): Promise<{ issues: LoadIssue[]; yields: Map<string, number> }> {
  const config = await resolveFlags({ out, store: 'unused' });
  const shape = loadShape(config);
  const issues: LoadIssue[] = [];
  const yields = new Map<string, number>();
  const sink = new DirectorySink(out);
  await build({
    shape,
    store,
    sink,
    now: 1763600000,
    prune: true,
    report: (i) => issues.push(i),
    onRepository: (h) => yields.set(h.repositoryUrl, (yields.get(h.repositoryUrl) ?? 0) + 1),
  });
  await sink.close();
  return { issues, yields };
}

/** Every time index.json lists has its files, and every at/<ts>/ is listed. */
function expectWhole(out: string, url: string, times: number[]): void {
  const tree = readTree(out);
  const prefix = `api/v1/repositories/${encodeURIComponent(url)}/`;
  expect(JSON.parse(tree.get(`${prefix}index.json`)!.toString()).timestamps).toEqual(times);
  const atTimes = new Set(
    [...tree.keys()]
      .filter((k) => k.startsWith(`${prefix}at/`))
      .map((k) => Number(k.slice(prefix.length + 3).split('/')[0])),
  );
  expect([...atTimes].sort()).toEqual(times);
  for (const t of times) expect(tree.has(`${prefix}at/${t}/sarif`)).toBe(true);
}

// The production client (src/s3/client.ts), credentials from the environment as for users.
Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' });

describe('a store file appended to during a build', () => {
  let peer: S3Peer;
  beforeAll(async () => {
    peer = await startS3Peer(['values']);
  });
  afterAll(async () => peer?.stop());

  it('directory store: the repository is built once from one version, the changed file named; the next build takes it all', async () => {
    const storeDir = join(dir, 'store');
    mkdirSync(storeDir);
    for (const [name, body] of Object.entries(STORE)) writeFileSync(join(storeDir, name), body);
    const out = join(dir, 'out-dir');
    const first = await buildInto(
      out,
      onSecondReadOfB(new DirectoryStore(storeDir), async () =>
        appendFileSync(join(storeDir, 'c.ndjson'), APPENDED),
      ),
    );
    expect(first.yields.get(X)).toBe(1);
    expect(
      first.issues.filter((i) => i.severity === 'error').map((i) => `${i.where}: ${i.message}`),
    ).toEqual([
      `${join(storeDir, 'c.ndjson')}: the file changed while the build read it; the repositories of this file were left as they were (the next build reads them again)`,
    ]);
    expectWhole(out, X, [1763000000, 1763100000]);

    const second = await buildInto(out, new DirectoryStore(storeDir));
    expect(second.issues).toEqual([]);
    expect(second.yields.get(X)).toBe(1);
    expectWhole(out, X, [1763000000, 1763100000, 1763200000]);
    expectWhole(out, Y, [1763000000]);
  });

  it('S3 store: the same, with the object replaced between the passes', async () => {
    const c = peer.client();
    const put = (name: string, body: string) =>
      c.send(new PutObjectCommand({ Bucket: 'values', Key: `in/${name}`, Body: body }));
    for (const [name, body] of Object.entries(STORE)) await put(name, body);
    const client = s3Client({
      endpoint: peer.endpoint,
      pathStyle: true,
      maxAttempts: 1,
      concurrency: 4,
      connectTimeoutSeconds: 10,
      requestTimeoutSeconds: 60,
    });
    const out = join(dir, 'out-s3');
    const first = await buildInto(
      out,
      onSecondReadOfB(
        new S3Store(client, { bucket: 'values', prefix: 'in/' }),
        async () => void (await put('c.ndjson', STORE['c.ndjson'] + APPENDED)),
      ),
    );
    expect(first.yields.get(X)).toBe(1);
    expect(first.issues.filter((i) => i.severity === 'error').map((i) => i.where)).toEqual([
      's3://values/in/c.ndjson',
    ]);
    expectWhole(out, X, [1763000000, 1763100000]);

    const second = await buildInto(out, new S3Store(client, { bucket: 'values', prefix: 'in/' }));
    expect(second.yields.get(X)).toBe(1);
    expectWhole(out, X, [1763000000, 1763100000, 1763200000]);
    c.destroy();
    client.destroy();
  });

  // A file read within two seconds of its last write carries a mark in its version (it could
  // be written again unseen with the same size and mtime); the mark says when, not what.
  describe('a file written just before the build', () => {
    /** The store's clock, moved 2.1 s on for the second pass (a large store's first pass takes that long). */
    const laterSecondRead = (store: DirectoryStore, beforeRead: () => void = () => {}) =>
      onSecondReadOfB(store, async () => {
        beforeRead();
        const now = Date.now() + 2100;
        vi.spyOn(Date, 'now').mockReturnValue(now);
      });

    it('unchanged between the passes: built, no error', async () => {
      const storeDir = join(dir, 'store-recent');
      mkdirSync(storeDir);
      for (const [name, body] of Object.entries(STORE)) writeFileSync(join(storeDir, name), body);
      try {
        const out = join(dir, 'out-recent');
        const r = await buildInto(out, laterSecondRead(new DirectoryStore(storeDir)));
        expect(r.issues).toEqual([]);
        expect(r.yields.get(X)).toBe(1);
        expectWhole(out, X, [1763000000, 1763100000]);
      } finally {
        vi.restoreAllMocks();
      }
    });

    it('written again between the passes with the same size and mtime: the change is seen by its bytes', async () => {
      const storeDir = join(dir, 'store-racy');
      mkdirSync(storeDir);
      for (const [name, body] of Object.entries(STORE)) writeFileSync(join(storeDir, name), body);
      const b = join(storeDir, 'b.ndjson');
      // Whole seconds, so that setting them again gives the very same version.
      const written = Math.floor(Date.now() / 1000);
      utimesSync(b, written, written);
      const before = statSync(b, { bigint: true }).mtimeNs;
      // Same length, another time: what a rewrite within the file system's timestamp granularity leaves.
      const rewritten = STORE['b.ndjson'].replace('1763100000', '1763100001');
      expect(rewritten.length).toBe(STORE['b.ndjson'].length);
      try {
        const out = join(dir, 'out-racy');
        const r = await buildInto(
          out,
          laterSecondRead(new DirectoryStore(storeDir), () => {
            writeFileSync(b, rewritten);
            utimesSync(b, written, written);
            expect(statSync(b, { bigint: true }).mtimeNs).toBe(before);
          }),
        );
        expect(r.issues.filter((i) => i.severity === 'error').map((i) => i.where)).toEqual([b]);
        expect(r.yields.get(X)).toBeUndefined();
      } finally {
        vi.restoreAllMocks();
      }
    });
  });
});
