// Browsing by host and owner or group path: a page per host and per group (GitLab subgroups
// nest, a page per level), each rolling up its repositories' statuses per badge, with every
// count linking to the list of the repositories it counts; and those lists (per scope and
// badge, ordered by status, then naturally). The root scope is every repository.
//
// Group keys: a path segment that is a plain lower-case name ([a-z0-9][a-z0-9_.-]*) is its own
// key; any other (upper case, ports, ".", "..", markup, bidi controls) is "_" and its UTF-8
// bytes in hex ("_h" and a SHA-256 when that would be long). So keys are names the resolvers
// serve as they are, never differ only in case, and never equal "-", under which a group page
// keeps its own further pages (-/2.html) and lists (-/<BADGE>/index.html).
import { createHash } from 'node:crypto';
import { pagePaths, shownStatus, type PagesContext } from './context.ts';
import { esc, href, statusWord, table, text } from './html.ts';
import { counted, numberText } from '../../model/plural.ts';
import { naturalOrder } from './natural.ts';
import { pageCount, pager, type Catalogue } from './catalogue.ts';

export const REPOS_PER_PAGE = 100;
export const GROUPS_PER_PAGE = 300;

export interface Group {
  /** Keys of the segments, joined by "/" ('' for the root). */
  key: string;
  /** The host, or host and path ('' for the root). */
  label: string;
  /** Last segment of the label (the host for a host). */
  name: string;
  parent: Group | null;
  children: Group[];
  /** Every repository beneath, as indexes into the catalogue's URLs, in natural order. */
  members: number[];
}

const PLAIN = /^[a-z0-9][a-z0-9_.-]*$/;

export function segmentKey(segment: string): string {
  if (PLAIN.test(segment) && segment.length <= 200) return segment;
  const hex = Buffer.from(segment, 'utf8').toString('hex');
  return hex.length <= 200 ? `_${hex}` : `_h${createHash('sha256').update(segment).digest('hex')}`;
}

/** Host (with port) and the group segments of a canonical URL: the path's non-empty segments but the last. */
function groupPath(url: string): string[] {
  const at = url.indexOf('://') + 3;
  const slash = url.indexOf('/', at);
  const segments = url
    .slice(slash + 1)
    .split('/')
    .filter((s) => s !== '');
  return [url.slice(at, slash), ...segments.slice(0, -1)];
}

/** The repository's name: the last non-empty path segment ('' when the path has none). */
export function repositoryName(url: string): string {
  const at = url.indexOf('://') + 3;
  const segments = url
    .slice(url.indexOf('/', at) + 1)
    .split('/')
    .filter((s) => s !== '');
  return segments[segments.length - 1] ?? '';
}

/**
 * What a repository page is titled by: every non-empty path segment ("curl/curl",
 * "group/sub/project"), a trailing ".git" left out; the URL itself when its path is empty.
 */
export function projectName(url: string): string {
  const at = url.indexOf('://') + 3;
  const slash = url.indexOf('/', at);
  const name =
    slash < 0
      ? ''
      : url
          .slice(slash + 1)
          .split('/')
          .filter((s) => s !== '')
          .join('/')
          .replace(/\.git$/i, '');
  return name === '' ? url : name;
}

export const groupPaths = {
  page: (g: Group, n = 1) =>
    n <= 1 ? `groups/${g.key ? `${g.key}/` : ''}` : `groups/${g.key ? `${g.key}/` : ''}-/${n}.html`,
  pageKey: (g: Group, n = 1) =>
    n <= 1 ? `groups/${g.key ? `${g.key}/` : ''}index.html` : groupPaths.page(g, n),
  list: (g: Group, badge: string, n = 1) =>
    `groups/${g.key ? `${g.key}/` : ''}-/${badge}/${n <= 1 ? '' : `${n}.html`}`,
  listKey: (g: Group, badge: string, n = 1) =>
    `groups/${g.key ? `${g.key}/` : ''}-/${badge}/${n <= 1 ? 'index.html' : `${n}.html`}`,
};

/** The group tree of the catalogue's repositories; every group's children in natural order. */
export function groupTree(cat: Catalogue): { root: Group; all: Group[] } {
  const root: Group = { key: '', label: '', name: '', parent: null, children: [], members: [] };
  const byKey = new Map<string, Group>([['', root]]);
  const all: Group[] = [root];
  for (const i of cat.order) {
    root.members.push(i);
    let g = root;
    for (const segment of groupPath(cat.urls[i]!)) {
      const key = g.key ? `${g.key}/${segmentKey(segment)}` : segmentKey(segment);
      let child = byKey.get(key);
      if (!child) {
        child = {
          key,
          label: g.label ? `${g.label}/${segment}` : segment,
          name: segment,
          parent: g,
          children: [],
          members: [],
        };
        byKey.set(key, child);
        g.children.push(child);
        all.push(child);
      }
      child.members.push(i);
      g = child;
    }
  }
  for (const g of all)
    if (g.children.length > 1)
      g.children = naturalOrder(g.children, (c) => c.name).map((k) => g.children[k]!);
  return { root, all };
}

