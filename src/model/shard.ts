// A stable partition of repositories for `--shard i/n`: the same URL lands in the same shard
// on every machine, so n separate builds write disjoint keys that together make one site.

export interface Shard {
  index: number;
  count: number;
}

/** "i/n" with 0 ≤ i < n; undefined when the text is not that. */
export function parseShard(text: string): Shard | undefined {
  const m = /^(\d{1,6})\/(\d{1,6})$/.exec(text);
  if (!m) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return count >= 1 && index < count ? { index, count } : undefined;
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
