// The site-wide pages, written from repository summaries alone (no per-repository file is
// read): home, the full list, group pages and lists by badge and status, badge and rule pages,
// the search's files and pages, 404, sitemap, robots, assets. One pass over the summary lines,
// in URL order, parses each in turn, adds it to the counts and records its statuses in the
// catalogue (a byte per repository and badge, catalogue.ts): no parsed summary is held. The
// lists, which go in natural order, are written from the catalogue after the pass.
import { HTML_TYPE, JSON_TYPE, PAGE_TYPES, XML_TYPE } from '../../model/http.ts';
import { thresholdText } from '../../evaluate/shape-b.ts';
import { cacheControlFor } from '../renderer.ts';
import type { Phase, PublishFile } from '../../model/publish-file.ts';
import { barChart } from './chart.ts';
import { pagePaths, shownStatus, type PagesContext } from './context.ts';
import { esc, UNBOUNDED, externalHref, href, renderPage, statusWord, table, text } from './html.ts';
import { counted, numberText } from '../../model/plural.ts';
import { isoDate } from '../../model/calendar.ts';
import { UNKNOWN } from '../../model/status.ts';
import type { RepositorySummary, SortedSummaries } from './summary.ts';
import type { StatusChange } from './evaluate.ts';
import { Catalogue, pageCount, pager } from './catalogue.ts';
import {
  GROUPS_PER_PAGE,
  groupList,
  groupPages,
  groupPaths,
  groupTree,
  REPOS_PER_PAGE,
  rollUpTable,
  statusLists,
  statusRows,
  type Group,
} from './groups.ts';
import {
  prefixPages,
  prefixPath,
  SearchTree,
  searchPageMain,
  searchShards,
} from './search-index.ts';

const PAGE_SIZE = REPOS_PER_PAGE;
const RECENT_SHOWN = 20;
const SITEMAP_MAX = 50_000;

/** Shape A's band statuses, best first. */
const BAND_STATUSES = ['gold', 'silver', 'bronze', 'fail'];

/** Shape A's statuses of a criterion: the bands', then unknown (no value) unless `unknownAs` maps it. */
function criterionStatusesA(ctx: PagesContext): string[] {
  return ctx.settings.unknownAs === null ? [...BAND_STATUSES, UNKNOWN] : BAND_STATUSES;
}

function statusesOf(ctx: PagesContext): string[] {
  if (ctx.settings.shape !== 'A') return BAND_STATUSES;
  return ctx.settings.expireAfterDays !== null
    ? [...criterionStatusesA(ctx), 'expired']
    : criterionStatusesA(ctx);
}

function badgeIdsOf(ctx: PagesContext): string[] {
  return ctx.thresholds.t.badges.map((b) => b.id);
}

/** Statuses counted per id, each starting at zero in a fixed order. */
function zeroCounts(
  ids: readonly string[],
  statuses: readonly string[],
): Map<string, Map<string, number>> {
  return new Map(ids.map((id) => [id, new Map(statuses.map((s) => [s, 0]))]));
}

function count(counts: Map<string, Map<string, number>>, statusById: Record<string, string>): void {
  for (const [id, status] of Object.entries(statusById)) {
    const m = counts.get(id);
    if (m) m.set(status, (m.get(status) ?? 0) + 1);
  }
}

interface FirstScans {
  n: number;
  t: number;
  /** The repository named when it is the day's only one. */
  url: string;
  enc: string;
}

/** Counts a repository's first scan, if its changes still hold it, once on its day. */
function countFirstScan(days: Map<string, FirstScans>, s: RepositorySummary): void {
  const first = s.changes.find((c) => c.from === null);
  if (!first) return;
  const day = isoDate(first.t);
  const seen = days.get(day);
  if (!seen) days.set(day, { n: 1, t: first.t, url: s.url, enc: s.enc });
  else {
    seen.n++;
    if (first.t > seen.t) seen.t = first.t;
  }
}

interface RecentChange {
  url: string;
  enc: string;
  c: StatusChange;
}

