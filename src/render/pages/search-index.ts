// The search the header's form runs: prefix trees of names, each written from one walk. With
// JavaScript the script reads small JSON files, so a query downloads a bounded number of bytes
// however many repositories there are; without, a person follows pages (prefix pages, below),
// one character a click, from the search page to a page that lists the name. Each repository
// is found by its name (the last path segment), each host and group by its own name,
// lower-cased: the JSON files by any part of it (their tree holds every suffix of every name,
// so "ssh" walks to "ssh2", a suffix of libssh2), the pages by its start. A file covers one
// prefix: it holds every entry under it when they are at most SHARD_ENTRIES, or else only those
// whose name is the prefix exactly and the next characters that have files of their own
// (`more`); the names that end with such a prefix are in a file of their own (`ends`), which
// only a query that stops there reads. The script fetches the root (-.json), then one file per
// typed character until it reaches a file without `more`.
//
// A file's name spells its prefix: a-z and 0-9 as themselves, any other UTF-16 unit as "_",
// its hex code and "_", and a "/" after every PREFIX_SEGMENT characters of the prefix, so no
// segment of a key outgrows a file name (site.js spells it the same way). Entries:
// repositories as [url, [shown status per badge, "" for none]], groups as [label, group key,
// repositories]. A file whose names equal to its prefix are more than SHARD_ENTRIES (a name
// that many repositories share, or a leaf past MAX_NAME) holds the first SHARD_ENTRIES and says
// how many it owns (`own`) and in how many parts (`parts`): the rest are in `<name>.2.json` and
// so on, which the script reads when the query's path or a longer name must be looked for among
// them.
import type { PagesContext } from './context.ts';
import { href, text } from './html.ts';
import { counted } from '../../model/plural.ts';
import { byCodeUnits } from './summary.ts';
import { groupItem, repositoryName, type Group } from './groups.ts';
import { pageCount, pager, type Catalogue } from './catalogue.ts';
import { naturalKey } from './natural.ts';

const SEARCH_DIR = 'search/';
/** Entries one file holds at most. */
const SHARD_ENTRIES = 200;
/** Characters of a prefix spelled in one segment of its file's key (at most 144 bytes). */
const PREFIX_SEGMENT = 24;
/** The longest spelled name a prefix splits further at: its keys stay far below S3's 1024 bytes. */
const MAX_NAME = 600;

