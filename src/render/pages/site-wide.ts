// The site-wide pages, written from repository summaries alone (no per-repository file is
// read): home, list pages, badge and rule pages, search index, 404, sitemap, robots, assets.
// One pass over the summary lines, in URL order, parses each in turn, adds it to the counts
// and writes the list page it completes: no more than one page of parsed summaries is held.
import { HTML_TYPE } from '../../model/http.ts';
import { thresholdText } from '../../evaluate/shape-b.ts';
import { cacheControlFor, type Phase, type SiteFile } from '../site-files.ts';
import { barChart } from './chart.ts';
import { pagePaths, shownStatus, type PagesContext } from './context.ts';
import { esc, externalHref, href, renderPage, statusWord, table, text } from './html.ts';
import { isoDate } from '../../model/calendar.ts';
import type { RepositorySummary, SortedSummaries } from './summary.ts';
import type { StatusChange } from './evaluate.ts';

export const PAGE_SIZE = 100;
const RECENT_SHOWN = 20;
const SITEMAP_MAX = 50_000;

/** Shape A's band statuses, best first. */
const BAND_STATUSES = ['gold', 'silver', 'bronze', 'fail'];

function statusesOf(ctx: PagesContext): string[] {
  return ctx.site.shape === 'A' && ctx.site.expireAfterDays !== null ? [...BAND_STATUSES, 'expired'] : BAND_STATUSES;
}

function badgeIdsOf(ctx: PagesContext): string[] {
  return ctx.thresholds.t.badges.map((b) => b.id);
}

/** Statuses counted per id, each starting at zero in a fixed order. */
function zeroCounts(ids: readonly string[], statuses: readonly string[]): Map<string, Map<string, number>> {
  return new Map(ids.map((id) => [id, new Map(statuses.map((s) => [s, 0]))]));
}

function count(counts: Map<string, Map<string, number>>, statusById: Record<string, string>): void {
  for (const [id, status] of Object.entries(statusById)) {
    const m = counts.get(id);
    if (m) m.set(status, (m.get(status) ?? 0) + 1);
  }
}

interface RecentChange {
  url: string;
  enc: string;
  c: StatusChange;
}

/** Newest first; then by URL and badge, so equal times list in a fixed order. */
function newerFirst(a: RecentChange, b: RecentChange): number {
  return b.c.t - a.c.t || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0) || (a.c.badge < b.c.badge ? -1 : 1);
}

/** What the site-wide pages say of all repositories together. */
interface SiteFacts {
  total: number;
  badgeCounts: Map<string, Map<string, number>>;
  ruleCounts: Map<string, Map<string, number>>;
  /** The RECENT_SHOWN newest status changes. */
  recent: RecentChange[];
  /** The first list page's items, shown on the home page. */
  firstItems: string[];
}

function ruleStatusesOf(ctx: PagesContext): string[] {
  return ctx.thresholds.shape === 'A' ? BAND_STATUSES : ['pass', 'fail', 'open'];
}

function link(ctx: PagesContext, path: string, label: string): string {
  return `<a href="${href(ctx.env, path)}">${label}</a>`;
}

function countChart(ctx: PagesContext, id: string, badge: string, counts: Map<string, number>): string {
  const bars = [...counts].map(([status, value]) => ({ label: shownStatus(ctx.site.shape, status), value, kind: status }));
  return barChart({ id, title: `${badge}: repositories per status`, desc: bars.map((b) => `${b.label} ${b.value}`).join(', ') }, bars);
}

function pageCount(n: number): number {
  return Math.max(1, Math.ceil(n / PAGE_SIZE));
}

function listItem(ctx: PagesContext, s: RepositorySummary): string {
  const statuses = Object.entries(s.badges)
    .map(([id, st]) => `${esc(id)} ${esc(shownStatus(ctx.site.shape, st))}`)
    .join(' · ');
  return `<li>${link(ctx, pagePaths.repository(s.enc), text(s.url))} <span class="statuses">${statuses}</span></li>`;
}

function repositoryList(items: readonly string[]): string {
  return items.length > 0 ? `<ul class="repo-list">${items.join('')}</ul>` : '<p>No repository has been scanned yet.</p>';
}

function pager(ctx: PagesContext, page: number, pages: number): string {
  if (pages <= 1) return '';
  const parts: string[] = [];
  if (page > 1) parts.push(link(ctx, pagePaths.listPage(1), 'First'), link(ctx, pagePaths.listPage(page - 1), 'Previous'));
  parts.push(`<span>Page ${page} of ${pages}</span>`);
  if (page < pages) parts.push(link(ctx, pagePaths.listPage(page + 1), 'Next'), link(ctx, pagePaths.listPage(pages), 'Last'));
  return `<nav class="pager" aria-label="Repository list pages">${parts.join('')}</nav>`;
}