/** Newest first; then by URL and badge, so equal times list in a fixed order. */
function newerFirst(a: RecentChange, b: RecentChange): number {
  return (
    b.c.t - a.c.t ||
    (a.url < b.url ? -1 : a.url > b.url ? 1 : 0) ||
    (a.c.badge < b.c.badge ? -1 : 1)
  );
}

/** What the site-wide pages say of all repositories together. */
interface SiteWideFacts {
  total: number;
  ruleCounts: Map<string, Map<string, number>>;
  /** The RECENT_SHOWN newest status changes, first scans left out. */
  recent: RecentChange[];
  /** First scans per UTC day (YYYY-MM-DD): how many repositories, the newest time, one of them. */
  firstScans: Map<string, FirstScans>;
  /** Every repository's statuses, and the groups they are in. */
  cat: Catalogue;
  root: Group;
  /** Per badge (the catalogue's order), repositories per status (its status order). */
  rollUp: number[][];
  /** How many of the catalogue's statuses are the configured ones (always shown). */
  configured: number;
}

function ruleStatusesOf(ctx: PagesContext): string[] {
  return ctx.thresholds.shape === 'A' ? criterionStatusesA(ctx) : ['pass', 'fail', 'open'];
}

/** With `unknownAs`, the status the site publishes for unknown: the pages say so. */
function unknownAsNote(ctx: PagesContext): string {
  return ctx.settings.unknownAs === null
    ? ''
    : ` (this site publishes it as ${statusWord(ctx.settings.unknownAs)})`;
}

function link(ctx: PagesContext, path: string, label: string): string {
  return `<a href="${href(ctx.env, path)}">${label}</a>`;
}

function countChart(
  ctx: PagesContext,
  id: string,
  badge: string,
  counts: Map<string, number>,
): string {
  // Drawn as the word shown: Shape B's "none" in its own grey, never in fail's red.
  const bars = [...counts].map(([status, value]) => {
    const shown = shownStatus(ctx.settings.shape, status);
    return { label: shown, value, kind: shown };
  });
  return barChart(
    {
      id,
      title: `${badge}: repositories per status`,
      desc: bars.map((b) => `${b.label} ${numberText(b.value)}`).join(', '),
    },
    bars,
  );
}

/** Badge j's counts as the charts take them: the configured statuses, and others held. */
function countsOf(facts: SiteWideFacts, j: number): Map<string, number> {
  const row = facts.rollUp[j]!;
  return new Map(
    facts.cat.statuses
      .map((s, k) => [s, row[k]!] as [string, number])
      .filter(([, n], k) => k < facts.configured || n > 0),
  );
}

