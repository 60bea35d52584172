// A crawl without JavaScript from `/` of a site of 3,000 repositories, through `badgepress
// serve`'s resolver over a socket: every <a href> (and form action) of every site-wide page
// (home, full list, host and group pages, lists by badge and status, search page and its
// prefix pages, badge and rule pages) answers 200, every repository's page is reached within
// three clicks of the home page, and every one is also reached from the search page through
// its prefix pages alone (finding by name without JavaScript). The site is the build's pages alone: the synthetic store loaded and evaluated,
// each repository's page and feed rendered, the site-wide pages written from their summaries,
// all by the build's own functions; the API files (17 a repository, most of a full build's
// minute here) are left out, so the repository pages are fetched but their links not
// followed: site-pages.test.ts follows every link of the example sites' full builds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStore, repositoryUrl } from '../scripts/lib/synthetic-store.ts';
import { NOW, serveDir } from './helpers/site-crawl.ts';
import { resolveConfig } from '../src/config/resolve.ts';
import { loadShape } from '../src/pipeline/stages.ts';
import { loadHistories } from '../src/load/histories.ts';
import { DirectoryStore } from '../src/load/store.ts';
import { loadPagesContext } from '../src/render/pages/setup.ts';
import { PagesCollector } from '../src/render/pages/build-pages.ts';
import { siteWideFiles } from '../src/render/pages/site-wide.ts';
import { sortSummaries } from '../src/render/pages/summary.ts';
import { tempDir } from './helpers/tmp.ts';
import type { Serving } from '../src/commands/serve.ts';

const REPOS = 3000;
/**
 * Half the repositories spread 100 a owner over four hosts, half under one owner: a list of
 * 15 pages in a group and of 30 in the full list, each repository still within three clicks.
 */
const urlOf = (i: number) =>
  i < REPOS / 2 ? repositoryUrl(i) : `https://github.com/bigorg/tool${i - REPOS / 2}`;
/** The build's pages of a store: each repository's page and feed, then the site-wide files. */
async function writePages(store: string, out: string): Promise<void> {
  const config = await resolveConfig(undefined, { store, out });
  const shape = loadShape(config);
  const ctx = loadPagesContext(config);
  const pages = new PagesCollector({ ctx, shard: { index: 0, count: 1 } });
  const summaries = new Map<string, string>();
  const write = (key: string, body: string | Uint8Array) => {
    mkdirSync(dirname(join(out, key)), { recursive: true });
    writeFileSync(join(out, key), body);
  };
  for await (const h of loadHistories(new DirectoryStore(store), {
    catalog: shape.evaluator.catalog,
    report: (i) => expect.fail(JSON.stringify(i)),
  })) {
    const { files, summary } = pages.repository(shape.evaluator.evaluate(h, Number(NOW)));
    for (const f of files) write(f.key, f.body);
    summaries.set(h.repositoryUrl, summary);
  }
  for (const f of siteWideFiles(ctx, sortSummaries(summaries))) write(f.key, f.body);
}

/** What a person without JavaScript can follow: links, and the search form's action. */
function hrefsOf(html: string): string[] {
  return [...html.matchAll(/<(?:a [^>]*?href|form [^>]*?action)="([^"]*)"/g)].map((m) =>
    m[1]!
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'"),
  );
}

describe('a 3,000-repository site, crawled from / without JavaScript', () => {
  const dir = tempDir('badgepress-crawl-');
  let serving: Serving;
  const depth = new Map<string, number>();
  const failures: string[] = [];
  let fetched = 0;
  /** The same-site links of each page of the search (search/…), as followed. */
  const searchLinks = new Map<string, string[]>();

  beforeAll(async () => {
    const store = join(dir, 'store');
    generateStore({ repos: REPOS, scans: 1, out: store, urlOf });
    await writePages(store, join(dir, 'out'));
    serving = await serveDir(join(dir, 'out'));
    const origin = new URL(serving.url).origin;
    // Breadth first, so a page's depth is its fewest clicks from the home page.
    let frontier = ['/'];
    depth.set('/', 0);
    for (let d = 0; frontier.length > 0; d++) {
      const next: string[] = [];
      const work = frontier.map((path) => async () => {
        const res = await fetch(`${origin}${path}`, {
          headers: { accept: 'text/html,*/*' },
          redirect: 'manual',
        });
        fetched++;
        const type = res.headers.get('content-type') ?? '';
        const body = await res.text();
        if (res.status !== 200) failures.push(`${res.status} ${path}`);
        if (!type.startsWith('text/html')) return;
        if (/^\/repositories\/[^/]+%3A[^/]*\/$/.test(path)) return;
        const links: string[] = [];
        if (path.startsWith('/search/')) searchLinks.set(path, links);
        for (const link of hrefsOf(body)) {
          const u = new URL(link, `${origin}${path}`);
          if (u.origin !== origin) continue;
          const p = u.pathname + u.search;
          links.push(p);
          if (depth.has(p)) continue;
          depth.set(p, d + 1);
          next.push(p);
        }
      });
      // A few requests at a time: the server shares the machine.
      for (let k = 0; k < work.length; k += 16)
        await Promise.all(work.slice(k, k + 16).map((f) => f()));
      frontier = next;
    }
  }, 120_000);

  afterAll(async () => {
    await serving?.close();
  });

  it('every link answers 200', () => {
    expect(failures).toEqual([]);
    expect(fetched).toBeGreaterThan(REPOS);
    // The new kinds of page were all among them.
    for (const p of [
      '/repositories/',
      '/repositories/page/2.html',
      '/repositories/page/30.html',
      '/groups/',
      '/groups/github.com/',
      '/groups/github.com/bigorg/-/15.html',
      '/groups/gitlab.com/group1/sub/team/',
      '/search/',
      '/search/t/',
      '/search/tool1/',
    ])
      expect(depth.has(p), p).toBe(true);
    expect(
      [...depth.keys()].some((p) => /^\/groups\/github\.com\/-\/MAINTENANCE\/\d+\.html$/.test(p)),
    ).toBe(true);
  });

  it('reaches every repository page within three clicks of the home page', () => {
    const far: string[] = [];
    for (let i = 0; i < REPOS; i++) {
      const path = `/repositories/${encodeURIComponent(urlOf(i))}/`;
      const d = depth.get(path);
      if (d === undefined || d > 3) far.push(`${path} ${d}`);
    }
    expect(far).toEqual([]);
  });

  it('reaches every repository page from the search page through its prefix pages alone', () => {
    // Only the search's own pages are followed: the links out of them are where they lead.
    const reached = new Set<string>();
    const seen = new Set(['/search/']);
    for (let frontier = ['/search/']; frontier.length > 0; ) {
      const next: string[] = [];
      for (const path of frontier)
        for (const p of searchLinks.get(path) ?? []) {
          if (p.startsWith('/repositories/')) reached.add(p);
          else if (p.startsWith('/search/') && !p.includes('?') && !seen.has(p))
            seen.add(p), next.push(p);
        }
      frontier = next;
    }
    // Past 200 names under t, to, too, tool, tool1: pages of their own (1,875 tool…: bigorg's 1,500 and codeberg's 375).
    for (const p of ['/search/t/', '/search/tool/', '/search/tool1/'])
      expect(seen.has(p), p).toBe(true);
    const missed: string[] = [];
    for (let i = 0; i < REPOS; i++) {
      const path = `/repositories/${encodeURIComponent(urlOf(i))}/`;
      if (!reached.has(path)) missed.push(path);
    }
    expect(missed).toEqual([]);
  });
});