function ancestry(g: Group): Group[] {
  const chain: Group[] = [];
  for (let x: Group | null = g; x; x = x.parent) chain.unshift(x);
  return chain;
}

function crumbs(ctx: PagesContext, g: Group, last: boolean): string {
  const chain = ancestry(g);
  const items = chain.map((x, k) => {
    const name = x.parent === null ? 'All hosts' : text(x.name);
    return k === chain.length - 1 && last
      ? `<li><a href="${href(ctx.env, groupPaths.page(x))}" aria-current="page">${name}</a></li>`
      : `<li><a href="${href(ctx.env, groupPaths.page(x))}">${name}</a></li>`;
  });
  return `<nav class="crumbs" aria-label="Breadcrumb"><ol>${items.join('')}</ol></nav>`;
}

/** Where the list of a scope's repositories at a status of a badge starts: its page and anchor. */
function statusListHref(
  ctx: PagesContext,
  cat: Catalogue,
  g: Group,
  j: number,
  counts: readonly number[],
  s: number,
): string {
  let before = 0;
  for (let t = 0; t < s; t++) before += counts[t]!;
  return `${href(ctx.env, groupPaths.list(g, cat.badges[j]!, Math.floor(before / REPOS_PER_PAGE) + 1))}#status-${esc(cat.statuses[s]!)}`;
}

/** A count, as a link to the repositories it counts (a zero stays plain). */
function countLink(
  ctx: PagesContext,
  cat: Catalogue,
  g: Group,
  j: number,
  counts: readonly number[],
  s: number,
): string {
  const n = counts[s]!;
  return n === 0
    ? '0'
    : `<a href="${statusListHref(ctx, cat, g, j, counts, s)}">${numberText(n)}</a>`;
}

/** The statuses a roll-up shows: the configured ones, and any other a repository holds. */
function shownStatuses(cat: Catalogue, rollUp: readonly number[][], configured: number): number[] {
  return cat.statuses
    .map((_, s) => s)
    .filter((s) => s < configured || rollUp.some((row) => row[s]! > 0));
}

/** A table of a scope's repositories per badge (rows) and status (columns), each count a link. */
export function rollUpTable(
  ctx: PagesContext,
  cat: Catalogue,
  g: Group,
  rollUp: readonly number[][],
  configured: number,
  caption: string,
): string {
  const cols = shownStatuses(cat, rollUp, configured);
  const rows = cat.badges.map((id, j) => [
    `<a href="${href(ctx.env, pagePaths.badge(id))}">${esc(id)}</a>`,
    ...cols.map((s) => countLink(ctx, cat, g, j, rollUp[j]!, s)),
  ]);
  return table(
    caption,
    ['Badge', ...cols.map((s) => esc(shownStatus(ctx.settings.shape, cat.statuses[s]!)))],
    rows,
    cols.map((_, k) => k + 1),
  );
}

/** Rows of a badge's counts per status (status, count), each count a link to its list. */
export function statusRows(
  ctx: PagesContext,
  cat: Catalogue,
  g: Group,
  j: number,
  counts: readonly number[],
  configured: number,
): string[][] {
  return cat.statuses
    .map((_, s) => s)
    .filter((s) => s < configured || counts[s]! > 0)
    .map((s) => [
      statusWord(shownStatus(ctx.settings.shape, cat.statuses[s]!)),
      countLink(ctx, cat, g, j, counts, s),
    ]);
}

/** A host or group as a list item: its page, and how many repositories it holds, linked to where its page lists them. */
export function groupItem(ctx: PagesContext, g: Group, name: string): string {
  const page = href(ctx.env, groupPaths.page(g));
  return `<li><a href="${page}">${text(name)}</a> <a class="count" href="${page}#repos">${counted(g.members.length, 'repository', 'repositories')}</a></li>`;
}

/** A scope's hosts or subgroups, with how many repositories each holds. */
export function groupList(ctx: PagesContext, groups: readonly Group[]): string {
  return `<ul class="group-list">${groups.map((c) => groupItem(ctx, c, c.name)).join('')}</ul>`;
}

type Render = (title: string, description: string, main: string) => string;