function homePage(ctx: PagesContext, facts: SiteWideFacts): string {
  const { cat, root } = facts;
  const charts = cat.badges
    .map((id, j) => `<h3>${esc(id)}</h3>${countChart(ctx, `count-${j}`, id, countsOf(facts, j))}`)
    .join('');
  // A day's first scans are one line, not one per repository and badge: after a first build
  // they would be every line. The lines are the newest RECENT_SHOWN of both kinds.
  const lines: Array<{ t: number; html: string }> = facts.recent.map(({ url, enc, c }) => {
    const what = `${esc(c.badge)} ${statusWord(shownStatus(ctx.settings.shape, c.from!))} → ${statusWord(shownStatus(ctx.settings.shape, c.to))}`;
    return {
      t: c.t,
      html: `<li><time datetime="${isoDate(c.t)}">${isoDate(c.t)}</time> ${link(ctx, pagePaths.repository(enc), text(url))}: ${what}</li>`,
    };
  });
  for (const [day, f] of facts.firstScans) {
    const what =
      f.n === 1
        ? `${link(ctx, pagePaths.repository(f.enc), text(f.url))} scanned for the first time`
        : `${counted(f.n, 'repository', 'repositories')} scanned for the first time`;
    lines.push({ t: f.t, html: `<li><time datetime="${day}">${day}</time> ${what}</li>` });
  }
  // Stable: at equal times the changes (in newerFirst order) come before the day's first scans.
  const recent = lines
    .sort((a, b) => b.t - a.t)
    .slice(0, RECENT_SHOWN)
    .map((l) => l.html);
  const rules = ctx.thresholds.t.rules
    .map((r) => `<li>${link(ctx, pagePaths.rule(r.id), text(r.name))}</li>`)
    .join('');
  const hosts = root.children.slice(0, GROUPS_PER_PAGE);
  const more =
    root.children.length > hosts.length
      ? ` ${link(ctx, groupPaths.page(root, 2), counted(root.children.length - hosts.length, 'more host', 'more hosts'))}.`
      : '';
  const main =
    `<h1>${esc(ctx.env.siteName)}</h1>` +
    `<p class="lead">${link(ctx, pagePaths.listPage(1), counted(facts.total, 'repository', 'repositories'))} and ${facts.total === 1 ? 'its' : 'their'} badges: what each badge means, what each repository holds, and how it changed.</p>` +
    `<section aria-labelledby="status"><h2 id="status">Badges now</h2>` +
    rollUpTable(
      ctx,
      cat,
      root,
      facts.rollUp,
      facts.configured,
      'Repositories per badge and status',
    ) +
    charts +
    `</section>` +
    `<section aria-labelledby="repositories"><h2 id="repositories">Repositories</h2>` +
    `<p>${link(ctx, pagePaths.listPage(1), facts.total === 1 ? 'The one repository' : `All ${counted(facts.total, 'repository', 'repositories')}`)}, in natural order, or by host, then owner or group:</p>` +
    (hosts.length > 0
      ? `${groupList(ctx, hosts)}${more}`
      : '<p>No repository has been scanned yet.</p>') +
    firstListPage(ctx, facts) +
    `</section>` +
    `<section aria-labelledby="recent"><h2 id="recent">Recent status changes</h2>${recent.length > 0 ? `<ul>${recent.join('')}</ul>` : '<p>No changes yet.</p>'}</section>` +
    `<section aria-labelledby="rules"><h2 id="rules">Rules</h2><ul>${rules}</ul></section>`;
  return renderPage(ctx.env, {
    title: ctx.env.siteName,
    description: `Badges of ${counted(facts.total, 'repository', 'repositories')}.`,
    main,
  });
}

/** The home page's share of the list: its first page, as design and bookmarks expect. */
function firstListPage(ctx: PagesContext, facts: SiteWideFacts): string {
  if (facts.total === 0) return '';
  const shown = Math.min(facts.total, PAGE_SIZE);
  const next =
    facts.total > shown ? ` ${link(ctx, pagePaths.listPage(2), 'Next page of the list')}.` : '';
  // A list that fits is the whole list: "The first 1 in natural order" read as if more followed.
  const heading = next ? `The first ${numberText(shown)} in natural order` : 'In natural order';
  return `<h3 id="first">${heading}</h3>${facts.cat.list(ctx, facts.cat.order.slice(0, shown))}${next ? `<p>${next.trim()}</p>` : ''}`;
}

function listPage(
  ctx: PagesContext,
  facts: SiteWideFacts,
  page: number,
  members: readonly number[],
): string {
  const { total, cat } = facts;
  const pages = pageCount(total, PAGE_SIZE);
  const nav = (label: string) => pager(ctx, label, page, pages, pagePaths.listPage);
  const main =
    `<h1 id="repositories">Repositories${pages > 1 ? `, page ${page} of ${pages}` : ''}</h1>` +
    `<p class="lead">All ${numberText(total)}, in natural order (tool2 before tool10), ${PAGE_SIZE} a page. ${link(ctx, groupPaths.page(facts.root), 'By host and group')}.</p>` +
    `${nav('Repository list pages')}${cat.list(ctx, members)}${nav('Repository list pages, after the list')}`;
  const description =
    total === 0
      ? 'No repository yet.'
      : `Repositories ${numberText((page - 1) * PAGE_SIZE + 1)} to ${numberText(Math.min(page * PAGE_SIZE, total))}.`;
  return renderPage(ctx.env, {
    title: `Repositories${page > 1 ? `, page ${page}` : ''} · ${ctx.env.siteName}`,
    description,
    main,
  });
}

function moreInfo(ctx: PagesContext, uri: string | undefined, id: string): string {
  if (!uri || uri === `${ctx.settings.baseUrl}/${pagePaths.badge(id)}`) return '';
  return `<p>More information: <a href="${externalHref(uri)}">${text(uri)}</a></p>`;
}

