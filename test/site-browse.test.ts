// Finding and browsing, from summary lines: the full list in natural order with badges, a page
// per host and per owner or group path (GitLab subgroups a page per level) whose roll-up counts
// link to lists holding exactly the repositories they count, the search's prefix files (every
// repository found by its name, a bounded number of bytes per query), and hostile URLs and
// group names escaped on every new page.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { resolveConfig } from '../src/config/resolve.ts';
import { loadPagesContext } from '../src/render/pages/setup.ts';
import { siteWideFiles } from '../src/render/pages/site-wide.ts';
import { sortSummaries, type RepositorySummary } from '../src/render/pages/summary.ts';
import { naturalSort } from '../src/render/pages/natural.ts';
import { segmentKey } from '../src/render/pages/groups.ts';
import { shardKey } from '../src/render/pages/search-index.ts';
import { pageRoute } from '../src/resolver/pages.ts';
import { ROOT } from './helpers/cli.ts';
import { HOSTILE } from './helpers/site-crawl.ts';

const config = await resolveConfig(undefined, { store: join(ROOT, 'examples/store'), out: ROOT });
const ctx = loadPagesContext(config);
const BADGES = ctx.thresholds.t.badges.map((b) => b.id);
const STATUSES = ['gold', 'silver', 'bronze', 'fail'];

function summaryLines(urls: readonly string[]): Map<string, string> {
  const byUrl = new Map<string, string>();
  urls.forEach((url, i) => {
    const badges = Object.fromEntries(BADGES.map((b, j) => [b, STATUSES[(i * 7 + j) % 4]!]));
    const s: RepositorySummary = { url, enc: encodeURIComponent(url), scans: 1, last: 1_763_000_000, badges, rules: {}, changes: [] };
    byUrl.set(url, JSON.stringify(s));
  });
  return byUrl;
}

function site(urls: readonly string[]) {
  const byUrl = summaryLines(urls);
  const files = new Map(siteWideFiles(ctx, sortSummaries(byUrl)).map((f) => [f.key, String(f.body)]));
  const body = (key: string) => {
    const b = files.get(key);
    if (b === undefined) throw new Error(`no file ${key}`);
    return b;
  };
  return { byUrl, files, body };
}

