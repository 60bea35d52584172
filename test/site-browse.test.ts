// Finding and browsing, from summary lines: the full list in natural order with badges, a page
// per host and per owner or group path (GitLab subgroups a page per level) whose roll-up counts
// link to lists holding exactly the repositories they count, the search's prefix files (every
// repository found by its name, a bounded number of bytes per query), and hostile URLs and
// group names escaped on every new page.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../src/config/resolve.ts';
import { loadPagesContext } from '../src/render/pages/setup.ts';
import { siteWideFiles } from '../src/render/pages/site-wide.ts';
import { sortSummaries, type RepositorySummary } from '../src/render/pages/summary.ts';
import { naturalSort } from '../src/render/pages/natural.ts';
import { segmentKey } from '../src/render/pages/groups.ts';
import { PAGES_ALL_NUMBERED, pagerNumbers } from '../src/render/pages/catalogue.ts';
import { shardKey } from '../src/render/pages/search-index.ts';
import { gzipSync } from 'node:zlib';
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
    const s: RepositorySummary = {
      url,
      enc: encodeURIComponent(url),
      scans: 1,
      last: 1_763_000_000,
      badges,
      rules: {},
      changes: [],
    };
    byUrl.set(url, JSON.stringify(s));
  });
  return byUrl;
}

function site(urls: readonly string[]) {
  const byUrl = summaryLines(urls);
  const files = new Map(
    siteWideFiles(ctx, sortSummaries(byUrl)).map((f) => [f.key, String(f.body)]),
  );
  const body = (key: string) => {
    const b = files.get(key);
    if (b === undefined) throw new Error(`no file ${key}`);
    return b;
  };
  return { byUrl, files, body };
}

/** The repositories a page lists, in order. */
const listed = (html: string) =>
  [...html.matchAll(/<li><a href="[^"]*"><bdi>([^<]*)<\/bdi><\/a> <span class="badges">/g)].map(
    (m) => m[1]!.replace(/&amp;/g, '&'),
  );
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
    expect(naturalSort(['tool10', 'tool2', 'Tool3', 'tool02', 'a10b', 'a9c'])).toEqual([
      'a9c',
      'a10b',
      'tool02',
      'tool2',
      'Tool3',
      'tool10',
    ]);
    const page = body('repositories/index.html');
    const shown = listed(page);
    expect(shown).toEqual(naturalSort(URLS));
    expect(shown.indexOf('https://github.com/acme/tool2')).toBeLessThan(
      shown.indexOf('https://github.com/acme/tool10'),
    );
    const enc = encodeURIComponent('https://github.com/acme/tool2');
    for (const id of BADGES)
      expect(page).toMatch(
        new RegExp(
          `<img class="badge-img" src="/api/v1/repositories/${enc}/badges/${id}\\.svg" alt="${id}: (gold|silver|bronze|fail)" loading="lazy">`,
        ),
      );
    expect(pageRoute('/repositories/')?.key).toBe('repositories/index.html');
  });

  it('has a page per host and per group path, GitLab subgroups a page per level, each linked from its parent', () => {
    for (const key of [
      'groups/index.html',
      'groups/github.com/index.html',
      'groups/github.com/acme/index.html',
      'groups/gitlab.com/top/sub/deep/index.html',
      `groups/${segmentKey('git.example.org:8443')}/platform/index.html`,
    ])
      expect(files.has(key), key).toBe(true);
    // Upper case is escaped (no two keys differ only in case), as is a port's colon.
    expect(files.has(`groups/github.com/${segmentKey('Other')}/index.html`)).toBe(true);
    expect(segmentKey('Other')).not.toBe('other');
    for (const s of ['-', '.', '..', 'Other', 'a:b', HOSTILE.script, HOSTILE.bidi, 'x'.repeat(300)])
      expect(segmentKey(s)).toMatch(/^[a-z0-9_][a-z0-9_.-]{0,200}$/);
    expect(body('groups/gitlab.com/top/index.html')).toContain(
      'href="/groups/gitlab.com/top/sub/"',
    );
    expect(body('groups/gitlab.com/top/sub/index.html')).toContain(
      'href="/groups/gitlab.com/top/sub/deep/"',
    );
    // A group lists every repository beneath it, so an owner's page reaches its nested projects.
    expect(listed(body('groups/gitlab.com/top/index.html'))).toEqual([
      'https://gitlab.com/top/app',
      'https://gitlab.com/top/sub/deep/project2',
      'https://gitlab.com/top/sub/deep/project10',
      'https://gitlab.com/top/sub/lib',
    ]);
    // Every new page is one the resolver routes to the key it was written at.
    for (const key of files.keys())
      if (key.startsWith('groups/') || key.startsWith('search/'))
        expect(pageRoute(`/${key}`)?.key, key).toBe(key);
  });

  it('rolls up statuses per badge on the home, badge and group pages; each count links to a list of exactly those repositories', () => {
    const summaries = [...summaryLines(URLS).values()].map(
      (l) => JSON.parse(l) as RepositorySummary,
    );
    const pages = [
      'index.html',
      `badges/${BADGES[0]}/index.html`,
      'groups/github.com/index.html',
      'groups/gitlab.com/top/sub/index.html',
    ];
    let checked = 0;
    for (const key of pages) {
      const html = body(key);
      const scope = key.startsWith('groups/')
        ? `https://${key.slice('groups/'.length, -'index.html'.length)}`
        : 'https://';
      for (const m of html.matchAll(
        /<a href="(\/groups\/[^"]*-\/([A-Za-z0-9_-]+)\/(?:\d+\.html)?)#status-(\w+)">(\d+)<\/a>/g,
      )) {
        const [, path, badge, status, n] = m;
        const expected = summaries
          .filter((s) => s.url.startsWith(scope) && s.badges[badge!] === status)
          .map((s) => s.url);
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
    expect(s.body('index.html')).toContain(
      'href="/repositories/page/2.html">Next page of the list</a>',
    );
    const links = [
      ...s
        .body('groups/github.com/big/index.html')
        .matchAll(
          /href="\/groups\/github\.com\/big\/-\/([A-Za-z0-9]+)\/(\d+\.html)?#status-(\w+)"/g,
        ),
    ];
    expect(links.length).toBe(BADGES.length * 4);
    for (const [, badge, file, status] of links)
      expect(s.body(`groups/github.com/big/-/${badge}/${file ?? 'index.html'}`)).toContain(
        `id="status-${status}"`,
      );
  });
});