function shardName(prefix: string): string {
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
export const shardKey = (prefix: string, part = 1) =>
  `${SEARCH_DIR}${shardName(prefix)}${part > 1 ? `.${part}` : ''}.json`;

interface Entry {
  /** Where in its name the entry starts: 0 for the name itself, more for one of its suffixes. */
  at: number;
  /** One number per repository (its index) or group (after the repositories), for repeats. */
  id: number;
  /** A repository's index in the catalogue, or a group. */
  repo: number;
  group: Group | null;
  /** Its place in the natural order of addresses (repositories) or in the group list (groups). */
  rank: number;
}

/** One prefix of the tree: one JSON file and, without JavaScript, one page (or a few). */
interface PrefixNode {
  prefix: string;
  /** Every entry under the prefix: [lo, hi) of the tree's entries. */
  lo: number;
  hi: number;
  /** The node's own entries, [lo, own): all under it (a leaf), or those whose rest is the prefix exactly. */
  own: number;
  /** The next characters with nodes of their own and how many names each holds; null for a leaf. */
  more: Array<{ c: string; n: number }> | null;
  /** How many repositories and groups are under the prefix (each once, however many suffixes). */
  n: number;
}

/**
 * The search's prefix tree, walked once: its nodes, root first, each before its children and
 * the children in code-unit order. The JSON files (searchShards) are written from a tree of
 * every suffix of every name (`substrings`: a query finds any part of a name), the pages for
 * finding without JavaScript (prefixPages) from one of the names alone. It needs the names
 * only, so it is built before the pass over the summaries that fills in the statuses.
 *
 * Its entries are two numbers each (whose, and from where in the name), in typed arrays: a
 * tree of substrings holds about ten a repository. Each node's range is split in place by the
 * next character, stably, so every range keeps the natural order the entries were put in.
 */
export class SearchTree {
  readonly nodes: PrefixNode[] = [];
  private readonly byPrefix = new Map<string, PrefixNode>();
  private readonly ids: Int32Array;
  private readonly ats: Int32Array;
  private readonly rankOf: Int32Array;
  private readonly groups: readonly Group[];

  constructor(cat: Catalogue, groups: readonly Group[], substrings = false) {
    this.groups = groups;
    const repos = cat.urls.length;
    const names: Array<string | null> = cat.urls.map((u) => repositoryName(u).toLowerCase());
    for (const g of groups) names.push(g.parent !== null ? g.name.toLowerCase() : null);
    this.rankOf = new Int32Array(repos + groups.length);
    cat.order.forEach((i, rank) => (this.rankOf[i] = rank));
    groups.forEach((_, rank) => (this.rankOf[repos + rank] = rank));
    const suffixes = (name: string) => (substrings ? Math.max(1, name.length) : 1);
    let total = 0;
    for (const name of names) if (name !== null) total += suffixes(name);
    const ids = (this.ids = new Int32Array(total));
    const ats = (this.ats = new Int32Array(total));
    let e = 0;
    const add = (id: number) => {
      const name = names[id];
      if (name !== null && name !== undefined)
        for (let at = 0; at < suffixes(name); at++) (ids[e] = id), (ats[e++] = at);
    };
    for (const i of cat.order) add(i);
    for (let g = 0; g < groups.length; g++) add(repos + g);
    // How many repositories and groups [lo, hi) holds: each once, though several of its suffixes may be there.
    const seen = new Int32Array(substrings ? names.length : 0);
    let stamp = 0;
    const distinct = (lo: number, hi: number): number => {
      if (!substrings) return hi - lo;
      stamp++;
      let n = 0;
      for (let k = lo; k < hi; k++) if (seen[ids[k]!] !== stamp) (seen[ids[k]!] = stamp), n++;
      return n;
    };
    // Scratch for the split: each entry's next character (-1: its rest is the prefix), and the
    // count per character (+1), reset after each split.
    const code = new Int32Array(total);
    const count = new Int32Array(0x10001);
    const tmpIds = new Int32Array(total);
    const tmpAts = new Int32Array(total);
    const node = (prefix: string, lo: number, hi: number): void => {
      if ((hi - lo <= SHARD_ENTRIES && prefix !== '') || shardName(prefix).length >= MAX_NAME) {
        this.nodes.push({ prefix, lo, hi, own: hi, more: null, n: distinct(lo, hi) });
        return;
      }
      const k = prefix.length;
      const used: number[] = [];
      for (let j = lo; j < hi; j++) {
        const name = names[ids[j]!]!;
        const c = ats[j]! + k < name.length ? name.charCodeAt(ats[j]! + k) : -1;
        code[j] = c;
        if (count[c + 1] === 0) used.push(c);
        count[c + 1] = count[c + 1]! + 1;
      }
      used.sort((a, b) => a - b);
      // Where each character's run starts, then the entries moved there in their order.
      const runs: Array<[string, number, number]> = [];
      let exact = lo;
      let at = lo;
      for (const c of used) {
        const n = count[c + 1]!;
        count[c + 1] = at;
        if (c < 0) exact = lo + n;
        else runs.push([String.fromCharCode(c), at, at + n]);
        at += n;
      }
      for (let j = lo; j < hi; j++) {
        const to = count[code[j]! + 1]!;
        count[code[j]! + 1] = to + 1;
        tmpIds[to] = ids[j]!;
        tmpAts[to] = ats[j]!;
      }
      ids.set(tmpIds.subarray(lo, hi), lo);
      ats.set(tmpAts.subarray(lo, hi), lo);
      for (const c of used) count[c + 1] = 0;
      this.nodes.push({
        prefix,
        lo,
        hi,
        own: exact,
        more: runs.map(([c, a, b]) => ({ c, n: distinct(a, b) })),
        n: distinct(lo, hi),
      });
      for (const [c, a, b] of runs) node(prefix + c, a, b);
    };
    node('', 0, total);
    for (const n of this.nodes) this.byPrefix.set(n.prefix, n);
  }

  /** Entries [lo, hi), in the tree's order. */
  slice(lo: number, hi: number): Entry[] {
    const repos = this.rankOf.length - this.groups.length;
    const out: Entry[] = [];
    for (let k = lo; k < hi; k++) {
      const id = this.ids[k]!;
      out.push({
        at: this.ats[k]!,
        id,
        repo: id < repos ? id : -1,
        group: id < repos ? null : this.groups[id - repos]!,
        rank: this.rankOf[id]!,
      });
    }
    return out;
  }

  /**
   * Where a link to `prefix` lands: past each prefix that names nothing itself and has one next
   * character only (t, to, too, tool: tool), a page that would offer a single link.
   */
  landing(prefix: string): PrefixNode {
    let node = this.byPrefix.get(prefix)!;
    while (node.more?.length === 1 && node.own === node.lo)
      node = this.byPrefix.get(node.prefix + node.more[0]!.c)!;
    return node;
  }
}

/** The key of the file of names that end with a prefix (and are longer), for a query that stops there. */
export const endsKey = (prefix: string) => `${SEARCH_DIR}${shardName(prefix)}.ends.json`;

/**
 * A node's JSON files. A leaf holds every repository and group under its prefix, once each,
 * those whose name starts with it first; a node with `more` holds those named the prefix
 * exactly (n: every repository and group under the prefix, each once). Entries named the
 * prefix past SHARD_ENTRIES go to parts 2, 3, …, the first file saying how many entries it owns
 * (`own`) and in how many parts (`parts`). The names longer than the prefix that end with it
 * (`ends`: how many) are listed in a file of their own, `<prefix>.ends.json`, at most
 * SHARD_ENTRIES of them: only a query that stops at this prefix reads it, not every query that
 * passes through. In each file groups come before repositories, each in natural order.
 */
export function searchShards(
  ctx: PagesContext,
  cat: Catalogue,
  tree: SearchTree,
  node: PrefixNode,
): Array<{ key: string; body: string }> {
  const shown = cat.badges.map((_, j) => j);
  const json = (e: Entry): string =>
    e.group
      ? JSON.stringify([e.group.label, e.group.key, e.group.members.length])
      : JSON.stringify([cat.urls[e.repo]!, shown.map((j) => cat.shown(ctx, e.repo, j))]);
  const body = (head: string, slice: readonly Entry[]) =>
    `${head},"groups":[${slice
      .filter((e) => e.group)
      .map(json)
      .join(',')}],"repositories":[${slice
      .filter((e) => !e.group)
      .map(json)
      .join(',')}]}\n`;
  // Whole names first (a stable sort), then each repository or group at its first place only.
  const seen = new Set<number>();
  const owned = tree
    .slice(node.lo, node.own)
    .sort((a, b) => (a.at === 0 ? 0 : 1) - (b.at === 0 ? 0 : 1))
    .filter((e) => !seen.has(e.id) && (seen.add(e.id), true));
  // A leaf's entries all go in its parts; a node with `more` parts only the names equal to its prefix.
  const paged = node.more ? owned.filter((e) => e.at === 0) : owned;
  const ending = node.more ? owned.filter((e) => e.at !== 0) : [];
  const parts = Math.max(1, Math.ceil(paged.length / SHARD_ENTRIES));
  const files: Array<{ key: string; body: string }> = [];
  for (let part = 1; part <= parts; part++) {
    let head = `{"prefix":${JSON.stringify(node.prefix)}`;
    if (part === 1) {
      // The root names the badges, in the order of each repository's statuses.
      const badges = node.prefix === '' ? `,"badges":${JSON.stringify(cat.badges)}` : '';
      const more = node.more ? `,"more":${JSON.stringify(node.more.map((m) => m.c))}` : '';
      head += `,"n":${node.n}${parts > 1 ? `,"own":${paged.length},"parts":${parts}` : ''}${ending.length > 0 ? `,"ends":${ending.length}` : ''}${badges}${more}`;
    } else head += `,"part":${part}`;
    files.push({
      key: shardKey(node.prefix, part),
      body: body(head, paged.slice((part - 1) * SHARD_ENTRIES, part * SHARD_ENTRIES)),
    });
  }
  if (ending.length > 0)
    files.push({
      key: endsKey(node.prefix),
      body: body(
        `{"prefix":${JSON.stringify(node.prefix)},"ends":${ending.length}`,
        ending.slice(0, SHARD_ENTRIES),
      ),
    });
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

function prefixKey(prefix: string, n = 1): string {
  return n <= 1 ? `${prefixPath(prefix)}index.html` : prefixPath(prefix, n);
}

const UNSHOWN = /[\p{C}\p{Z}]/gu;

/** A prefix as shown: characters that draw nothing or move text (controls, spaces, bidi controls, half a surrogate pair) by code point. */
function shownPrefix(prefix: string): string {
  return prefix.replace(
    UNSHOWN,
    (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`,
  );
}

/** How many pages a node's own entries take. */
function prefixPageCount(node: PrefixNode): number {
  return pageCount(node.own - node.lo, SHARD_ENTRIES);
}

/** A node's own entries in the order its page lists them: groups, then repositories, each in natural order of its name, then of its address. */
function pageOrder(cat: Catalogue, tree: SearchTree, node: PrefixNode): Entry[] {
  const own = tree.slice(node.lo, node.own);
  const name = (e: Entry) => (e.group ? e.group.name : repositoryName(cat.urls[e.repo]!));
  const keys = new Map(own.map((e) => [e, naturalKey(name(e))]));
  return own.sort(
    (a, b) =>
      (a.group ? 0 : 1) - (b.group ? 0 : 1) ||
      byCodeUnits(keys.get(a)!, keys.get(b)!) ||
      byCodeUnits(name(a), name(b)) ||
      a.rank - b.rank,
  );
}

type Render = (title: string, description: string, main: string) => string;

/** The crumbs from the search page to a prefix: one link per character typed. */
function prefixCrumbs(ctx: PagesContext, prefix: string): string {
  const items = [`<li><a href="${href(ctx.env, SEARCH_DIR)}">Find a repository</a></li>`];
  for (let k = 1; k <= prefix.length; k++) {
    const p = prefix.slice(0, k);
    items.push(
      `<li><a href="${href(ctx.env, prefixPath(p))}"${k === prefix.length ? ' aria-current="page"' : ''}>${text(shownPrefix(p))}</a></li>`,
    );
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
function ownEntries(
  ctx: PagesContext,
  cat: Catalogue,
  listed: readonly Entry[],
  h: 'h2' | 'h3' | 'h4',
): string {
  const groups = listed.filter((e) => e.group).map((e) => groupItem(ctx, e.group!, e.group!.label));
  const repos = listed.filter((e) => !e.group).map((e) => e.repo);
  return (
    (groups.length > 0
      ? `<${h}>Hosts and groups</${h}><ul class="group-list">${groups.join('')}</ul>`
      : '') + (repos.length > 0 ? `<${h}>Repositories</${h}>${cat.list(ctx, repos)}` : '')
  );
}

/** What a prefix's page n lists: its own entries, then (on the first) the next characters. */
function prefixBody(
  ctx: PagesContext,
  cat: Catalogue,
  tree: SearchTree,
  node: PrefixNode,
  n: number,
  order: Entry[],
): string {
  const listed = order.slice((n - 1) * SHARD_ENTRIES, n * SHARD_ENTRIES);
  const shown = text(shownPrefix(node.prefix));
  if (!node.more) return ownEntries(ctx, cat, listed, 'h2');
  const exact =
    listed.length > 0
      ? `<h2 id="exact">Named exactly ${shown}</h2>${ownEntries(ctx, cat, listed, 'h3')}`
      : '';
  const next =
    node.more.length > 0 && n === 1
      ? `<h2 id="next">Names starting ${shown} and more</h2>${nextLinks(ctx, tree, node)}`
      : '';
  return `${exact}${next}`;
}

/** Every page of a prefix other than the root (whose part is in the search page). */
export function* prefixPages(
  ctx: PagesContext,
  cat: Catalogue,
  tree: SearchTree,
  node: PrefixNode,
  render: Render,
): Generator<{ key: string; body: string }> {
  const order = pageOrder(cat, tree, node);
  const pages = prefixPageCount(node);
  const total = node.hi - node.lo;
  const flatPrefix = shownPrefix(node.prefix);
  for (let p = 1; p <= pages; p++) {
    const nav = (after: string) =>
      pager(ctx, `Pages of names starting ${flatPrefix}${after}`, p, pages, (k) =>
        prefixPath(node.prefix, k),
      );
    const main =
      prefixCrumbs(ctx, node.prefix) +
      `<h1>Names starting ${text(flatPrefix)}${p > 1 ? `, page ${p}` : ''}</h1>` +
      `<p class="lead">${counted(total, 'repository, host or group whose name starts', 'repositories, hosts and groups whose names start')} with ${text(flatPrefix)}. A repository's name is the last part of its address.</p>` +
      nav('') +
      prefixBody(ctx, cat, tree, node, p, order) +
      nav(', after the list');
    yield {
      key: prefixKey(node.prefix, p),
      body: render(
        `Names starting ${flatPrefix}${p > 1 ? `, page ${p}` : ''}`,
        `Repositories, hosts and groups whose names start with ${flatPrefix}.`,
        main,
      ),
    };
  }
}

/**
 * The page the header's form goes to. With JavaScript it shows what matches the query as one
 * types; without, it leads to the root's prefix pages (find by name) and to the hosts.
 */
export function searchPageMain(
  ctx: PagesContext,
  cat: Catalogue,
  tree: SearchTree,
  hosts: string,
  total: number,
): string {
  const root = tree.nodes[0]!;
  const byName =
    root.more && root.more.length > 0
      ? `<p>Pick how the repository's name (the last part of its address), or a host's or group's name, starts, then what follows, until a page lists it with its badges.</p>${nextLinks(ctx, tree, root)}`
      : '<p>No repository has been scanned yet.</p>';
  // A name with no characters at all (an address without a path): listed here, as the root's own.
  const unnamed =
    root.own > root.lo
      ? `<h3>Without a name</h3>${ownEntries(ctx, cat, pageOrder(cat, tree, root).slice(0, SHARD_ENTRIES), 'h4')}`
      : '';
  return (
    `<h1>Find a repository</h1>` +
    `<form class="find find-page" role="search" aria-label="Search repositories" action="${href(ctx.env, SEARCH_DIR)}" method="get">` +
    `<label for="find-page-q">The name of a repository, owner or group, or owner/name</label>` +
    `<input id="find-page-q" name="q" type="search" autocomplete="off" spellcheck="false"><button type="submit">Find</button></form>` +
    `<div id="find-page-results" class="find-results" aria-live="polite"></div>` +
    `<p>With JavaScript the results show as you type, names that hold what you typed anywhere (those it starts first). Without it, find a name letter by letter from its start, or browse.</p>` +
    `<section aria-labelledby="by-name"><h2 id="by-name">Find by name</h2>${byName}${unnamed}</section>` +
    `<section aria-labelledby="browse"><h2 id="browse">Browse ${counted(total, 'repository', 'repositories')}</h2>` +
    `<p>Pick the host, then the owner or group, or read <a href="${href(ctx.env, 'repositories/')}">every repository in natural order</a>.</p>` +
    `${hosts}</section>`
  );
}