function homePage(ctx: PagesContext, facts: SiteFacts): string {
  const counts = facts.badgeCounts;
  const statuses = statusesOf(ctx);
  const countRows = [...counts].map(([id, m]) => [link(ctx, pagePaths.badge(id), esc(id)), ...statuses.map((s) => String(m.get(s) ?? 0))]);
  const charts = [...counts].map(([id, m], i) => `<h3>${esc(id)}</h3>${countChart(ctx, `count-${i}`, id, m)}`).join('');
  const recent = facts.recent.map(({ url, enc, c }) => {
    const to = shownStatus(ctx.site.shape, c.to);
    const what = c.from === null ? `${esc(c.badge)} first scanned: ${statusWord(to)}` : `${esc(c.badge)} ${statusWord(shownStatus(ctx.site.shape, c.from))} → ${statusWord(to)}`;
    return `<li><time datetime="${isoDate(c.t)}">${isoDate(c.t)}</time> ${link(ctx, pagePaths.repository(enc), text(url))}: ${what}</li>`;
  });
  const pages = pageCount(facts.total);
  const rules = ctx.thresholds.t.rules.map((r) => `<li>${link(ctx, pagePaths.rule(r.id), text(r.name))}</li>`).join('');
  const main =
    `<h1>${esc(ctx.env.siteName)}</h1>` +
    `<p class="lead">${facts.total} repositories and their badges: what each badge means, what each repository holds, and how it changed.</p>` +
    `<section aria-labelledby="status"><h2 id="status">Badges now</h2>` +
    table(
      'Repositories per badge and status',
      ['Badge', ...statuses.map((s) => esc(shownStatus(ctx.site.shape, s)))],
      countRows,
      statuses.map((_, i) => i + 1),
    ) +
    charts +
    `</section>` +
    `<section aria-labelledby="recent"><h2 id="recent">Recent status changes</h2>${recent.length > 0 ? `<ul>${recent.join('')}</ul>` : '<p>No changes yet.</p>'}</section>` +
    `<section aria-labelledby="repositories"><h2 id="repositories">Repositories</h2>` +
    `<form id="search" class="search" role="search" hidden data-index="${href(ctx.env, pagePaths.searchIndex)}" data-pages="${href(ctx.env, 'repositories/')}">` +
    `<label for="search-input">Find a repository by any part of its URL</label><br><input id="search-input" type="search" autocomplete="off">` +
    `<p id="search-status" role="status"></p><ul id="search-results" class="search-results repo-list"></ul></form>` +
    `<p>Sorted by URL, ${PAGE_SIZE} per page.</p>${repositoryList(facts.firstItems)}${pager(ctx, 1, pages)}</section>` +
    `<section aria-labelledby="rules"><h2 id="rules">Rules</h2><ul>${rules}</ul></section>`;
  return renderPage(ctx.env, { title: ctx.env.siteName, description: `Badges of ${facts.total} repositories.`, main });
}

function listPage(ctx: PagesContext, total: number, page: number, items: readonly string[]): string {
  const pages = pageCount(total);
  const main = `<h1 id="repositories">Repositories, page ${page} of ${pages}</h1>${pager(ctx, page, pages)}${repositoryList(items)}${pager(ctx, page, pages)}`;
  return renderPage(ctx.env, { title: `Repositories, page ${page} · ${ctx.env.siteName}`, description: `Repositories ${(page - 1) * PAGE_SIZE + 1} to ${Math.min(page * PAGE_SIZE, total)}.`, main });
}

function moreInfo(ctx: PagesContext, uri: string | undefined, id: string): string {
  if (!uri || uri === `${ctx.site.baseUrl}/${pagePaths.badge(id)}`) return '';
  return `<p>More information: <a href="${externalHref(uri)}">${text(uri)}</a></p>`;
}

function countsSection(ctx: PagesContext, id: string, counts: Map<string, number> | undefined, chartId: string): string {
  if (!counts) return '';
  const rows = [...counts].map(([s, n]) => [statusWord(shownStatus(ctx.site.shape, s)), String(n)]);
  return `<section aria-labelledby="now"><h2 id="now">Repositories now</h2>${table(`Repositories per status of ${esc(id)}`, ['Status', 'Repositories'], rows, [1])}${countChart(ctx, chartId, id, counts)}</section>`;
}