describe('pagers and counts', () => {
  it('numbers every page of a list up to 50 pages; a longer one is still a few clicks from end to end', () => {
    expect(PAGES_ALL_NUMBERED).toBe(50);
    for (const page of [1, 17, 50])
      expect(pagerNumbers(page, 50)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // Page 537 of 1,000, written out by hand: the hundreds, the tens of its hundred, the ones of its ten.
    expect(pagerNumbers(537, 1000)).toEqual([
      1, 100, 200, 300, 400, 500, 510, 520, 530, 531, 532, 533, 534, 535, 536, 537, 538, 539, 540,
      550, 560, 570, 580, 590, 600, 700, 800, 900, 1000,
    ]);
    for (const pages of [51, 1000, 2345]) {
      // Clicks from the first page to each other, following the numbers alone.
      const clicks = new Map([[1, 0]]);
      for (let frontier = [1]; frontier.length > 0; ) {
        const next: number[] = [];
        for (const p of frontier)
          for (const q of pagerNumbers(p, pages))
            if (!clicks.has(q)) clicks.set(q, clicks.get(p)! + 1), next.push(q);
        frontier = next;
      }
      expect(clicks.size, `${pages} pages`).toBe(pages);
      expect(Math.max(...clicks.values()), `${pages} pages`).toBeLessThanOrEqual(4);
      expect(pagerNumbers(pages >> 1, pages).length, `${pages} pages`).toBeLessThanOrEqual(40);
    }
  });

  it("marks the current page and links each other page's number", () => {
    const s = site(Array.from({ length: 250 }, (_, i) => `https://github.com/big/r${i}`));
    const nav = /<nav class="pager"[^>]*>.*?<\/nav>/.exec(
      s.body('groups/github.com/big/-/2.html'),
    )![0];
    expect(nav).toContain('<span>Page 2 of 3</span>');
    expect(nav).toContain('<li><span aria-current="page">2</span></li>');
    expect(
      [...nav.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].map((m) => `${m[2]} ${m[1]}`),
    ).toEqual([
      'Previous /groups/github.com/big/',
      '1 /groups/github.com/big/',
      '3 /groups/github.com/big/-/3.html',
      'Next /groups/github.com/big/-/3.html',
    ]);
  });

  it('says "1 repository", and links the counts of the home page and of hosts and groups to the repositories counted', () => {
    const one = site(['https://github.com/acme/only']);
    for (const [key, html] of one.files)
      expect(html, key).not.toMatch(/\b1 (repositories|hosts|groups)\b/);
    expect(one.body('index.html')).toContain(
      '<p class="lead"><a href="/repositories/">1 repository</a> and its badges',
    );
    const { body } = site(URLS);
    expect(body('index.html')).toContain(
      `<p class="lead"><a href="/repositories/">${URLS.length} repositories</a> and their badges`,
    );
    // A host's count: the host's page, where it lists them.
    expect(body('groups/index.html')).toContain(
      '<li><a href="/groups/github.com/"><bdi>github.com</bdi></a> <a class="count" href="/groups/github.com/#repos">17 repositories</a></li>',
    );
    expect(body('groups/github.com/index.html')).toContain('<h2 id="repos">');
    expect(body('groups/gitlab.com/top/index.html')).toContain(
      '<a class="count" href="/groups/gitlab.com/top/sub/#repos">3 repositories</a>',
    );
  });
});

describe('the search', () => {
  /** The files a query fetches, as site.js walks them, and what it then shows. */
  function query(
    files: Map<string, string>,
    name: string,
  ): { bytes: number; fetched: number; repositories: string[]; groups: string[] } {
    let key = shardKey('');
    let node = JSON.parse(files.get(key)!) as {
      more?: string[];
      n: number;
      repositories: Array<[string, string[]]>;
      groups: Array<[string, string, number]>;
    };
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
    return {
      bytes,
      fetched,
      repositories: node.repositories.map((r) => r[0]).filter((u) => last(u).startsWith(name)),
      groups: node.groups.map((g) => g[0]).filter((l) => last(l).startsWith(name)),
    };
  }

  it('finds every repository by its name and every group by its own, with statuses, in a bounded number of bytes', () => {
    const urls = [
      ...URLS,
      ...Array.from({ length: 1500 }, (_, i) => `https://github.com/org${i % 30}/repo${i}`),
    ];
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
    expect(query(files, 'org1').groups).toEqual(
      naturalSort(
        Array.from({ length: 30 }, (_, i) => `github.com/org${i}`).filter((l) =>
          l.split('/')[1]!.startsWith('org1'),
        ),
      ),
    );
    const entry = (
      JSON.parse(files.get(shardKey('t'))!) as { repositories: Array<[string, string[]]> }
    ).repositories.find((r) => r[0] === 'https://github.com/acme/tool2')!;
    expect(entry[1]).toHaveLength(BADGES.length);
    for (const s of entry[1]) expect(STATUSES).toContain(s);
    expect(JSON.parse(files.get(shardKey(''))!).badges).toEqual(BADGES);
  });

  /**
   * Without JavaScript: from the search page, the link labelled by a longer start of `name`
   * each time, as a person would follow them, until a page lists what is sought (or no link is
   * left); then that page and its further pages (Next). What they list, and the pages read.
   */
  function byName(
    files: Map<string, string>,
    name: string,
  ): { repositories: string[]; groups: string[]; pages: string[] } {
    const page = (path: string) => {
      const key = keyOf(path);
      const html = files.get(key);
      expect(html, `${path} (${key})`).toBeDefined();
      return html!;
    };
    let path = '/search/';
    let html = page(path);
    const pages = [path];
    for (let typed = ''; ; ) {
      // Links to the next characters' pages are labelled by the prefix they lead to.
      const label = (m: RegExpMatchArray) =>
        m[2]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
      const next = [
        ...html.matchAll(
          /<li><a href="(\/search\/[^"]+\/)"><bdi>([^<]*)<\/bdi><\/a> <span class="count">/g,
        ),
      ].find((m) => label(m).length > typed.length && name.startsWith(label(m)));
      if (!next) break;
      typed = label(next);
      path = next[1]!;
      html = page(path);
      pages.push(path);
    }
    const repositories = listed(html);
    const groups = [
      ...html.matchAll(
        /<li><a href="\/groups\/[^"]*"><bdi>([^<]*)<\/bdi><\/a> <a class="count" href="[^"]*">[\d,]+ repositor/g,
      ),
    ].map((m) => m[1]!);
    for (
      let next = /<a href="([^"]*)">Next<\/a>/.exec(html);
      next;
      next = /<a href="([^"]*)">Next<\/a>/.exec(html)
    ) {
      html = page(next[1]!);
      pages.push(next[1]!);
      repositories.push(...listed(html));
    }
    return { repositories, groups, pages };
  }

  it('without JavaScript, finds every repository and group by its name through the search pages, a click where names part', () => {
    const urls = [
      ...URLS,
      ...Array.from({ length: 1500 }, (_, i) => `https://github.com/org${i % 30}/repo${i}`),
    ];
    const { files } = site(urls);
    // The search page says what works without JavaScript and links the first characters.
    const search = files.get('search/index.html')!;
    expect(search).toContain('<h2 id="by-name">Find by name</h2>');
    // Every name under r starts "repo": the link goes there at once.
    for (const c of ['a', 'g', 'l', 'o', 'p', 'repo', 's', 't', 'x'])
      expect(search, c).toContain(`<li><a href="/search/${c}/"><bdi>${c}</bdi></a>`);
    expect(search).not.toContain('href="/search/r/"');
    let most = 0;
    for (const url of urls) {
      const r = byName(files, url.split('/').pop()!.toLowerCase());
      expect(r.repositories, url).toContain(url);
      most = Math.max(most, r.pages.length);
    }
    // 1,500 names under "repo": past 200 under repo and repo1 (1 + 10 + 100 + 500), 111 under repo12;
    // r, re and rep have pages of their own (a typed address, the crumbs) that no link needs.
    expect(byName(files, 'repo123').pages).toEqual([
      '/search/',
      '/search/repo/',
      '/search/repo1/',
      '/search/repo12/',
    ]);
    expect(most).toBe(4);
    expect(files.get('search/rep/index.html')).toContain(
      '<li><a href="/search/repo/"><bdi>repo</bdi></a> <span class="count">1,500 names</span></li>',
    );
    expect(byName(files, 'sub').groups).toEqual(['gitlab.com/top/sub']);
    expect(byName(files, 'github.com').groups).toEqual([
      'git.example.org:8443',
      'github.com',
      'gitlab.com',
    ]);
    // A page holding every name under its prefix lists them in natural order of the name (tool2 before tool10).
    expect(listed(files.get('search/t/index.html')!)).toEqual(
      Array.from({ length: 12 }, (_, i) => `https://github.com/acme/tool${i}`),
    );
    const repo12 = [
      12,
      ...Array.from({ length: 10 }, (_, i) => 120 + i),
      ...Array.from({ length: 100 }, (_, i) => 1200 + i),
    ];
    expect(byName(files, 'repo123').repositories).toEqual(
      repo12.map((i) => `https://github.com/org${i % 30}/repo${i}`),
    );
    // A page of a prefix that more than 200 names start with lists those named it exactly, and links the next characters with their counts.
    const repo1 = files.get('search/repo1/index.html')!;
    expect(listed(repo1)).toEqual(['https://github.com/org1/repo1']);
    expect(repo1).toContain(
      '<li><a href="/search/repo10/"><bdi>repo10</bdi></a> <span class="count">111 names</span></li>',
    );
    expect(repo1).toContain(
      '<nav class="crumbs" aria-label="Breadcrumb"><ol><li><a href="/search/">Find a repository</a></li><li><a href="/search/r/"><bdi>r</bdi></a></li>',
    );
    // Every link of every search page goes to a file the site has.
    for (const [key, html] of files)
      if (key.startsWith('search/') && key.endsWith('.html'))
        for (const m of html.matchAll(/<a href="(\/(?:search|groups|repositories)\/[^"#]*)/g))
          if (!m[1]!.startsWith('/repositories/https'))
            expect(files.has(keyOf(m[1]!)), `${key}: ${m[1]}`).toBe(true);
    // The sitemap names the search page and each prefix's first page.
    const sitemap = files.get('sitemap.xml')!;
    for (const p of ['search/', 'search/r/', 'search/repo12/'])
      expect(sitemap).toContain(`<loc>${ctx.settings.baseUrl}/${p}</loc>`);
  });

  it('without JavaScript, pages a name 250 repositories share, and finds each of 250 sharing 30 characters', () => {
    const same = Array.from({ length: 250 }, (_, i) => `https://github.com/o${i}/same`);
    const long = Array.from(
      { length: 250 },
      (_, i) => `https://github.com/p${i}/${'a'.repeat(30)}${i}`,
    );
    const { files } = site([...same, ...long]);
    const s = byName(files, 'same');
    expect(s.pages).toEqual(['/search/', '/search/same/', '/search/same/2.html']);
    expect(s.repositories).toEqual(naturalSort(same));
    // Past 24 characters the tree splits on, its keys a segment per 24 characters.
    for (const url of long)
      expect(byName(files, url.split('/').pop()!).repositories, url).toContain(url);
    expect(byName(files, `${'a'.repeat(30)}1`).pages.slice(-1)).toEqual([
      `/search/${'a'.repeat(24)}/${'a'.repeat(6)}1/`,
    ]);
    expect(files.has(`search/${'a'.repeat(24)}/${'a'.repeat(6)}1.json`)).toBe(true);
    // The JSON file of a name 250 share holds 200, its second part 50.
    expect(JSON.parse(files.get(shardKey('same'))!)).toMatchObject({ n: 250, own: 250, parts: 2 });
    expect(
      (JSON.parse(files.get(shardKey('same', 2))!) as { repositories: unknown[] }).repositories,
    ).toHaveLength(50);
    // 200 repositories with their badges on one page stay under the 30 KB a page may weigh compressed.
    expect(gzipSync(files.get('search/same/index.html')!).byteLength).toBeLessThan(30 * 1024);
  });

  /**
   * site.js's own search (its Finder, taken from the template as the browser runs it) over the
   * built files: what a query finds, and the files it fetched.
   */
  async function scriptFinds(files: Map<string, string>, query: string) {
    const src = readFileSync(join(ROOT, 'templates/site.js'), 'utf8');
    const body = src.slice(
      src.indexOf('  function shardName('),
      src.indexOf('  // A results region after a form'),
    );
    const fetched: string[] = [];
    const fetchFile = (url: string) => {
      fetched.push(url);
      const text = files.get(url.slice(1));
      return Promise.resolve({
        ok: text !== undefined,
        status: text === undefined ? 404 : 200,
        json: () => Promise.resolve(JSON.parse(text!)),
      });
    };
    // Enough of a document for render() to build its list into nothing.
    const node = () => ({ appendChild: () => {}, textContent: '' });
    const document = { createElement: node, createTextNode: node };
    const Finder = new Function('fetch', 'document', `${body}\nreturn Finder;`)(
      fetchFile,
      document,
    );
    const attributes: Record<string, string> = {
      'data-search': '/search/',
      'data-pages': '/repositories/',
      'data-groups': '/groups/',
      'data-api': '/api/v1/repositories/',
    };
    const finder = new Finder({ getAttribute: (n: string) => attributes[n] });
    const found = (await finder.find(query)) as {
      repositories: Array<[string, string[]]>;
      more: number;
      unlisted: number;
    };
    const status = finder.render(node(), found, 10) as string;
    return {
      repositories: found.repositories.map((r) => r[0]),
      more: found.more,
      unlisted: found.unlisted,
      fetched,
      status,
    };
  }

  it('the script finds every name that more than 200 share 24 characters with, and one of 250 same names by its path', async () => {
    const long = Array.from(
      { length: 250 },
      (_, i) => `https://github.com/p${i}/${'a'.repeat(30)}${i}`,
    );
    const same = Array.from({ length: 250 }, (_, i) => `https://github.com/o${i}/same`);
    const { files } = site([...long, ...same]);
    for (const url of long) {
      const name = url.split('/').pop()!;
      expect((await scriptFinds(files, name)).repositories, name).toContain(url);
      expect(
        (await scriptFinds(files, `p${url.split('/')[3]!.slice(1)}/${name}`)).repositories,
        name,
      ).toEqual([url]);
    }
    // A name 250 repositories share: the first file lists 200 and counts the rest as matches;
    // a path looks through every part of it.
    const all = await scriptFinds(files, 'same');
    expect([all.repositories.length, all.unlisted, all.fetched]).toEqual([
      200,
      50,
      [
        '/search/-.json',
        '/search/s.json',
        '/search/sa.json',
        '/search/sam.json',
        '/search/same.json',
      ],
    ]);
    expect(all.status).toBe('10 of 250 matches shown.');
    for (const i of [0, 199, 200, 249])
      expect((await scriptFinds(files, `o${i}/same`)).repositories).toEqual([
        `https://github.com/o${i}/same`,
      ]);
    expect((await scriptFinds(files, 'o249/same')).fetched.slice(-2)).toEqual([
      '/search/same.json',
      '/search/same.2.json',
    ]);
    // With a path, the names under longer prefixes are not counted as if they matched it.
    expect((await scriptFinds(files, 'aaaa')).status).toBe(
      '0 matches. 250 more names hold these letters: type more of the name.',
    );
    expect((await scriptFinds(files, 'p7/aaaa')).status).toBe(
      '0 matches. More names hold these letters: type more of the name to look among them too.',
    );
  });

  it('the script finds any part of a name, whole-name starts first, each once, a letter in two files', async () => {
    const ssh = [
      'https://github.com/libssh2/libssh2',
      'https://github.com/openssh/openssh-portable',
      'https://github.com/x/ssh',
      'https://github.com/arthepsy/ssh-audit',
    ];
    // 1,000 names ending in 0, many with more 0s ("mod1000"): more than a file holds.
    const zeros = Array.from({ length: 1000 }, (_, i) => `https://github.com/o${i % 40}/mod${i}0`);
    const urls = [...URLS, ...ssh, ...zeros];
    const { files } = site(urls);
    const found = await scriptFinds(files, 'ssh');
    expect(found.repositories.slice(0, 2).sort()).toEqual([
      'https://github.com/arthepsy/ssh-audit',
      'https://github.com/x/ssh',
    ]);
    expect(found.repositories.slice(2).sort()).toEqual([
      'https://github.com/libssh2/libssh2',
      'https://github.com/openssh/openssh-portable',
    ]);
    expect((await scriptFinds(files, 'h-aud')).repositories).toEqual([
      'https://github.com/arthepsy/ssh-audit',
    ]);
    // "0": the names holding it, counted by hand: the 1,000 mods, tool0, tool10, x0, project10,
    // and the owners o0, o10, o20 and o30. Three files fetched (the root, 0's, and 0's names
    // ending in it), 200 listed, no name twice.
    const zero = await scriptFinds(files, '0');
    expect(zero.fetched).toEqual(['/search/-.json', '/search/0.json', '/search/0.ends.json']);
    expect(zero.repositories).toHaveLength(200);
    expect(new Set(zero.repositories).size).toBe(200);
    expect(zero.status).toBe('10 of 1008 matches shown.');
    for (const q of ['0', '00', 'mod1', 'o', 'd10', 's']) {
      const r = await scriptFinds(files, q);
      expect(new Set(r.repositories).size, q).toBe(r.repositories.length);
      expect(r.fetched.length, q).toBeLessThanOrEqual(q.length + 2);
    }
    const mod100 = await scriptFinds(files, 'mod100');
    expect(mod100.repositories.sort()).toEqual(
      zeros.filter((u) => u.split('/').pop()!.startsWith('mod100')).sort(),
    );
    // Every file holds at most 200 entries, none twice.
    for (const [key, text] of files)
      if (key.startsWith('search/') && key.endsWith('.json')) {
        const f = JSON.parse(text) as { repositories: Array<[string]>; groups: Array<[string]> };
        const keys = [...f.repositories.map((r) => r[0]), ...f.groups.map((g) => `group ${g[0]}`)];
        expect(keys.length, key).toBeLessThanOrEqual(200);
        expect(new Set(keys).size, key).toBe(keys.length);
      }
  });

  it('every page has the search form in its header, a GET to the static search page', () => {
    const { files } = site(URLS);
    for (const [key, html] of files)
      if (key.endsWith('.html'))
        expect(html, key).toContain(
          '<form class="find find-head" role="search" aria-label="Site search" action="/search/" method="get"',
        );
    expect(files.get('search/index.html')).toContain('href="/groups/github.com/"');
  });
});

