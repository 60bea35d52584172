// --shard i/n: parsing, the union of n shards equals one build, and the CLI's refusal.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore, repositoryUrl } from '../scripts/lib/synthetic-store.ts';
import { inShard, parseShard, shardOf } from '../src/model/shard.ts';
import { buildSite, readTree } from './helpers/site.ts';
import { runCli } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const store = join(dir, 'store');
generateStore({ repos: 40, scans: 3, out: store, seed: 7 });

describe('--shard i/n', () => {
  it('parses only i/n with 0 ≤ i < n ≤ 999999, and says what is wrong otherwise', () => {
    expect(parseShard('0/3')).toEqual({ index: 0, count: 3 });
    expect(parseShard('999998/999999')).toEqual({ index: 999998, count: 999999 });
    for (const bad of ['3/3', '0/0', 'a/b', '1', '-1/3', '1/3/4', '', '1/1000000'])
      expect(parseShard(bad), bad).toHaveProperty('problem');
    expect(parseShard('1/1000000')).toEqual({
      problem: expect.stringMatching(/at most 999999 shards/),
    });
    expect(parseShard('3/3')).toEqual({
      problem: expect.stringMatching(/0 ≤ i < n: shards of 3 are numbered 0 to 2/),
    });
  });

  it('n shards together write exactly the files of one build, never the same key twice', async () => {
    const small = join(dir, 'store-shards');
    generateStore({ repos: 21, scans: 1, out: small, seed: 3 });
    const whole = readTree(
      (await buildSite({ store: small, out: join(dir, 'whole') }), join(dir, 'whole')),
    );
    for (const n of [1, 3, 7]) {
      const union = new Map<string, Buffer>();
      for (let i = 0; i < n; i++) {
        const out = join(dir, `shard-${n}-${i}`);
        await buildSite({ store: small, out, include: inShard({ index: i, count: n }) });
        for (const [k, v] of readTree(out)) {
          expect(union.has(k), `${k} written by two shards`).toBe(false);
          union.set(k, v);
        }
      }
      expect(new Map([...union].sort(([a], [b]) => (a < b ? -1 : 1)))).toEqual(whole);
    }
    // Every shard of 7 gets some repositories: the hash spreads.
    expect(new Set(Array.from({ length: 40 }, (_, i) => shardOf(repositoryUrl(i), 7))).size).toBe(
      7,
    );
  });

  it('the CLI refuses a bad --shard with exit 2', async () => {
    const r = runCli(['build', '--store', store, '--out', join(dir, 'x'), '--shard', '3/3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--shard "3\/3": expected i\/n with 0 ≤ i < n/);
    const capped = await runCommand([
      'build',
      '--store',
      store,
      '--out',
      join(dir, 'x'),
      '--shard',
      '1/1000000',
    ]);
    expect(capped.code).toBe(2);
    expect(capped.stderr).toMatch(
      /--shard "1\/1000000": at most 999999 shards \(n has at most 6 digits\)/,
    );
  });
});