function countsSection(ctx: PagesContext, facts: SiteWideFacts, id: string): string {
  const j = facts.cat.badges.indexOf(id);
  if (j < 0) return '';
  const rows = statusRows(ctx, facts.cat, facts.root, j, facts.rollUp[j]!, facts.configured);
  return `<section aria-labelledby="now"><h2 id="now">Repositories now</h2>${table(`Repositories per status of ${esc(id)}`, ['Status', 'Repositories'], rows, [1])}${countChart(ctx, 'count-badge', id, countsOf(facts, j))}</section>`;
}

function badgePage(ctx: PagesContext, id: string, facts: SiteWideFacts): string {
  const th = ctx.thresholds;
  let body: string;
  if (th.shape === 'A') {
    const def = th.t.badges.find((b) => b.id === id)!;
    const rules = def.criteria.map((rid) => th.t.rules.find((r) => r.id === rid)!);
    const rows = rules.map((r) => [
      link(ctx, pagePaths.rule(r.id), text(r.name)),
      text(r.description),
      r.type === 'boolean'
        ? `present: ${statusWord(r.positiveStatus)}; absent: ${statusWord(r.negativeStatus)}`
        : r.thresholds
            .slice()
            .sort((a, b) => a.min - b.min)
            .map(
              (b) =>
                `${numberText(b.min)}..${b.max === null ? UNBOUNDED : numberText(b.max)} ${esc(r.unit)}: ${statusWord(b.status)}`,
            )
            .join('<br>'),
    ]);
    const expiry =
      ctx.settings.expireAfterDays !== null
        ? `<p>A badge whose last scan is more than ${counted(ctx.settings.expireAfterDays, 'day', 'days')} old shows <strong>expired</strong> until a new scan arrives.</p>`
        : '';
    body =
      `<p>${esc(id)} is decided by ${counted(rules.length, 'rule', 'rules')}. Each rule's value falls in a band with a status; the badge takes the <strong>worst</strong> status among its rules (gold, then silver, bronze, fail). A rule nobody measured (no value in the scan) is ${statusWord(UNKNOWN)}, never a band: any fail still fails the badge; otherwise an unknown rule makes the badge ${statusWord(UNKNOWN)}${unknownAsNote(ctx)}.</p>` +
      expiry +
      table(`Criteria of ${esc(id)} and their bands`, ['Rule', 'What it measures', 'Bands'], rows) +
      moreInfo(ctx, def.informationUri, id);
  } else {
    const def = th.t.badges.find((b) => b.id === id)!;
    const rules = new Map(th.t.rules.map((r) => [r.id, r]));
    const rows = def.levels.map((l) => [
      esc(l.level),
      l.checks
        .map(
          (c) =>
            `${link(ctx, pagePaths.rule(c), text(rules.get(c)!.name))}: ${esc(thresholdText(rules.get(c)!))}`,
        )
        .join('<br>'),
    ]);
    const manual = def.levels.some((l) => l.checks.some((c) => rules.get(c)!.manual));
    body =
      `<p>${esc(id)} has ${def.levels.length === 1 ? 'one level' : counted(def.levels.length, 'level', 'levels')}. A level is granted when every check it adds <strong>and every check of the levels below it</strong> passes. The badge shows the highest level granted, or none.</p>` +
      table(`Levels of ${esc(id)} and the checks each adds`, ['Level', 'Checks it adds'], rows) +
      (manual
        ? "<p>Checks whose id starts with <code>MANUAL/</code> are decided by people, not scanned: the newest grant record at or before a scan decides (a record with granted: false revokes); without one, the rule's decision file grants the check when it lists the repository or one of its patterns matches. Without either the check stays open.</p>"
        : '') +
      moreInfo(ctx, def.informationUri, id);
  }
  const main = `<h1>The ${esc(id)} badge</h1>${body}${countsSection(ctx, facts, id)}`;
  return renderPage(ctx.env, {
    title: `${id} badge · ${ctx.env.siteName}`,
    description: `What the ${id} badge means and how it is decided.`,
    main,
  });
}