/** A group's pages: roll-up, subgroups and the repositories beneath it, paged. */
export function* groupPages(
  ctx: PagesContext,
  cat: Catalogue,
  g: Group,
  configured: number,
  render: Render,
): Generator<{ key: string; body: string }> {
  const rollUp = cat.rollUp(g.members);
  const isRoot = g.parent === null;
  // All hosts list the hosts only: every repository is the full list's (repositories/).
  const listed = isRoot ? [] : g.members;
  const pages = Math.max(
    pageCount(g.children.length, GROUPS_PER_PAGE),
    pageCount(listed.length, REPOS_PER_PAGE),
  );
  const title = isRoot ? 'All hosts' : g.label;
  const n = g.members.length;
  const what = `${counted(n, 'repository', 'repositories')}${g.children.length > 0 ? ` in ${isRoot ? counted(g.children.length, 'host', 'hosts') : counted(g.children.length, 'group', 'groups')}` : ''}`;
  for (let p = 1; p <= pages; p++) {
    const subgroups = g.children.slice((p - 1) * GROUPS_PER_PAGE, p * GROUPS_PER_PAGE);
    const members = listed.slice((p - 1) * REPOS_PER_PAGE, p * REPOS_PER_PAGE);
    const nav = pager(ctx, `Pages of ${title}`, p, pages, (k) => groupPaths.page(g, k));
    const main =
      crumbs(ctx, g, p === 1) +
      `<h1>${isRoot ? title : text(title)}${p > 1 ? `, page ${p}` : ''}</h1><p class="lead">${what}.${isRoot ? ` <a href="${href(ctx.env, pagePaths.listPage(1))}">All of them in natural order</a>.` : ''}</p>` +
      `<section aria-labelledby="rollup"><h2 id="rollup">Badges</h2>${rollUpTable(ctx, cat, g, rollUp, configured, `Repositories${isRoot ? '' : ` in ${text(g.label)}`} per badge and status`)}</section>` +
      (subgroups.length > 0
        ? `<section aria-labelledby="groups"><h2 id="groups">${isRoot ? 'Hosts' : 'Groups'}</h2>${groupList(ctx, subgroups)}</section>`
        : '') +
      (members.length > 0
        ? `<section aria-labelledby="repos"><h2 id="repos">Repositories here and in its groups</h2><p>In natural order (tool2 before tool10).</p>${cat.list(ctx, members)}</section>`
        : '') +
      nav;
    yield {
      key: groupPaths.pageKey(g, p),
      body: render(
        `${title}${p > 1 ? `, page ${p}` : ''}`,
        `Badges of ${what}${isRoot ? '' : ` under ${title}`}.`,
        main,
      ),
    };
  }
}

/**
 * A scope's lists per badge: its repositories ordered by status (the roll-up's order), then
 * naturally, REPOS_PER_PAGE a page; each status begins under a heading its counts link to.
 */
export function* statusLists(
  ctx: PagesContext,
  cat: Catalogue,
  g: Group,
  render: Render,
): Generator<{ key: string; body: string }> {
  const scope = g.parent === null ? 'all repositories' : g.label;
  for (let j = 0; j < cat.badges.length; j++) {
    const id = cat.badges[j]!;
    const byStatus: number[][] = cat.statuses.map(() => []);
    const without: number[] = [];
    for (const i of g.members) {
      const s = cat.status(i, j);
      (s < 0 ? without : byStatus[s]!).push(i);
    }
    const runs = byStatus
      .map((members, s) => ({
        members,
        label: shownStatus(ctx.settings.shape, cat.statuses[s]!),
        anchor: cat.statuses[s]!,
      }))
      .filter((r) => r.members.length > 0);
    if (without.length > 0)
      runs.push({ members: without, label: 'no status', anchor: 'none-recorded' });
    const total = g.members.length;
    const pages = pageCount(total, REPOS_PER_PAGE);
    let run = 0;
    let within = 0;
    for (let p = 1; p <= pages; p++) {
      let room = REPOS_PER_PAGE;
      let body = '';
      while (room > 0 && run < runs.length) {
        const r = runs[run]!;
        const take = r.members.slice(within, within + room);
        const heading =
          within === 0
            ? `<h2 id="status-${esc(r.anchor)}">${esc(r.label)} (${numberText(r.members.length)})</h2>`
            : `<h2>${esc(r.label)}, continued</h2>`;
        body += `${heading}${cat.list(ctx, take)}`;
        room -= take.length;
        within += take.length;
        if (within === r.members.length) {
          run++;
          within = 0;
        }
      }
      const nav = (after: string) =>
        pager(ctx, `Pages of ${id} in ${scope}${after}`, p, pages, (k) =>
          groupPaths.list(g, id, k),
        );
      const title = `${id} in ${scope}`;
      const main =
        crumbs(ctx, g, false) +
        `<h1>${esc(id)}: ${g.parent === null ? scope : text(scope)} by status${p > 1 ? `, page ${p}` : ''}</h1>` +
        `<p class="lead">${counted(total, 'repository', 'repositories')}, by their <a href="${href(ctx.env, pagePaths.badge(id))}">${esc(id)}</a> status, then in natural order.</p>` +
        nav('') +
        (body || '<p>No repository has been scanned yet.</p>') +
        nav(', after the list');
      yield {
        key: groupPaths.listKey(g, id, p),
        body: render(
          `${title}${p > 1 ? `, page ${p}` : ''}`,
          `Repositories of ${scope} by their ${id} status.`,
          main,
        ),
      };
    }
  }
}