function badgePage(ctx: PagesContext, id: string, counts: Map<string, number> | undefined): string {
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
            .map((b) => `${b.min}..${b.max ?? '∞'} ${esc(r.unit)}: ${statusWord(b.status)}`)
            .join('<br>'),
    ]);
    const expiry = ctx.site.expireAfterDays !== null ? `<p>A badge whose last scan is more than ${ctx.site.expireAfterDays} days old shows <strong>expired</strong> until a new scan arrives.</p>` : '';
    body =
      `<p>${esc(id)} is decided by ${rules.length} ${rules.length === 1 ? 'rule' : 'rules'}. Each rule's value falls in a band with a status; the badge takes the <strong>worst</strong> status among its rules (gold, then silver, bronze, fail). A value that could not be determined counts as fail.</p>` +
      expiry +
      table(`Criteria of ${esc(id)} and their bands`, ['Rule', 'What it measures', 'Bands'], rows) +
      moreInfo(ctx, def.informationUri, id);
  } else {
    const def = th.t.badges.find((b) => b.id === id)!;
    const rules = new Map(th.t.rules.map((r) => [r.id, r]));
    const rows = def.levels.map((l) => [esc(l.level), l.checks.map((c) => `${link(ctx, pagePaths.rule(c), text(rules.get(c)!.name))}: ${esc(thresholdText(rules.get(c)!))}`).join('<br>')]);
    const manual = def.levels.some((l) => l.checks.some((c) => rules.get(c)!.manual));
    body =
      `<p>${esc(id)} has ${def.levels.length === 1 ? 'one level' : `${def.levels.length} levels`}. A level is granted when every check it adds <strong>and every check of the levels below it</strong> passes. The badge shows the highest level granted, or none.</p>` +
      table(`Levels of ${esc(id)} and the checks each adds`, ['Level', 'Checks it adds'], rows) +
      (manual
        ? "<p>Checks whose id starts with <code>MANUAL/</code> are decided by people, not scanned: the newest grant record at or before a scan decides (a record with granted: false revokes); without one, the rule's decision file grants the check when it lists the repository or one of its patterns matches. Without either the check stays open.</p>"
        : '') +
      moreInfo(ctx, def.informationUri, id);
  }
  const main = `<h1>The ${esc(id)} badge</h1>${body}${countsSection(ctx, id, counts, 'count-badge')}`;
  return renderPage(ctx.env, { title: `${id} badge · ${ctx.env.siteName}`, description: `What the ${id} badge means and how it is decided.`, main });
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
        ? `<p>A yes-or-no rule: present gives ${statusWord(r.positiveStatus)}, absent gives ${statusWord(r.negativeStatus)}.</p>`
        : `<p>Unit: ${esc(r.unit)}.${r.timeRangeInMonths !== undefined ? ` Events are counted in the last ${r.timeRangeInMonths} calendar months (UTC) before each scan.` : ''}</p>` +
          table(
            `Bands of ${esc(r.name)}`,
            ['From', 'To', 'Status'],
            r.thresholds
              .slice()
              .sort((a, b) => a.min - b.min)
              .map((b) => [String(b.min), b.max === null ? 'unbounded' : String(b.max), statusWord(b.status)]),
          );
  } else {
    const r = th.t.rules.find((x) => x.id === ruleId)!;
    name = r.name;
    badges = th.t.badges.filter((b) => b.levels.some((l) => l.checks.includes(ruleId))).map((b) => b.id);
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
      [...counts].map(([s, n]) => [statusWord(s), String(n)]),
      [1],
    )}</section>`;
  return renderPage(ctx.env, { title: `${name} · ${ctx.env.siteName}`, description: `The rule ${name}: what it measures and its thresholds.`, main });
}

function notFoundPage(ctx: PagesContext): string {
  const main = `<h1>Page not found</h1><p>There is no page at this address. Start from ${link(ctx, '', 'the home page')}, which lists every repository and badge.</p>`;
  return renderPage(ctx.env, { title: `Not found · ${ctx.env.siteName}`, description: 'No page at this address.', main });
}

const urlset = (entries: readonly string[]) => `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('\n')}</urlset>\n`;

/**
 * The sitemap, written as the addresses come: one sitemap.xml, or past SITEMAP_MAX addresses
 * parts of SITEMAP_MAX (each out as soon as it is full) and sitemap.xml as their index.
 */
class Sitemap {
  private entries: string[] = [];
  private readonly parts: string[] = [];
  constructor(
    private readonly base: string,
    private readonly total: number,
  ) {}

  /** Adds an address; a part that is full comes back to be published. */
  add(url: string): { key: string; body: string } | undefined {
    this.entries.push(`<url><loc>${esc(url)}</loc></url>`);
    return this.total > SITEMAP_MAX && this.entries.length === SITEMAP_MAX ? this.part() : undefined;
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
export function siteWideFiles(ctx: PagesContext, summaries: SortedSummaries): SiteFile[] {
  return [...siteWideFileStream(ctx, summaries)];
}

/**
 * The same files one at a time, as the summaries are read: a list page is out of memory once
 * published, whatever the number of repositories.
 */
export function* siteWideFileStream(ctx: PagesContext, summaries: SortedSummaries): Generator<SiteFile> {
  const immutable = cacheControlFor(ctx.site, 'at');
  const short = cacheControlFor(ctx.site, 'latest');
  const { css, js, favicon } = ctx.env.assets;
  yield { key: css.key, body: css.body, contentType: css.contentType, cacheControl: immutable, phase: 'at' };
  yield { key: js.key, body: js.body, contentType: js.contentType, cacheControl: immutable, phase: 'at' };
  yield { key: ctx.env.assets.feedCss.key, body: ctx.env.assets.feedCss.body, contentType: ctx.env.assets.feedCss.contentType, cacheControl: immutable, phase: 'at' };
  yield { key: favicon.key, body: favicon.body, contentType: favicon.contentType, cacheControl: short, phase: 'at' };
  const page = (key: string, body: string, contentType = HTML_TYPE, phase: Phase = 'page'): SiteFile => ({ key, body, contentType, cacheControl: short, phase });
  yield page(pagePaths.searchIndex, `${JSON.stringify(summaries.urls)}\n`, 'application/json');
  const total = summaries.urls.length;
  const facts: SiteFacts = {
    total,
    badgeCounts: zeroCounts(badgeIdsOf(ctx), statusesOf(ctx)),
    ruleCounts: zeroCounts(
      ctx.thresholds.t.rules.map((r) => r.id),
      ruleStatusesOf(ctx),
    ),
    recent: [],
    firstItems: [],
  };
  const base = ctx.site.baseUrl;
  const sitemap = new Sitemap(base, pageCount(total) + badgeIdsOf(ctx).length + ctx.thresholds.t.rules.length + total);
  const toSitemap = function* (url: string): Generator<SiteFile> {
    const full = sitemap.add(url);
    if (full) yield page(full.key, full.body, 'application/xml');
  };
  yield* toSitemap(`${base}/`);
  for (let n = 2; n <= pageCount(total); n++) yield* toSitemap(`${base}/${pagePaths.listPage(n)}`);
  for (const id of badgeIdsOf(ctx)) yield* toSitemap(`${base}/${pagePaths.badge(id)}`);
  for (const r of ctx.thresholds.t.rules) yield* toSitemap(`${base}/${pagePaths.rule(r.id)}`);
  let items: string[] = [];
  let i = 0;
  for (const line of summaries.lines()) {
    const s = JSON.parse(line) as RepositorySummary;
    count(facts.badgeCounts, s.badges);
    count(facts.ruleCounts, s.rules);
    for (const c of s.changes) keepNewest(facts.recent, { url: s.url, enc: s.enc, c });
    yield* toSitemap(`${base}/${pagePaths.repository(s.enc)}`);
    items.push(listItem(ctx, s));
    if (items.length === PAGE_SIZE || i === total - 1) {
      const n = Math.floor(i / PAGE_SIZE) + 1;
      if (n === 1) facts.firstItems = items;
      else yield page(pagePaths.listPageKey(n), listPage(ctx, total, n, items));
      items = [];
    }
    i++;
  }
  for (const id of badgeIdsOf(ctx)) yield page(pagePaths.badgeKey(id), badgePage(ctx, id, facts.badgeCounts.get(id)));
  for (const r of ctx.thresholds.t.rules) yield page(pagePaths.ruleKey(r.id), rulePage(ctx, r.id, facts.ruleCounts.get(r.id)!));
  yield page('404.html', notFoundPage(ctx));
  for (const s of sitemap.finish()) yield page(s.key, s.body, 'application/xml');
  yield page('robots.txt', `User-agent: *\nAllow: /\nSitemap: ${base}/sitemap.xml\n`, 'text/plain; charset=utf-8');
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