function rulePage(ctx: PagesContext, ruleId: string, counts: Map<string, number>): string {
  const th = ctx.thresholds;
  let facts: string;
  let badges: string[];
  let name: string;
  if (th.shape === 'A') {
    const r = th.t.rules.find((x) => x.id === ruleId)!;
    name = r.name;
    badges = th.t.badges.filter((b) => b.criteria.includes(ruleId)).map((b) => b.id);
    facts =
      r.type === 'boolean'
        ? `<p>A yes-or-no rule: present gives ${statusWord(r.positiveStatus)}, absent gives ${statusWord(r.negativeStatus)}; a scan without an answer leaves it ${statusWord(UNKNOWN)}${unknownAsNote(ctx)}.</p>`
        : `<p>Unit: ${esc(r.unit)}.${r.timeRangeInMonths !== undefined ? ` Events are counted in the last ${r.timeRangeInMonths} calendar months (UTC) before each scan.` : ''} A scan without a value for it leaves it ${statusWord(UNKNOWN)}${unknownAsNote(ctx)}, never in a band.</p>` +
          table(
            `Bands of ${esc(r.name)}`,
            ['From', 'To', 'Status'],
            r.thresholds
              .slice()
              .sort((a, b) => a.min - b.min)
              .map((b) => [
                numberText(b.min),
                b.max === null ? 'unbounded' : numberText(b.max),
                statusWord(b.status),
              ]),
          );
  } else {
    const r = th.t.rules.find((x) => x.id === ruleId)!;
    name = r.name;
    badges = th.t.badges
      .filter((b) => b.levels.some((l) => l.checks.includes(ruleId)))
      .map((b) => b.id);
    facts = r.manual
      ? "<p>Decided by people, not scanned: a grant record or the rule's decision file grants it; its value is 1 when granted and 0 when not. Without a decision it is open.</p>"
      : `<p>Passes when the value is ${esc(thresholdText(r))}. Unit: ${esc(r.unit)}. A missing value leaves it open.</p>`;
  }
  const rule = th.t.rules.find((x) => x.id === ruleId)!;
  const main =
    `<h1>${text(name)}</h1><p class="lead">Rule <code>${text(ruleId)}</code></p>` +
    `<dl class="facts"><dt>What it measures</dt><dd>${text(rule.description)}</dd><dt>How to improve</dt><dd>${text(rule.help)}</dd></dl>` +
    facts +
    `<h2>Badges using it</h2><ul>${badges.map((b) => `<li>${link(ctx, pagePaths.badge(b), esc(b))}</li>`).join('')}</ul>` +
    `<section aria-labelledby="now"><h2 id="now">Repositories now</h2>${table(
      `Repositories per status of ${esc(name)}`,
      ['Status', 'Repositories'],
      [...counts].map(([s, n]) => [statusWord(s), numberText(n)]),
      [1],
    )}</section>`;
  return renderPage(ctx.env, {
    title: `${name} · ${ctx.env.siteName}`,
    description: `The rule ${name}: what it measures and its thresholds.`,
    main,
  });
}

function notFoundPage(ctx: PagesContext): string {
  const main = `<h1>Page not found</h1><p>There is no page at this address. Start from ${link(ctx, '', 'the home page')}, which lists every host and badge, or ${link(ctx, pagePaths.search, 'find a repository')}.</p>`;
  return renderPage(ctx.env, {
    title: `Not found · ${ctx.env.siteName}`,
    description: 'No page at this address.',
    main,
  });
}

