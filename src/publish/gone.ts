// Repositories that left the store (every record of theirs deleted) while their files are
// still published: their API files under `api/v1/repositories/<enc>/` and their pages under
// `repositories/<enc>/`. `build --prune` removes them; `plan` counts them.
import {
  API_PREFIX,
  PAGES_PREFIX,
  repositoryPagesPrefix,
  repositoryPrefix,
} from '../model/layout.ts';
import type { Sink } from './sink.ts';

/** The repository URL a key segment `<enc>` stands for; undefined for anything else (`page`, a stray name). */
export function repositoryOfSegment(segment: string): string | undefined {
  let url: string;
  try {
    url = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  // Repository URLs carry a scheme (https://…); `repositories/page/` and other names do not.
  return encodeURIComponent(url) === segment && /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : undefined;
}

/** Repository URLs with files under either prefix of the sink, that `include` (this shard) accepts. */
export async function publishedRepositories(
  sink: Sink,
  include: (url: string) => boolean = () => true,
): Promise<Set<string>> {
  const urls = new Set<string>();
  for (const prefix of [API_PREFIX, PAGES_PREFIX]) {
    for (const segment of await childrenOf(sink, prefix)) {
      const url = repositoryOfSegment(segment);
      if (url !== undefined && include(url)) urls.add(url);
    }
  }
  return urls;
}

async function childrenOf(sink: Sink, prefix: string): Promise<string[]> {
  if (sink.children) return sink.children(prefix);
  const names = new Set<string>();
  for (const key of await sink.list(prefix)) {
    const slash = key.indexOf('/', prefix.length);
    if (slash > prefix.length) names.add(key.slice(prefix.length, slash));
  }
  return [...names];
}

/** The two prefixes a repository's files live under: its API files and its pages. */
function prefixesOf(repositoryUrl: string): [string, string] {
  const enc = encodeURIComponent(repositoryUrl);
  return [repositoryPrefix(enc), repositoryPagesPrefix(enc)];
}

/** Every published key of a repository: its API files and its pages. */
export async function keysOfRepository(sink: Sink, repositoryUrl: string): Promise<string[]> {
  return (await Promise.all(prefixesOf(repositoryUrl).map((p) => sink.list(p)))).flat();
}

/** Removes every file of these repositories and, on a directory, their emptied directories. */
export async function removeRepositories(
  sink: Sink,
  repositoryUrls: Iterable<string>,
  counts: { removed: number },
): Promise<void> {
  for (const url of repositoryUrls) {
    const keys = await keysOfRepository(sink, url);
    if (keys.length > 0) await sink.remove(keys);
    counts.removed += keys.length;
    for (const prefix of prefixesOf(url)) await sink.removeEmptyDirectories?.(prefix);
  }
}

/** What a build knows of the store: see IncrementalBuild (src/incremental/incremental.ts). */
export interface StoreKnowledge {
  goneByState(): Set<string> | undefined;
  presentRepositories(): Set<string> | undefined;
}

/**
 * Repositories of this shard whose files are published but that no store file names: from
 * the build state when it tracks them, else from the output's listing of both prefixes.
 * undefined when a store file could not be read and its repositories are unknown (nothing
 * may be removed then: they may still be there).
 */
export async function goneRepositories(
  sink: Sink,
  known: StoreKnowledge,
  include?: (url: string) => boolean,
): Promise<string[] | undefined> {
  const byState = known.goneByState();
  if (byState) return [...byState].sort();
  const present = known.presentRepositories();
  if (!present) return undefined;
  return [...(await publishedRepositories(sink, include))]
    .filter((url) => !present.has(url))
    .sort();
}
