// The site-wide pages from summary lines, in one pass: the home page's recent changes are the
// newest of all (not of the first page), list pages split at 100 in natural order, counts
// cover every line and link to the lists they count.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { resolveConfig } from '../src/config/resolve.ts';
import { loadPagesContext } from '../src/render/pages/setup.ts';
import { siteWideFiles } from '../src/render/pages/site-wide.ts';
import { sortSummaries, type RepositorySummary } from '../src/render/pages/summary.ts';
import { ROOT } from './helpers/cli.ts';

const config = await resolveConfig(undefined, { store: join(ROOT, 'examples/store'), out: ROOT });
const { settings } = config;
const ctx = loadPagesContext(config);
const BADGE = ctx.thresholds.t.badges[0]!.id;
const STATUSES = ['gold', 'silver', 'bronze', 'fail'];

/** 250 repositories; changes at times that repeat, so ties are decided by URL, then badge. */
function summaries(): Map<string, string> {
  const byUrl = new Map<string, string>();
  for (let i = 0; i < 250; i++) {
    const n = (i * 37) % 250;
    const url = `https://example.org/r${n}`;
    const badges = Object.fromEntries(
      ctx.thresholds.t.badges.map((b, j) => [b.id, STATUSES[(i + j) % 4]!]),
    );
    // The newest belong to r240…r249, which the URL order puts past the first list page.
    const t = 1_763_000_000 + Math.floor(n / 3) * 86400;
    const s: RepositorySummary = {
      url,
      enc: encodeURIComponent(url),
      scans: 1,
      last: t,
      badges,
      rules: {},
      changes: ctx.thresholds.t.badges.map((b, j) => ({
        t,
        badge: b.id,
        from: STATUSES[(i + j + 1) % 4]!,
        to: badges[b.id]!,
      })),
    };
    byUrl.set(url, JSON.stringify(s));
  }
  return byUrl;
}

describe('site-wide pages from summary lines', () => {
  const byUrl = summaries();
  const files = siteWideFiles(ctx, sortSummaries(byUrl));
  const body = (key: string) => String(files.find((f) => f.key === key)?.body);

  it('the home page lists the 20 newest changes of all repositories, ties by URL then badge', () => {
    const all = [...byUrl.values()]
      .map((l) => JSON.parse(l) as RepositorySummary)
      .flatMap((s) => s.changes.map((c) => ({ url: s.url, c })))
      .sort(
        (a, b) =>
          b.c.t - a.c.t ||
          (a.url < b.url ? -1 : a.url > b.url ? 1 : 0) ||
          (a.c.badge < b.c.badge ? -1 : 1),
      )
      .slice(0, 20);
    const recent = /<h2 id="recent">Recent status changes<\/h2><ul>(.*?)<\/ul>/.exec(
      body('index.html'),
    )![1]!;
    const shown = [
      ...recent.matchAll(/<li>.*?<a href="[^"]*"><bdi>([^<]*)<\/bdi><\/a>: (\S+)/g),
    ].map((m) => `${m[1]} ${m[2]}`);
    expect(shown).toEqual(all.map((x) => `${x.url} ${x.c.badge}`));
    // Those changes are not all on the first list page: the pass must look at every line.
    expect(all.some((x) => x.url > [...byUrl.keys()].sort()[99]!)).toBe(true);
  });

  it('splits the list at 100 in natural order: repositories/ holds the first, pages 2 and 3 the rest', () => {
    // r0, r1, …, r9, r10, …: natural order is numeric order here.
    const sorted = Array.from({ length: 250 }, (_, n) => `https://example.org/r${n}`);
    const listed = (html: string) =>
      [...html.matchAll(/<li><a href="[^"]*"><bdi>([^<]*)<\/bdi><\/a> <span class="badges">/g)].map(
        (m) => m[1],
      );
    expect(listed(body('repositories/index.html'))).toEqual(sorted.slice(0, 100));
    expect(listed(body('repositories/page/2.html'))).toEqual(sorted.slice(100, 200));
    expect(listed(body('repositories/page/3.html'))).toEqual(sorted.slice(200));
    expect(files.some((f) => f.key === 'repositories/page/4.html')).toBe(false);
    expect(body('repositories/page/3.html')).toContain('Repositories 201 to 250.');
  });

  it('counts every repository per badge status, each count a link to its list', () => {
    const page = body(`badges/${BADGE}/index.html`);
    const counts = /<table><caption>Repositories per status[^]*?<\/table>/.exec(page)![0];
    const shown = [
      ...counts.matchAll(/st-(\w+)">\w+<\/span><\/th><td class="num"><a href="[^"]*">(\d+)</g),
    ].map((m) => [m[1], Number(m[2])]);
    // 250 repositories, statuses in turn: 63, 63, 62, 62.
    expect(shown).toEqual([
      ['gold', 63],
      ['silver', 63],
      ['bronze', 62],
      ['fail', 62],
    ]);
    expect(files.some((f) => f.key === 'repositories/search.json')).toBe(false);
  });
});

describe('the sitemap past 50,000 addresses', () => {
  it('is split into parts of 50,000 in order (home, list pages, groups, search pages, badges, rules, repositories) under an index', () => {
    const n = 60_000;
    const byUrl = new Map<string, string>();
    for (let i = 0; i < n; i++) {
      const url = `https://example.org/r${String(i).padStart(5, '0')}`;
      byUrl.set(
        url,
        JSON.stringify({
          url,
          enc: encodeURIComponent(url),
          scans: 1,
          last: 1,
          badges: {},
          rules: {},
          changes: [],
        }),
      );
    }
    const files = siteWideFiles(ctx, sortSummaries(byUrl));
    const locs = (key: string) =>
      [...String(files.find((f) => f.key === key)?.body).matchAll(/<loc>([^<]*)<\/loc>/g)].map(
        (m) => m[1],
      );
    const base = settings.baseUrl;
    // The search's pages, root first, each before the next characters': e (the host) and r, then r0 to r5 (10,000 names each), r00 to r59 (1,000) and r000 to r599 (100 each, a page that lists them).
    const prefixes = ['e', 'r'];
    for (let a = 0; a < 6; a++) {
      prefixes.push(`r${a}`);
      for (let b = 0; b < 10; b++) {
        prefixes.push(`r${a}${b}`);
        for (let c = 0; c < 10; c++) prefixes.push(`r${a}${b}${c}`);
      }
    }
    const search = [`${base}/search/`, ...prefixes.map((p) => `${base}/search/${p}/`)];
    const head = [
      `${base}/`,
      `${base}/repositories/`,
      ...Array.from({ length: n / 100 - 1 }, (_, i) => `${base}/repositories/page/${i + 2}.html`),
      `${base}/groups/`,
      `${base}/groups/example.org/`,
      ...search,
    ];
    const all = [...locs('sitemaps/1.xml'), ...locs('sitemaps/2.xml')];
    expect(locs('sitemaps/1.xml')).toHaveLength(50_000);
    expect(all.slice(0, head.length)).toEqual(head);
    const repos = [...byUrl.keys()].map((u) => `${base}/repositories/${encodeURIComponent(u)}/`);
    expect(all.slice(-repos.length)).toEqual(repos);
    expect(all).toHaveLength(
      head.length + ctx.thresholds.t.badges.length + ctx.thresholds.t.rules.length + n,
    );
    expect(locs('sitemap.xml')).toEqual([`${base}/sitemaps/1.xml`, `${base}/sitemaps/2.xml`]);
    expect(files.some((f) => f.key === 'sitemaps/3.xml')).toBe(false);
  });
});
