// A stable partition of repositories for `--shard i/n`: the same URL lands in the same shard
// on every machine, so n separate builds write disjoint keys that together make one site.

export interface Shard {
  index: number;
  count: number;
}

/** Shard counts are capped so that a typo (an extra digit or two) is caught, not obeyed. */
export const MAX_SHARDS = 999_999;

/** "i/n" with 0 ≤ i < n ≤ MAX_SHARDS, or what is wrong with the text. */
export function parseShard(text: string): Shard | { problem: string } {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m) return { problem: 'expected i/n, two whole numbers, e.g. --shard 0/3' };
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count > MAX_SHARDS)
    return { problem: `at most ${MAX_SHARDS} shards (n has at most 6 digits); use a smaller n` };
  if (count < 1) return { problem: 'n must be at least 1, e.g. --shard 0/1' };
  if (index >= count)
    return {
      problem: `expected i/n with 0 ≤ i < n: shards of ${count} are numbered 0 to ${count - 1}`,
    };
  return { index, count };
}

/** FNV-1a over the canonical URL's UTF-16 code units. */
export function shardOf(repositoryUrl: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < repositoryUrl.length; i++) {
    h ^= repositoryUrl.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % count;
}

export function inShard(shard: Shard): (repositoryUrl: string) => boolean {
  return (url) => shardOf(url, shard.count) === shard.index;
}
