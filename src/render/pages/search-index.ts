// The search the header's form runs with JavaScript: a prefix tree of small JSON files, so a
// query downloads a bounded number of bytes however many repositories there are. Each
// repository is found by its name (the last path segment), each host and group by its own
// name, lower-cased. A file covers one prefix: it holds every entry under it when they are at
// most SHARD_ENTRIES, or else only those whose name is the prefix exactly and the next
// characters that have files of their own (`more`). The script fetches the root (-.json),
// then one file per typed character until it reaches a file without `more`.
//
// A file's name spells its prefix: a-z and 0-9 as themselves, any other UTF-16 unit as "_",
// its hex code and "_" (site.js spells it the same way). Entries: repositories as
// [url, [shown status per badge, "" for none]], groups as [label, group key, repositories].
import type { PagesContext } from './context.ts';
import { href } from './html.ts';
import { byCodeUnits } from './summary.ts';
import { repositoryName, type Group } from './groups.ts';
import type { Catalogue } from './catalogue.ts';

export const SEARCH_DIR = 'search/';
/** Entries one file holds at most. */
export const SHARD_ENTRIES = 200;
/** Longest prefix with a file: past it a file holds its first SHARD_ENTRIES entries only. */
const MAX_PREFIX = 24;

export function shardName(prefix: string): string {
  if (prefix === '') return '-';
  let out = '';
  for (let k = 0; k < prefix.length; k++) {
    const c = prefix.charCodeAt(k);
    out += (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) ? prefix[k] : `_${c.toString(16)}_`;
  }
  return out;
}

export const shardKey = (prefix: string) => `${SEARCH_DIR}${shardName(prefix)}.json`;

interface Entry {
  token: string;
  /** A repository's index in the catalogue, or a group. */
  repo: number;
  group: Group | null;
}

/**
 * The files of the search, in key order of their prefixes (root first). Entries of a file keep
 * the natural order: groups (hosts first, then by depth), then repositories.
 */
export function* searchShards(ctx: PagesContext, cat: Catalogue, groups: readonly Group[]): Generator<{ key: string; body: string }> {
  const entries: Entry[] = [];
  for (const i of cat.order) entries.push({ token: repositoryName(cat.urls[i]!).toLowerCase(), repo: i, group: null });
  for (const g of groups) if (g.parent !== null) entries.push({ token: g.name.toLowerCase(), repo: -1, group: g });
  // A stable sort: equal names keep the natural order they were pushed in.
  entries.sort((a, b) => byCodeUnits(a.token, b.token));
  const shown = cat.badges.map((_, j) => j);
  const json = (e: Entry): string => (e.group ? JSON.stringify([e.group.label, e.group.key, e.group.members.length]) : JSON.stringify([cat.urls[e.repo]!, shown.map((j) => cat.shown(ctx, e.repo, j))]));
  // n: every entry under the prefix (a file with `more` holds only the exact ones).
  const file = (prefix: string, lo: number, hi: number, n: number, more: string[] | null): { key: string; body: string } => {
    const slice = entries.slice(lo, Math.min(hi, lo + SHARD_ENTRIES));
    const g = slice.filter((e) => e.group).map(json);
    const r = slice.filter((e) => !e.group).map(json);
    // The root names the badges, in the order of each repository's statuses.
    const badges = prefix === '' ? `,"badges":${JSON.stringify(cat.badges)}` : '';
    const head = `{"prefix":${JSON.stringify(prefix)},"n":${n}${badges}${more ? `,"more":${JSON.stringify(more)}` : ''}`;
    return { key: shardKey(prefix), body: `${head},"groups":[${g.join(',')}],"repositories":[${r.join(',')}]}\n` };
  };
  function* node(prefix: string, lo: number, hi: number): Generator<{ key: string; body: string }> {
    if ((hi - lo <= SHARD_ENTRIES && prefix !== '') || prefix.length >= MAX_PREFIX) {
      yield file(prefix, lo, hi, hi - lo, null);
      return;
    }
    const k = prefix.length;
    let exact = lo;
    while (exact < hi && entries[exact]!.token.length === k) exact++;
    const runs: Array<[string, number, number]> = [];
    for (let a = exact; a < hi; ) {
      const c = entries[a]!.token[k]!;
      let b = a + 1;
      while (b < hi && entries[b]!.token[k] === c) b++;
      runs.push([c, a, b]);
      a = b;
    }
    yield file(
      prefix,
      lo,
      exact,
      hi - lo,
      runs.map((r) => r[0]),
    );
    for (const [c, a, b] of runs) yield* node(prefix + c, a, b);
  }
  yield* node('', 0, entries.length);
}

/** The page the header's form goes to: without JavaScript, where to look; with it, the results. */
export function searchPageMain(ctx: PagesContext, hosts: string, total: number): string {
  return (
    `<h1>Find a repository</h1>` +
    `<form class="find find-page" role="search" aria-label="Search repositories" action="${href(ctx.env, SEARCH_DIR)}" method="get">` +
    `<label for="find-page-q">The name of a repository, owner or group, or owner/name</label>` +
    `<input id="find-page-q" name="q" type="search" autocomplete="off" spellcheck="false"><button type="submit">Find</button></form>` +
    `<div id="find-page-results" class="find-results" aria-live="polite"></div>` +
    `<section aria-labelledby="browse"><h2 id="browse">Browse ${total} ${total === 1 ? 'repository' : 'repositories'}</h2>` +
    `<p>Without JavaScript this page cannot search: pick the host, then the owner or group, or read <a href="${href(ctx.env, 'repositories/')}">every repository in natural order</a>.</p>` +
    `${hosts}</section>`
  );
}