/** The repositories a page lists, in order. */
const listed = (html: string) => [...html.matchAll(/<li><a href="[^"]*"><bdi>([^<]*)<\/bdi><\/a> <span class="badges">/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
/** A site path (as an href) as the key the resolver reads. */
const keyOf = (path: string) => pageRoute(path.replace(/#.*/, ''))?.key ?? `unrouted ${path}`;

const URLS = [
  ...Array.from({ length: 12 }, (_, i) => `https://github.com/acme/tool${i}`),
  ...Array.from({ length: 5 }, (_, i) => `https://github.com/Other/x${i}`),
  'https://gitlab.com/top/sub/deep/project2',
  'https://gitlab.com/top/sub/deep/project10',
  'https://gitlab.com/top/sub/lib',
  'https://gitlab.com/top/app',
  'https://git.example.org:8443/platform/svc1',
];

describe('browsing', () => {
  const { files, body } = site(URLS);

  it('lists every repository at /repositories/ in natural order (tool2 before tool10), with a badge image per badge', () => {
    expect(naturalSort(['tool10', 'tool2', 'Tool3', 'tool02', 'a10b', 'a9c'])).toEqual(['a9c', 'a10b', 'tool02', 'tool2', 'Tool3', 'tool10']);
    const page = body('repositories/index.html');
    const shown = listed(page);
    expect(shown).toEqual(naturalSort(URLS));
    expect(shown.indexOf('https://github.com/acme/tool2')).toBeLessThan(shown.indexOf('https://github.com/acme/tool10'));
    const enc = encodeURIComponent('https://github.com/acme/tool2');
    for (const id of BADGES) expect(page).toMatch(new RegExp(`<img class="badge-img" src="/api/v1/repositories/${enc}/badges/${id}\\.svg" alt="${id}: (gold|silver|bronze|fail)" loading="lazy">`));
    expect(pageRoute('/repositories/')?.key).toBe('repositories/index.html');
  });

  it('has a page per host and per group path, GitLab subgroups a page per level, each linked from its parent', () => {
    for (const key of ['groups/index.html', 'groups/github.com/index.html', 'groups/github.com/acme/index.html', 'groups/gitlab.com/top/sub/deep/index.html', `groups/${segmentKey('git.example.org:8443')}/platform/index.html`])
      expect(files.has(key), key).toBe(true);
    // Upper case is escaped (no two keys differ only in case), as is a port's colon.
    expect(files.has(`groups/github.com/${segmentKey('Other')}/index.html`)).toBe(true);
    expect(segmentKey('Other')).not.toBe('other');
    for (const s of ['-', '.', '..', 'Other', 'a:b', HOSTILE.script, HOSTILE.bidi, 'x'.repeat(300)]) expect(segmentKey(s)).toMatch(/^[a-z0-9_][a-z0-9_.-]{0,200}$/);
    expect(body('groups/gitlab.com/top/index.html')).toContain('href="/groups/gitlab.com/top/sub/"');
    expect(body('groups/gitlab.com/top/sub/index.html')).toContain('href="/groups/gitlab.com/top/sub/deep/"');
    // A group lists every repository beneath it, so an owner's page reaches its nested projects.
    expect(listed(body('groups/gitlab.com/top/index.html'))).toEqual(['https://gitlab.com/top/app', 'https://gitlab.com/top/sub/deep/project2', 'https://gitlab.com/top/sub/deep/project10', 'https://gitlab.com/top/sub/lib']);
    // Every new page is one the resolver routes to the key it was written at.
    for (const key of files.keys()) if (key.startsWith('groups/') || key.startsWith('search/')) expect(pageRoute(`/${key}`)?.key, key).toBe(key);
  });

  it('rolls up statuses per badge on the home, badge and group pages; each count links to a list of exactly those repositories', () => {
    const summaries = [...summaryLines(URLS).values()].map((l) => JSON.parse(l) as RepositorySummary);
    const pages = ['index.html', `badges/${BADGES[0]}/index.html`, 'groups/github.com/index.html', 'groups/gitlab.com/top/sub/index.html'];
    let checked = 0;
    for (const key of pages) {
      const html = body(key);
      const scope = key.startsWith('groups/') ? `https://${key.slice('groups/'.length, -'index.html'.length)}` : 'https://';
      for (const m of html.matchAll(/<a href="(\/groups\/[^"]*-\/([A-Za-z0-9_-]+)\/(?:\d+\.html)?)#status-(\w+)">(\d+)<\/a>/g)) {
        const [, path, badge, status, n] = m;
        const expected = summaries.filter((s) => s.url.startsWith(scope) && s.badges[badge!] === status).map((s) => s.url);
        expect(Number(n), `${key} ${badge} ${status}`).toBe(expected.length);
        // The list from the linked page on, under the status's heading, until the next heading.
        const collected: string[] = [];
        let html2 = body(keyOf(path!));
        let at = html2.indexOf(`id="status-${status}"`);
        expect(at, path).toBeGreaterThan(0);
        for (;;) {
          const rest = html2.slice(at);
          const end = rest.indexOf('<h2', 1);
          collected.push(...listed(end > 0 ? rest.slice(0, end) : rest));
          const next = /<a href="([^"]*)">Next<\/a>/.exec(html2);
          if (end > 0 || !next) break;
          html2 = body(keyOf(next[1]!));
          at = html2.indexOf('<h2>');
          if (at < 0) break;
        }
        expect(collected, `${key} ${badge} ${status}`).toEqual(naturalSort(expected));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('pages a large group: 250 repositories under one owner, lists by status split at 100 with their counts pointing at the right page', () => {
    const many = Array.from({ length: 250 }, (_, i) => `https://github.com/big/r${i}`);
    const s = site(many);
    expect(listed(s.body('groups/github.com/big/index.html'))).toEqual(many.slice(0, 100));
    expect(listed(s.body('groups/github.com/big/-/2.html'))).toEqual(many.slice(100, 200));
    expect(listed(s.body('groups/github.com/big/-/3.html'))).toEqual(many.slice(200));
    // The home page keeps the first page of the whole list, and leads on to the second.
    expect(listed(s.body('index.html'))).toEqual(many.slice(0, 100));
    expect(s.body('index.html')).toContain('href="/repositories/page/2.html">Next page of the list</a>');
    const links = [...s.body('groups/github.com/big/index.html').matchAll(/href="\/groups\/github\.com\/big\/-\/([A-Za-z0-9]+)\/(\d+\.html)?#status-(\w+)"/g)];
    expect(links.length).toBe(BADGES.length * 4);
    for (const [, badge, file, status] of links) expect(s.body(`groups/github.com/big/-/${badge}/${file ?? 'index.html'}`)).toContain(`id="status-${status}"`);
  });
});

describe('the search', () => {
  /** The files a query fetches, as site.js walks them, and what it then shows. */
  function query(files: Map<string, string>, name: string): { bytes: number; fetched: number; repositories: string[]; groups: string[] } {
    let key = shardKey('');
    let node = JSON.parse(files.get(key)!) as { more?: string[]; n: number; repositories: Array<[string, string[]]>; groups: Array<[string, string, number]> };
    let bytes = files.get(key)!.length;
    let fetched = 1;
    for (let k = 0; node.more && k < name.length; k++) {
      if (!node.more.includes(name[k]!)) return { bytes, fetched, repositories: [], groups: [] };
      key = shardKey(name.slice(0, k + 1));
      const text = files.get(key);
      expect(text, key).toBeDefined();
      bytes += text!.length;
      fetched++;
      node = JSON.parse(text!);
    }
    const last = (s: string) => s.split('/').filter(Boolean).pop()!.toLowerCase();
    return { bytes, fetched, repositories: node.repositories.map((r) => r[0]).filter((u) => last(u).startsWith(name)), groups: node.groups.map((g) => g[0]).filter((l) => last(l).startsWith(name)) };
  }

  it('finds every repository by its name and every group by its own, with statuses, in a bounded number of bytes', () => {
    const urls = [...URLS, ...Array.from({ length: 1500 }, (_, i) => `https://github.com/org${i % 30}/repo${i}`)];
    const { files } = site(urls);
    let most = 0;
    for (const url of urls) {
      const name = url.split('/').pop()!.toLowerCase();
      const r = query(files, name);
      expect(r.repositories, url).toContain(url);
      most = Math.max(most, r.bytes);
    }
    // 1,500 names starting "repo": the files split until each holds at most 200 entries.
    expect(most).toBeLessThan(40_000);
    expect(query(files, 'sub').groups).toEqual(['gitlab.com/top/sub']);
    expect(query(files, 'org1').groups).toEqual(naturalSort(Array.from({ length: 30 }, (_, i) => `github.com/org${i}`).filter((l) => l.split('/')[1]!.startsWith('org1'))));
    const entry = (JSON.parse(files.get(shardKey('t'))!) as { repositories: Array<[string, string[]]> }).repositories.find((r) => r[0] === 'https://github.com/acme/tool2')!;
    expect(entry[1]).toHaveLength(BADGES.length);
    for (const s of entry[1]) expect(STATUSES).toContain(s);
    expect(JSON.parse(files.get(shardKey(''))!).badges).toEqual(BADGES);
  });

  it('every page has the search form in its header, a GET to the static search page', () => {
    const { files } = site(URLS);
    for (const [key, html] of files) if (key.endsWith('.html')) expect(html, key).toContain('<form class="find find-head" role="search" aria-label="Site search" action="/search/" method="get"');
    expect(files.get('search/index.html')).toContain('href="/groups/github.com/"');
  });
});

describe('hostile repository URLs and group names', () => {
  const urls = [`https://github.com/${HOSTILE.script}/x`, `https://github.com/evil/${HOSTILE.svg}`, `https://github.com/${HOSTILE.bidi}/${HOSTILE.bidi}`, `https://gitlab.com/a&b/${HOSTILE.svg}/deep/r`, `https://github.com/quote"/it's`];
  const { files } = site(urls);

  it('are escaped on every new page: no markup gets through, bidi controls only inside <bdi> or shown by code point', () => {
    const pages = [...files].filter(([k]) => k.endsWith('.html'));
    expect(pages.some(([k]) => k.startsWith('groups/github.com/_'))).toBe(true);
    for (const [key, html] of pages) {
      expect(html, key).not.toContain('<script>alert');
      expect(html, key).not.toContain('<svg onload');
      expect(html, key).not.toMatch(/a&b/);
      const outsideBdi = html.replace(/<bdi>[^<]*<\/bdi>/g, '');
      expect(outsideBdi, key).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    }
    // The JSON files hold the strings as JSON does, and parse back to them.
    const shard = JSON.parse(files.get(shardKey('x'))!) as { repositories: Array<[string]> };
    expect(shard.repositories.map((r) => r[0])).toEqual([urls[0]]);
    const group = [...files.keys()].find((k) => k.startsWith('groups/github.com/_') && !k.includes('/-/') && k.endsWith('/index.html') && files.get(k)!.includes('&lt;script&gt;'));
    expect(group).toBeDefined();
    // The URL's own slash (in </script>) splits it: the first group is "<script>alert(1)<".
    expect(files.get(group!)).toContain('<h1><bdi>github.com/&lt;script&gt;alert(1)&lt;</bdi></h1>');
  });
});
