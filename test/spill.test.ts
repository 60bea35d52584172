// src/load/spill.ts: a line file streamed once into bucket files by repository, read back bucket
// by bucket in file order with each record's line number; bad lines kept as problems.
import { readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shardOf } from '../src/model/shard.ts';
import type { ParsedItem } from '../src/load/parse-file.ts';
import { bucketCount, bucketOf, Spill } from '../src/load/spill.ts';
import { DirectoryStore, type StoreSource } from '../src/load/store.ts';
import { tempDir } from './helpers/tmp.ts';

const MiB = 1024 * 1024;

describe('bucketCount and bucketOf', () => {
  it('gives at least two buckets, one per 4 MiB of the largest file (or a quarter of a smaller spill threshold)', () => {
    expect(bucketCount(0)).toBe(2);
    expect(bucketCount(100 * MiB)).toBe(25);
    expect(bucketCount(100 * MiB + 1)).toBe(26);
    expect(bucketCount(1000, 400)).toBe(10);
  });

  const urls = Array.from({ length: 200 }, (_, i) => `https://github.com/acme/r${i}`);

  it('puts a repository in one bucket in range, spreading repositories over every bucket', () => {
    for (const u of urls) {
      expect(bucketOf(u, 7)).toBe(bucketOf(u, 7));
      expect(bucketOf(u, 7)).toBeGreaterThanOrEqual(0);
      expect(bucketOf(u, 7)).toBeLessThan(7);
    }
    expect(new Set(urls.map((u) => bucketOf(u, 7))).size).toBe(7);
    // Shard and bucket counts without a common factor: one shard's repositories reach every bucket.
    expect(new Set(urls.filter((u) => shardOf(u, 3) === 0).map((u) => bucketOf(u, 4))).size).toBe(
      4,
    );
  });

  // FNV-1a's low bits depend only on the low bits before a suffix: without mixing, a shard of
  // --shard i/4 reached one bucket of 4, and memory followed the whole file.
  it('spreads one shard over every bucket when shard and bucket counts share a factor (4 and 4)', () => {
    const shard0 = urls.filter((u) => shardOf(u, 4) === 0);
    expect(new Set(shard0.map((u) => bucketOf(u, 4))).size).toBe(4);
  });
});

describe('Spill', () => {
  const dir = tempDir();
  const A = 'https://github.com/acme/a';
  const B = 'https://github.com/acme/b';
  const rec = (url: string, timestamp: number) =>
    JSON.stringify({ repositoryUrl: url, timestamp, values: {} });
  // Line 2 is blank (skipped), 4 broken JSON, 5 a record of no repository; the last line has no newline.
  const lines = [
    rec(A, 1),
    '',
    rec('https://GitHub.COM/acme/b', 2),
    '{broken',
    rec('not a url', 3),
    rec(A, 4),
  ];
  writeFileSync(join(dir, 'big.ndjson'), lines.join('\n'));
  const spills: Spill[] = [];
  afterEach(() => {
    for (const s of spills.splice(0)) s.dispose();
  });

  /** Every bucket's items, read once, and what onRepository heard. */
  async function spillAll(source: StoreSource, buckets: number) {
    const spill = new Spill(buckets);
    spills.push(spill);
    const heard: string[] = [];
    const version = await spill.spill(source, 'big.ndjson', 0, (u) => heard.push(u));
    const byBucket = Array.from({ length: buckets }, (_, b) => spill.items(0, b));
    return { spill, heard, version, byBucket };
  }
  const lineNumbers = (items: ParsedItem[]) => items.map((i) => i.line);

  it('sends each repository to its bucket in file order, and problems to bucket 0', async () => {
    const source = new DirectoryStore(dir);
    const { heard, version, byBucket } = await spillAll(source, 4);
    expect(heard).toEqual([A, B, A]);
    // The version read is the one the listing shows.
    expect(version).toBe((await source.entries()).find((e) => e.name === 'big.ndjson')!.version);
    const a = bucketOf(A, 4);
    expect(
      lineNumbers(
        byBucket[a]!.filter(
          (i) => 'value' in i && (i.value as { repositoryUrl: string }).repositoryUrl === A,
        ),
      ),
    ).toEqual([1, 6]);
    // The record keeps the URL as written; the bucket goes by its canonical form.
    expect(byBucket[bucketOf(B, 4)]!).toContainEqual({
      line: 3,
      value: { repositoryUrl: 'https://GitHub.COM/acme/b', timestamp: 2, values: {} },
    });
    expect(byBucket[0]!).toContainEqual({
      line: 4,
      error: expect.stringMatching(/^broken JSON: /),
    });
    expect(byBucket[0]!).toContainEqual({
      line: 5,
      value: { repositoryUrl: 'not a url', timestamp: 3, values: {} },
    });
    // Nothing lost or doubled: lines 1, 3, 4, 5 and 6, each once.
    expect(byBucket.flatMap(lineNumbers).sort((x, y) => x - y)).toEqual([1, 3, 4, 5, 6]);
    for (const items of byBucket)
      expect(lineNumbers(items)).toEqual([...lineNumbers(items)].sort((x, y) => x - y));
  });

  it('reads the same records whatever the chunks a stream arrives in', async () => {
    const whole = await spillAll(new DirectoryStore(dir), 3);
    // A network stream cuts anywhere, within a line or a UTF-8 sequence: 5-byte chunks here.
    const inner = new DirectoryStore(dir);
    const chopped: StoreSource = Object.assign(Object.create(inner) as DirectoryStore, {
      async readStream(name: string) {
        const s = await inner.readStream(name);
        async function* small() {
          for await (const c of s.chunks)
            for (let i = 0; i < c.length; i += 5) yield c.subarray(i, i + 5);
        }
        return { chunks: small(), version: () => s.version() };
      },
    });
    const bits = await spillAll(chopped, 3);
    expect(bits.byBucket).toEqual(whole.byBucket);
    expect(bits.heard).toEqual(whole.heard);
  });

  it('hands each bucket out once and removes its files on dispose', async () => {
    const { spill, byBucket } = await spillAll(new DirectoryStore(dir), 2);
    expect(byBucket.flat().length).toBe(5);
    expect(spill.items(0, 0)).toEqual([]);
    expect(spill.items(0, 1)).toEqual([]);
    const where = (spill as unknown as { dir: string }).dir;
    expect(readdirSync(where)).toEqual([]);
    spill.dispose();
    expect(existsSync(where)).toBe(false);
  });
});