describe('hostile repository URLs and group names', () => {
  const urls = [
    `https://github.com/${HOSTILE.script}/x`,
    `https://github.com/evil/${HOSTILE.svg}`,
    `https://github.com/${HOSTILE.bidi}/${HOSTILE.bidi}`,
    `https://gitlab.com/a&b/${HOSTILE.svg}/deep/r`,
    `https://github.com/quote"/it's`,
    'https://github.com/e/\u{1F600}x',
  ];
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
    // Every name holding x: the one named x first, then "\u{1F600}x" (ending x) and the bidi one (…exe).
    expect(shard.repositories.map((r) => r[0])).toEqual([urls[0], urls[5], urls[2]]);
    const group = [...files.keys()].find(
      (k) =>
        k.startsWith('groups/github.com/_') &&
        !k.includes('/-/') &&
        k.endsWith('/index.html') &&
        files.get(k)!.includes('&lt;script&gt;'),
    );
    expect(group).toBeDefined();
    // The URL's own slash (in </script>) splits it: the first group is "<script>alert(1)<".
    expect(files.get(group!)).toContain(
      '<h1><bdi>github.com/&lt;script&gt;alert(1)&lt;</bdi></h1>',
    );
  });

  it('are escaped on the search pages too, each at a path of its own that the resolver routes to it', () => {
    const pages = [...files.keys()].filter((k) => k.startsWith('search/') && k.endsWith('.html'));
    // The search page, and one page a first character of a name: the repositories' x " U+202E r i and the emoji's first half, the groups' < s e a " d q g.
    expect(pages.sort()).toEqual([
      'search/_202e_/index.html',
      'search/_22_/index.html',
      'search/_3c_/index.html',
      'search/_d83d_/index.html',
      'search/a/index.html',
      'search/d/index.html',
      'search/e/index.html',
      'search/g/index.html',
      'search/i/index.html',
      'search/index.html',
      'search/q/index.html',
      'search/r/index.html',
      'search/s/index.html',
      'search/x/index.html',
    ]);
    for (const key of pages)
      expect(pageRoute(`/${key.replace(/index\.html$/, '')}`)?.key, key).toBe(key);
    const search = files.get('search/index.html')!;
    expect(search).toContain(
      '<li><a href="/search/_22_/"><bdi>&quot;</bdi></a> <span class="count">2 names</span></li>',
    );
    expect(search).toContain(
      '<li><a href="/search/_3c_/"><bdi>&lt;</bdi></a> <span class="count">1 name</span></li>',
    );
    // A character that draws nothing or reorders text, or half a surrogate pair, is shown by its code point.
    expect(search).toContain('<li><a href="/search/_202e_/"><bdi>[U+202E]</bdi></a>');
    expect(search).toContain('<li><a href="/search/_d83d_/"><bdi>[U+D83D]</bdi></a>');
    expect(files.get('search/_202e_/index.html')).toContain('<title>Names starting [U+202E] · ');
    expect(files.get('search/_d83d_/index.html')).toContain(
      '<h1>Names starting <bdi>[U+D83D]</bdi></h1>',
    );
    expect(listed(files.get('search/_d83d_/index.html')!)).toEqual([
      'https://github.com/e/\u{1F600}x',
    ]);
    expect(files.get('search/_22_/index.html')).toContain(
      '<bdi>https://github.com/evil/&quot;&gt;&lt;svg onload=alert(2)&gt;</bdi>',
    );
    expect(files.get('search/_3c_/index.html')).toContain(
      '<li><a href="/groups/github.com/_3c7363726970743e616c6572742831293c/"><bdi>github.com/&lt;script&gt;alert(1)&lt;</bdi></a>',
    );
  });
});
