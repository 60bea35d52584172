// The human site without a browser: a crawl from / through serve reaches every repository
// page and finds no dead link; hostile strings stay text; sharded builds plus `badgepress
// site` equal one unsharded build; pages are deterministic, valid Atom, and published after
// the repository's API files.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ROOT, runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { readTree } from './helpers/site.ts';
import {
  runBuild,
  crawl,
  HOSTILE,
  hostileStoreB,
  NOW,
  serveDir,
  shapeBConfig,
  type Crawl,
} from './helpers/site-crawl.ts';
import type { Serving } from '../src/commands/serve.ts';
import { build } from '../src/pipeline/loop.ts';
import { resolveConfig } from '../src/config/resolve.ts';
import { loadShape } from '../src/pipeline/stages.ts';
import { DirectoryStore } from '../src/load/store.ts';
import { DirectorySink } from '../src/publish/dir-sink.ts';
import { pagesBuild } from '../src/render/pages/setup.ts';
import type { PublishFile } from '../src/model/publish-file.ts';

const dir = tempDir('badgepress-pages-');
const outA = join(dir, 'a');
const outB = join(dir, 'b');
const servers: Serving[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

function repositoryDirs(out: string): string[] {
  return readdirSync(join(out, 'repositories')).filter((n) => n.includes('%3A'));
}

describe.each([
  ['A', outA, () => runBuild(['--store', join(ROOT, 'examples/store'), '--out', outA])],
  [
    'B',
    outB,
    () =>
      runBuild([
        '--config',
        shapeBConfig(dir),
        '--store',
        join(ROOT, 'examples/shape-b/store'),
        '--out',
        outB,
      ]),
  ],
])('Shape %s site through serve', (_shape, out, make) => {
  let site: Crawl;
  let base: string;
  beforeAll(async () => {
    await make();
    const serving = await serveDir(out);
    servers.push(serving);
    base = serving.url;
    site = await crawl(base);
  }, 120_000);

  it('a crawl from / reaches every repository page, and every link and asset answers 200', () => {
    const failed = [...site.visited]
      .filter(([, r]) => r.status !== 200)
      .map(([p, r]) => `${r.status} ${p}`);
    expect(failed).toEqual([]);
    const reached = [...site.visited.keys()]
      .filter((p) => /^\/repositories\/[^/]+%3A[^/]+\/$/.test(p))
      .map((p) => p.split('/')[2]);
    expect(reached.sort()).toEqual(repositoryDirs(out).sort());
    // Badge and rule pages, the feed, the latest SARIF, per-time files and assets are all linked.
    for (const re of [
      /^\/badges\/[^/]+\/$/,
      /^\/rules\/[^/]+\/$/,
      /\/feed\.atom$/,
      /\/sarif$/,
      /\/at\/\d+\/sarif$/,
      /^\/assets\/site\.[0-9a-f]+\.css$/,
      /^\/assets\/site\.[0-9a-f]+\.js$/,
    ]) {
      expect(
        [...site.visited.keys()].some((p) => re.test(p)),
        String(re),
      ).toBe(true);
    }
    // Nothing outside the site but the repositories themselves.
    const repos = new Set(repositoryDirs(out).map((e) => decodeURIComponent(e)));
    expect(
      [...site.external].filter((u) => ![...repos].some((r) => u === new URL(r).href)),
    ).toEqual([]);
  });

  it('pages are text/html with a Content-Security-Policy that forbids inline script, and use no inline script or style', () => {
    const pages = [...site.visited].filter(([, r]) => r.type.startsWith('text/html'));
    expect(pages.length).toBeGreaterThan(5);
    for (const [path, r] of pages) {
      expect(r.type, path).toBe('text/html; charset=utf-8');
      expect(r.csp, path).toMatch(/script-src 'self';/);
      expect(r.csp, path).not.toContain('unsafe-inline');
      expect(r.body.match(/<script\b/g), path).toEqual(['<script']);
      expect(r.body, path).toMatch(/<script src="\/assets\/site\.[0-9a-f]+\.js" defer><\/script>/);
      expect(r.body, path).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
    }
  });

  it('a miss answers the site 404 page to a browser and problem+json to an API client', async () => {
    const html = await fetch(`${base}/no/such/page`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(404);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await html.text()).toContain('Page not found');
    const api = await fetch(`${base}/no/such/page`, { headers: { accept: 'application/json' } });
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toBe('application/problem+json');
    const img = await fetch(
      `${base}/api/v1/repositories/https%3A%2F%2Fnone.example%2Fx/badges/X.svg`,
      {
        headers: { accept: 'text/html' },
      },
    );
    expect(img.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('every feed is well-formed Atom 1.0 with the required elements', () => {
    const feeds = [...site.visited].filter(([p]) => p.endsWith('/feed.atom'));
    expect(feeds.length).toBe(repositoryDirs(out).length);
    const parser = new XMLParser({
      ignoreAttributes: false,
      isArray: (name) => name === 'entry' || name === 'link',
    });
    for (const [path, r] of feeds) {
      expect(r.type).toBe('application/xml');
      expect(r.csp, path).toContain("style-src 'self'");
      expect(XMLValidator.validate(r.body), path).toBe(true);
      const feed = parser.parse(r.body).feed;
      expect(feed['@_xmlns']).toBe('http://www.w3.org/2005/Atom');
      for (const k of ['id', 'title', 'updated', 'author'])
        expect(feed[k], `${path} ${k}`).toBeDefined();
      expect(feed.link.some((l: Record<string, string>) => l['@_rel'] === 'self')).toBe(true);
      expect(feed.entry.length).toBeGreaterThan(0);
      for (const e of feed.entry)
        for (const k of ['id', 'title', 'updated', 'summary'])
          expect(e[k], `${path} entry ${k}`).toBeDefined();
    }
  });

  it('no generated file names badgepress.dev; badges and rules link the site itself', () => {
    for (const [key, body] of readTree(out))
      expect(body.toString('utf8').includes('badgepress.dev'), key).toBe(false);
  });
});

describe('hostile strings in URLs, evidence and notes', () => {
  it('appear as text, never as markup, on every page and feed', async () => {
    const out = join(dir, 'hostile');
    await runBuild(['--config', shapeBConfig(dir), '--store', hostileStoreB(dir), '--out', out]);
    const serving = await serveDir(out);
    servers.push(serving);
    const site = await crawl(serving.url);
    expect(
      [...site.visited].filter(([, r]) => r.status !== 200).map(([p, r]) => `${r.status} ${p}`),
    ).toEqual([]);
    expect(repositoryDirs(out)).toHaveLength(3);
    let sawEscaped = 0;
    for (const [path, r] of site.visited) {
      if (!/html|atom|xml/.test(r.type)) continue;
      expect(r.body, path).not.toContain('<script>alert');
      expect(r.body, path).not.toMatch(/<svg onload/i);
      if (r.type.startsWith('text/html')) {
        // A bidi override is isolated in <bdi>: it cannot reorder the text around it.
        for (let i = r.body.indexOf('\u202E'); i >= 0; i = r.body.indexOf('\u202E', i + 1)) {
          expect(r.body.lastIndexOf('<bdi>', i), path).toBeGreaterThan(
            r.body.lastIndexOf('</bdi>', i),
          );
        }
      }
      if (r.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;')) sawEscaped++;
    }
    expect(sawEscaped).toBeGreaterThan(3);
    // The evidence and the grant note (2 KB) are on the repository page, as text.
    const page = [...site.visited].find(
      ([p]) =>
        p.includes(encodeURIComponent(HOSTILE.script).slice(0, 6)) &&
        p.includes('script') &&
        p.endsWith('/'),
    );
    expect(page).toBeDefined();
    expect(page![1].body).toContain('A'.repeat(2048));
    // 2 KB request paths answer 404 (a page for browsers), never 5xx.
    for (const path of [
      `/repositories/${'%3C'.repeat(700)}/`,
      `/rules/${'x'.repeat(2048)}/`,
      `/badges/${'B'.repeat(2048)}/`,
      `/${HOSTILE.svg}`,
    ]) {
      const res = await fetch(`${serving.url}${path.replace(/ /g, '%20').replace(/"/g, '%22')}`, {
        headers: { accept: 'text/html' },
      });
      expect(res.status, path).toBe(404);
      expect(await res.text()).toContain('Page not found');
    }
  }, 120_000);
});

describe('sharded builds and badgepress site', () => {
  it('n shards plus the site step write exactly the files of one unsharded build', async () => {
    const whole = join(dir, 'whole');
    const sharded = join(dir, 'sharded');
    const store = join(ROOT, 'examples/store');
    await runBuild(['--store', store, '--out', whole]);
    for (const i of [0, 1, 2])
      await runBuild(['--store', store, '--out', sharded, '--shard', `${i}/3`]);
    // Before the site step there is no home page: the shards write none.
    expect(readdirSync(sharded)).not.toContain('index.html');
    const site = runCli(['site', '--shards', '3', '--out', sharded]);
    expect(site.stderr).toBe('');
    expect(site.code).toBe(0);
    const strip = (m: Map<string, Buffer>) =>
      new Map([...m].filter(([k]) => !k.startsWith('.badgepress/')));
    const a = strip(readTree(whole));
    const b = strip(readTree(sharded));
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [k, v] of a) expect(b.get(k)!.equals(v), k).toBe(true);
  }, 180_000);

  it('a missing shard summary is a clear error naming the shard and what to run', async () => {
    const out = join(dir, 'partial');
    await runBuild(['--store', join(ROOT, 'examples/store'), '--out', out, '--shard', '0/2']);
    const r = runCli(['site', '--shards', '2', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no summaries of shard 1/2');
    expect(r.stderr).toContain('badgepress build --shard i/2');
  }, 60_000);

  it('pages: false writes the API only', async () => {
    const out = join(dir, 'nopages');
    const cfg = join(dir, 'nopages.yaml');
    writeFileSync(cfg, 'pages: false\n');
    await runBuild(['--config', cfg, '--store', join(ROOT, 'examples/store'), '--out', out]);
    expect(readdirSync(out).sort()).toEqual(['.badgepress', 'api']); // the build state, never served
  }, 60_000);
});

describe('publishing and determinism', () => {
  it('a repository page goes out after every API file of its repository, site pages after all', async () => {
    const config = await resolveConfig(undefined, {
      store: join(ROOT, 'examples/store'),
      out: join(dir, 'order'),
    });
    const inner = new DirectorySink(join(dir, 'order'));
    const order: string[] = [];
    const sink = Object.assign(Object.create(inner) as DirectorySink, {
      put: async (f: PublishFile) => {
        const outcome = await inner.put(f);
        order.push(f.key);
        return outcome;
      },
    });
    await build({
      shape: loadShape(config),
      store: new DirectoryStore(config.settings.store),
      sink,
      now: Number(NOW),
      report: () => {},
      pages: pagesBuild(config, undefined)!,
      concurrency: 8,
    });
    await inner.close();
    const pageAt = (k: string) => order.indexOf(k);
    for (const enc of repositoryDirs(join(dir, 'order'))) {
      const page = pageAt(`repositories/${enc}/index.html`);
      const api = order.filter((k) => k.startsWith(`api/v1/repositories/${enc}/`)).map(pageAt);
      expect(api.length).toBeGreaterThan(3);
      expect(Math.max(...api), enc).toBeLessThan(page);
    }
    expect(pageAt('index.html')).toBe(order.length - 1);
    const lastRepoPage = Math.max(
      ...order.map((k, i) => (/^repositories\/[^/]+%3A/.test(k) ? i : -1)),
    );
    expect(lastRepoPage).toBeLessThan(pageAt('404.html'));
  }, 60_000);

  it('a second build with the same inputs rewrites nothing', async () => {
    const out = join(dir, 'again');
    await runBuild(['--store', join(ROOT, 'examples/store'), '--out', out]);
    const before = readTree(out);
    const second = await runBuild(['--store', join(ROOT, 'examples/store'), '--out', out]);
    expect(second).toMatch(/ 0 files written/);
    const after = readTree(out);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [k, v] of before) expect(after.get(k)!.equals(v), k).toBe(true);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('4 repositories');
  }, 60_000);
});