const urlset = (entries: readonly string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('\n')}</urlset>\n`;

/**
 * The sitemap, written as the addresses come: one sitemap.xml, or past SITEMAP_MAX addresses
 * parts of SITEMAP_MAX (each out as soon as it is full) and sitemap.xml as their index.
 */
class Sitemap {
  private entries: string[] = [];
  private readonly parts: string[] = [];
  private readonly base: string;
  private readonly total: number;
  constructor(base: string, total: number) {
    this.base = base;
    this.total = total;
  }

  /** Adds an address; a part that is full comes back to be published. */
  add(url: string): { key: string; body: string } | undefined {
    this.entries.push(`<url><loc>${esc(url)}</loc></url>`);
    return this.total > SITEMAP_MAX && this.entries.length === SITEMAP_MAX
      ? this.part()
      : undefined;
  }

  private part(): { key: string; body: string } {
    const key = `sitemaps/${this.parts.length + 1}.xml`;
    this.parts.push(key);
    const body = urlset(this.entries);
    this.entries = [];
    return { key, body };
  }

  /** The last part if any, then sitemap.xml. */
  finish(): Array<{ key: string; body: string }> {
    if (this.total <= SITEMAP_MAX) return [{ key: 'sitemap.xml', body: urlset(this.entries) }];
    const last = this.entries.length > 0 ? [this.part()] : [];
    const index = `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${this.parts.map((k) => `<sitemap><loc>${esc(`${this.base}/${k}`)}</loc></sitemap>`).join('\n')}</sitemapindex>\n`;
    return [...last, { key: 'sitemap.xml', body: index }];
  }
}

/**
 * Every site-wide file, in publishing order: assets first (a page never links an asset that
 * is not there yet), then the pages, the home page last.
 */
export function siteWideFiles(ctx: PagesContext, summaries: SortedSummaries): PublishFile[] {
  return [...siteWideFileStream(ctx, summaries)];
}

/**
 * The same files one at a time, as the summaries are read: a page is out of memory once
 * published, whatever the number of repositories.
 */
export function* siteWideFileStream(
  ctx: PagesContext,
  summaries: SortedSummaries,
): Generator<PublishFile> {
  const immutable = cacheControlFor(ctx.settings, true);
  const short = cacheControlFor(ctx.settings, false);
  const { css, js, favicon } = ctx.env.assets;
  yield {
    key: css.key,
    body: css.body,
    contentType: css.contentType,
    cacheControl: immutable,
    phase: 'at',
  };
  yield {
    key: js.key,
    body: js.body,
    contentType: js.contentType,
    cacheControl: immutable,
    phase: 'at',
  };
  yield {
    key: ctx.env.assets.feedCss.key,
    body: ctx.env.assets.feedCss.body,
    contentType: ctx.env.assets.feedCss.contentType,
    cacheControl: immutable,
    phase: 'at',
  };
  yield {
    key: favicon.key,
    body: favicon.body,
    contentType: favicon.contentType,
    cacheControl: short,
    phase: 'at',
  };
  const { logo } = ctx.env.assets;
  // Like the favicon: the resolvers answer only the stylesheets and script as immutable.
  if (logo)
    yield {
      key: logo.key,
      body: logo.body,
      contentType: logo.contentType,
      cacheControl: short,
      phase: 'at',
    };
  const page = (
    key: string,
    body: string,
    contentType = HTML_TYPE,
    phase: Phase = 'page',
  ): PublishFile => ({
    key,
    body,
    contentType,
    cacheControl: short,
    phase,
  });
  const total = summaries.urls.length;
  const statuses = statusesOf(ctx);
  const cat = new Catalogue(summaries.urls, badgeIdsOf(ctx), statuses);
  const { root, all: groups } = groupTree(cat);
  const facts: SiteWideFacts = {
    total,
    ruleCounts: zeroCounts(
      ctx.thresholds.t.rules.map((r) => r.id),
      ruleStatusesOf(ctx),
    ),
    recent: [],
    firstScans: new Map(),
    cat,
    root,
    rollUp: [],
    configured: statuses.length,
  };
  const base = ctx.settings.baseUrl;
  const listPages = pageCount(total, PAGE_SIZE);
  // The search's pages (a tree of names by their start) need the names alone: they are known
  // before the pass.
  const tree = new SearchTree(cat, groups);
  const sitemap = new Sitemap(
    base,
    1 +
      listPages +
      groups.length +
      tree.nodes.length +
      badgeIdsOf(ctx).length +
      ctx.thresholds.t.rules.length +
      total,
  );
  const toSitemap = function* (url: string): Generator<PublishFile> {
    const full = sitemap.add(url);
    if (full) yield page(full.key, full.body, XML_TYPE);
  };
  yield* toSitemap(`${base}/`);
  for (let n = 1; n <= listPages; n++) yield* toSitemap(`${base}/${pagePaths.listPage(n)}`);
  for (const g of groups) yield* toSitemap(`${base}/${groupPaths.page(g)}`);
  // The search page, then the first page of every other prefix.
  for (const node of tree.nodes) yield* toSitemap(`${base}/${prefixPath(node.prefix)}`);
  for (const id of badgeIdsOf(ctx)) yield* toSitemap(`${base}/${pagePaths.badge(id)}`);
  for (const r of ctx.thresholds.t.rules) yield* toSitemap(`${base}/${pagePaths.rule(r.id)}`);
  let i = 0;
  for (const line of summaries.lines()) {
    const s = JSON.parse(line) as RepositorySummary;
    // The catalogue's statuses are by index into urls: the lines must come in that order.
    if (s.url !== summaries.urls[i])
      throw new Error(`internal: summary ${i} is of ${s.url}, expected ${summaries.urls[i]}`);
    cat.record(i++, s.badges);
    count(facts.ruleCounts, s.rules);
    for (const c of s.changes)
      if (c.from !== null) keepNewest(facts.recent, { url: s.url, enc: s.enc, c });
    countFirstScan(facts.firstScans, s);
    yield* toSitemap(`${base}/${pagePaths.repository(s.enc)}`);
  }
  facts.rollUp = cat.rollUp(cat.order);
  // The lists, in natural order, from the catalogue.
  for (let n = 1; n <= listPages; n++)
    yield page(
      pagePaths.listPageKey(n),
      listPage(ctx, facts, n, cat.order.slice((n - 1) * PAGE_SIZE, n * PAGE_SIZE)),
    );
  const render = (title: string, description: string, main: string) =>
    renderPage(ctx.env, { title: `${title} · ${ctx.env.siteName}`, description, main });
  for (const g of groups) {
    for (const f of groupPages(ctx, cat, g, facts.configured, render)) yield page(f.key, f.body);
    for (const f of statusLists(ctx, cat, g, render)) yield page(f.key, f.body);
  }
  // The search's JSON files, from a tree of every part of every name (held only while they are
  // written: it has a suffix of each name per character), then its pages by the names' start
  // (the root's is the search page, after them).
  let anyPart: SearchTree | null = new SearchTree(cat, groups, true);
  for (const node of anyPart.nodes)
    for (const f of searchShards(ctx, cat, anyPart, node)) yield page(f.key, f.body, JSON_TYPE);
  anyPart = null;
  for (const node of tree.nodes)
    if (node.prefix !== '')
      for (const p of prefixPages(ctx, cat, tree, node, render)) yield page(p.key, p.body);
  yield page(
    pagePaths.searchKey,
    render(
      'Find a repository',
      'Find a repository by its name, owner or group.',
      searchPageMain(
        ctx,
        cat,
        tree,
        groupList(ctx, root.children.slice(0, GROUPS_PER_PAGE)),
        total,
      ),
    ),
  );
  for (const id of badgeIdsOf(ctx)) yield page(pagePaths.badgeKey(id), badgePage(ctx, id, facts));
  for (const r of ctx.thresholds.t.rules)
    yield page(pagePaths.ruleKey(r.id), rulePage(ctx, r.id, facts.ruleCounts.get(r.id)!));
  yield page('404.html', notFoundPage(ctx));
  for (const s of sitemap.finish()) yield page(s.key, s.body, XML_TYPE);
  yield page(
    'robots.txt',
    `User-agent: *\nAllow: /\nSitemap: ${base}/sitemap.xml\n`,
    PAGE_TYPES.txt!,
  );
  yield page('index.html', homePage(ctx, facts), HTML_TYPE, 'home');
}

/** Adds a change to the newest RECENT_SHOWN, kept in newerFirst order. */
function keepNewest(recent: RecentChange[], change: RecentChange): void {
  if (recent.length === RECENT_SHOWN && newerFirst(change, recent[RECENT_SHOWN - 1]!) >= 0) return;
  let at = recent.length;
  while (at > 0 && newerFirst(change, recent[at - 1]!) < 0) at--;
  recent.splice(at, 0, change);
  if (recent.length > RECENT_SHOWN) recent.pop();
}
