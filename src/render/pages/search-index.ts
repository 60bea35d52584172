// The search the header's form runs: a prefix tree of names, written twice from one walk. With
// JavaScript the script reads its small JSON files, so a query downloads a bounded number of
// bytes however many repositories there are; without, a person follows its pages (prefix
// pages, below), one character a click, from the search page to a page that lists the name. Each
// repository is found by its name (the last path segment), each host and group by its own
// name, lower-cased. A file covers one prefix: it holds every entry under it when they are at
// most SHARD_ENTRIES, or else only those whose name is the prefix exactly and the next
// characters that have files of their own (`more`). The script fetches the root (-.json),
// then one file per typed character until it reaches a file without `more`.
//
// A file's name spells its prefix: a-z and 0-9 as themselves, any other UTF-16 unit as "_",
// its hex code and "_", and a "/" after every PREFIX_SEGMENT characters of the prefix, so no
// segment of a key outgrows a file name (site.js spells it the same way). Entries:
// repositories as [url, [shown status per badge, "" for none]], groups as [label, group key,
// repositories]. A file whose own entries are more than SHARD_ENTRIES (a name that many
// repositories share, or a leaf past MAX_NAME) holds the first SHARD_ENTRIES and says how many
// it owns (`own`) and in how many parts (`parts`): the rest are in `<name>.2.json` and so on,
// which the script reads when the query's path or a longer name must be looked for among them.
import type { PagesContext } from './context.ts';
import { counted, href, numberText, text } from './html.ts';
import { byCodeUnits } from './summary.ts';
import { groupItem, repositoryName, type Group } from './groups.ts';
import { pageCount, pager, type Catalogue } from './catalogue.ts';
import { naturalKey } from './natural.ts';

export const SEARCH_DIR = 'search/';
/** Entries one file holds at most. */
export const SHARD_ENTRIES = 200;
/** Characters of a prefix spelled in one segment of its file's key (at most 144 bytes). */
const PREFIX_SEGMENT = 24;
/** The longest spelled name a prefix splits further at: its keys stay far below S3's 1024 bytes. */
const MAX_NAME = 600;

export function shardName(prefix: string): string {
  if (prefix === '') return '-';
  let out = '';
  for (let k = 0; k < prefix.length; k++) {
    const c = prefix.charCodeAt(k);
    if (k > 0 && k % PREFIX_SEGMENT === 0) out += '/';
    out += (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) ? prefix[k] : `_${c.toString(16)}_`;
  }
  return out;
}

/** The key of a prefix's file, or of its part n (from 2) when its own entries take several. */
export const shardKey = (prefix: string, part = 1) => `${SEARCH_DIR}${shardName(prefix)}${part > 1 ? `.${part}` : ''}.json`;

interface Entry {
  token: string;
  /** A repository's index in the catalogue, or a group. */
  repo: number;
  group: Group | null;
  /** Its place in the natural order of addresses (repositories) or in the group list (groups). */
  rank: number;
}

/** One prefix of the tree: one JSON file and, without JavaScript, one page (or a few). */
export interface PrefixNode {
  prefix: string;
  /** Every entry under the prefix: [lo, hi) of the tree's sorted entries. */
  lo: number;
  hi: number;
  /** The node's own entries, [lo, own): all under it (a leaf), or those named the prefix exactly. */
  own: number;
  /** The next characters with nodes of their own and how many entries each holds; null for a leaf. */
  more: Array<{ c: string; n: number }> | null;
}

/**
 * The search's prefix tree, walked once: its nodes, root first, each before its children and
 * the children in code-unit order. Both the JSON files (searchShard) and the pages for finding
 * without JavaScript (prefixPages) are written from these nodes. It needs the names only, so
 * it is built before the pass over the summaries that fills in the statuses.
 */
export class SearchTree {
  readonly entries: Entry[] = [];
  readonly nodes: PrefixNode[] = [];
  private readonly byPrefix = new Map<string, PrefixNode>();

  constructor(cat: Catalogue, groups: readonly Group[]) {
    const entries = this.entries;
    cat.order.forEach((i, rank) => entries.push({ token: repositoryName(cat.urls[i]!).toLowerCase(), repo: i, group: null, rank }));
    groups.forEach((g, rank) => g.parent !== null && entries.push({ token: g.name.toLowerCase(), repo: -1, group: g, rank }));
    // A stable sort: equal names keep the natural order they were pushed in.
    entries.sort((a, b) => byCodeUnits(a.token, b.token));
    const node = (prefix: string, lo: number, hi: number): void => {
      if ((hi - lo <= SHARD_ENTRIES && prefix !== '') || shardName(prefix).length >= MAX_NAME) {
        this.nodes.push({ prefix, lo, hi, own: hi, more: null });
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
      this.nodes.push({ prefix, lo, hi, own: exact, more: runs.map(([c, a, b]) => ({ c, n: b - a })) });
      for (const [c, a, b] of runs) node(prefix + c, a, b);
    };
    node('', 0, entries.length);
    for (const n of this.nodes) this.byPrefix.set(n.prefix, n);
  }

  /**
   * Where a link to `prefix` lands: past each prefix that names nothing itself and has one next
   * character only (t, to, too, tool: tool), a page that would offer a single link.
   */
  landing(prefix: string): PrefixNode {
    let node = this.byPrefix.get(prefix)!;
    while (node.more?.length === 1 && node.own === node.lo) node = this.byPrefix.get(node.prefix + node.more[0]!.c)!;
    return node;
  }
}

/**
 * A node's JSON files. Entries keep the natural order: groups (hosts first, then by depth),
 * then repositories. n: every entry under the prefix (a file with `more` holds only the exact
 * ones). Own entries past SHARD_ENTRIES go to parts 2, 3, …, the first file saying how many
 * entries it owns (`own`) and in how many parts (`parts`).
 */
export function searchShards(ctx: PagesContext, cat: Catalogue, tree: SearchTree, node: PrefixNode): Array<{ key: string; body: string }> {
  const shown = cat.badges.map((_, j) => j);
  const json = (e: Entry): string => (e.group ? JSON.stringify([e.group.label, e.group.key, e.group.members.length]) : JSON.stringify([cat.urls[e.repo]!, shown.map((j) => cat.shown(ctx, e.repo, j))]));
  const own = node.own - node.lo;
  const parts = Math.max(1, Math.ceil(own / SHARD_ENTRIES));
  const files: Array<{ key: string; body: string }> = [];
  for (let part = 1; part <= parts; part++) {
    const slice = tree.entries.slice(node.lo + (part - 1) * SHARD_ENTRIES, Math.min(node.own, node.lo + part * SHARD_ENTRIES));
    const g = slice.filter((e) => e.group).map(json);
    const r = slice.filter((e) => !e.group).map(json);
    let head = `{"prefix":${JSON.stringify(node.prefix)}`;
    if (part === 1) {
      // The root names the badges, in the order of each repository's statuses.
      const badges = node.prefix === '' ? `,"badges":${JSON.stringify(cat.badges)}` : '';
      const more = node.more ? `,"more":${JSON.stringify(node.more.map((m) => m.c))}` : '';
      head += `,"n":${node.hi - node.lo}${parts > 1 ? `,"own":${own},"parts":${parts}` : ''}${badges}${more}`;
    } else head += `,"part":${part}`;
    files.push({ key: shardKey(node.prefix, part), body: `${head},"groups":[${g.join(',')}],"repositories":[${r.join(',')}]}\n` });
  }
  return files;
}

// The pages for finding by name without JavaScript: the root's is the search page itself
// (search/), every other prefix's is search/<shard name>/ (index.html, further pages n.html
// when a leaf past MAX_NAME holds more than SHARD_ENTRIES, or a prefix names that many
// exactly). A page lists the node's own entries, groups then repositories, each in natural
// order of its name (then of its address), and links to the next characters' pages.

/** The path of a prefix's page n (from 1), as an href path; the root's is the search page. */
export function prefixPath(prefix: string, n = 1): string {
  if (prefix === '') return SEARCH_DIR;
  return `${SEARCH_DIR}${shardName(prefix)}/${n <= 1 ? '' : `${n}.html`}`;
}

export function prefixKey(prefix: string, n = 1): string {
  return n <= 1 ? `${prefixPath(prefix)}index.html` : prefixPath(prefix, n);
}

const UNSHOWN = /[\p{C}\p{Z}]/gu;

/** A prefix as shown: characters that draw nothing or move text (controls, spaces, bidi controls, half a surrogate pair) by code point. */
export function shownPrefix(prefix: string): string {
  return prefix.replace(UNSHOWN, (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}

/** How many pages a node's own entries take. */
export function prefixPageCount(node: PrefixNode): number {
  return pageCount(node.own - node.lo, SHARD_ENTRIES);
}

/** A node's own entries in the order its page lists them: groups, then repositories, each in natural order of its name, then of its address. */
function pageOrder(cat: Catalogue, tree: SearchTree, node: PrefixNode): Entry[] {
  const own = tree.entries.slice(node.lo, node.own);
  const name = (e: Entry) => (e.group ? e.group.name : repositoryName(cat.urls[e.repo]!));
  const keys = new Map(own.map((e) => [e, naturalKey(name(e))]));
  return own.sort((a, b) => (a.group ? 0 : 1) - (b.group ? 0 : 1) || byCodeUnits(keys.get(a)!, keys.get(b)!) || byCodeUnits(name(a), name(b)) || a.rank - b.rank);
}

type Render = (title: string, description: string, main: string) => string;

/** The crumbs from the search page to a prefix: one link per character typed. */
function prefixCrumbs(ctx: PagesContext, prefix: string): string {
  const items = [`<li><a href="${href(ctx.env, SEARCH_DIR)}">Find a repository</a></li>`];
  for (let k = 1; k <= prefix.length; k++) {
    const p = prefix.slice(0, k);
    items.push(`<li><a href="${href(ctx.env, prefixPath(p))}"${k === prefix.length ? ' aria-current="page"' : ''}>${text(shownPrefix(p))}</a></li>`);
  }
  return `<nav class="crumbs" aria-label="Breadcrumb"><ol>${items.join('')}</ol></nav>`;
}

const names = (n: number) => counted(n, 'name', 'names');

/** The links to the next characters' pages (each as far as the names share it), with how many names each holds. */
function nextLinks(ctx: PagesContext, tree: SearchTree, node: PrefixNode): string {
  const items = node.more!.map((m) => {
    const to = tree.landing(node.prefix + m.c).prefix;
    return `<li><a href="${href(ctx.env, prefixPath(to))}">${text(shownPrefix(to))}</a> <span class="count">${names(m.n)}</span></li>`;
  });
  return `<ul class="group-list prefix-list">${items.join('')}</ul>`;
}

/** Page n of a node's own entries: its groups and its repositories with their badges. */
function ownEntries(ctx: PagesContext, cat: Catalogue, listed: readonly Entry[], h: 'h2' | 'h3' | 'h4'): string {
  const groups = listed.filter((e) => e.group).map((e) => groupItem(ctx, e.group!, e.group!.label));
  const repos = listed.filter((e) => !e.group).map((e) => e.repo);
  return (groups.length > 0 ? `<${h}>Hosts and groups</${h}><ul class="group-list">${groups.join('')}</ul>` : '') + (repos.length > 0 ? `<${h}>Repositories</${h}>${cat.list(ctx, repos)}` : '');
}

/** What a prefix's page n lists: its own entries, then (on the first) the next characters. */
function prefixBody(ctx: PagesContext, cat: Catalogue, tree: SearchTree, node: PrefixNode, n: number, order: Entry[]): string {
  const listed = order.slice((n - 1) * SHARD_ENTRIES, n * SHARD_ENTRIES);
  const shown = text(shownPrefix(node.prefix));
  if (!node.more) return ownEntries(ctx, cat, listed, 'h2');
  const exact = listed.length > 0 ? `<h2 id="exact">Named exactly ${shown}</h2>${ownEntries(ctx, cat, listed, 'h3')}` : '';
  const next = node.more.length > 0 && n === 1 ? `<h2 id="next">Names starting ${shown} and more</h2>${nextLinks(ctx, tree, node)}` : '';
  return `${exact}${next}`;
}

/** Every page of a prefix other than the root (whose part is in the search page). */
export function* prefixPages(ctx: PagesContext, cat: Catalogue, tree: SearchTree, node: PrefixNode, render: Render): Generator<{ key: string; body: string }> {
  const order = pageOrder(cat, tree, node);
  const pages = prefixPageCount(node);
  const total = node.hi - node.lo;
  const flatPrefix = shownPrefix(node.prefix);
  for (let p = 1; p <= pages; p++) {
    const nav = (after: string) => pager(ctx, `Pages of names starting ${flatPrefix}${after}`, p, pages, (k) => prefixPath(node.prefix, k));
    const main =
      prefixCrumbs(ctx, node.prefix) +
      `<h1>Names starting ${text(flatPrefix)}${p > 1 ? `, page ${p}` : ''}</h1>` +
      `<p class="lead">${numberText(total)} ${total === 1 ? 'repository, host or group whose name starts' : 'repositories, hosts and groups whose names start'} with ${text(flatPrefix)}. A repository's name is the last part of its address.</p>` +
      nav('') +
      prefixBody(ctx, cat, tree, node, p, order) +
      nav(', after the list');
    yield { key: prefixKey(node.prefix, p), body: render(`Names starting ${flatPrefix}${p > 1 ? `, page ${p}` : ''}`, `Repositories, hosts and groups whose names start with ${flatPrefix}.`, main) };
  }
}

/**
 * The page the header's form goes to. With JavaScript it shows what matches the query as one
 * types; without, it leads to the root's prefix pages (find by name) and to the hosts.
 */
export function searchPageMain(ctx: PagesContext, cat: Catalogue, tree: SearchTree, hosts: string, total: number): string {
  const root = tree.nodes[0]!;
  const byName =
    root.more && root.more.length > 0
      ? `<p>Pick how the repository's name (the last part of its address), or a host's or group's name, starts, then what follows, until a page lists it with its badges.</p>${nextLinks(ctx, tree, root)}`
      : '<p>No repository has been scanned yet.</p>';
  // A name with no characters at all (an address without a path): listed here, as the root's own.
  const unnamed = root.own > root.lo ? `<h3>Without a name</h3>${ownEntries(ctx, cat, pageOrder(cat, tree, root).slice(0, SHARD_ENTRIES), 'h4')}` : '';
  return (
    `<h1>Find a repository</h1>` +
    `<form class="find find-page" role="search" aria-label="Search repositories" action="${href(ctx.env, SEARCH_DIR)}" method="get">` +
    `<label for="find-page-q">The name of a repository, owner or group, or owner/name</label>` +
    `<input id="find-page-q" name="q" type="search" autocomplete="off" spellcheck="false"><button type="submit">Find</button></form>` +
    `<div id="find-page-results" class="find-results" aria-live="polite"></div>` +
    `<p>With JavaScript the results show as you type. Without it, find a name letter by letter, or browse.</p>` +
    `<section aria-labelledby="by-name"><h2 id="by-name">Find by name</h2>${byName}${unnamed}</section>` +
    `<section aria-labelledby="browse"><h2 id="browse">Browse ${counted(total, 'repository', 'repositories')}</h2>` +
    `<p>Pick the host, then the owner or group, or read <a href="${href(ctx.env, 'repositories/')}">every repository in natural order</a>.</p>` +
    `${hosts}</section>`
  );
}
