// Reading the site in a real headless Chromium (issue N, "Read"): on every repository page
// (both shapes, and one whose URL is hostile) no table cell breaks inside a word at 1,280 px
// or at 360 px, a table wider than the screen scrolls inside its box and the page never
// sideways, axe-core finds no violation at either width, and a repository's Atom feed opened
// in a tab is drawn by the site's stylesheets under the policy `serve` sends with it.
// Without a browser a local run skips (with the install command); CI never skips.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { axeViolations, brokenTableWords, browserOrSkip, launchBrowser } from './helpers/browser.ts';
import { HOSTILE, hostileStoreB, runBuild, serveDir, shapeBConfig } from './helpers/site-crawl.ts';
import type { Serving } from '../src/commands/serve.ts';
import { PAGE_CSP } from '../src/model/http.ts';

const WIDTHS = [1280, 360] as const;

/** The repository pages looked at: a path under the site, per kind. */
const PAGES = {
  'Shape A': { site: 'A', path: `/repositories/${encodeURIComponent('https://github.com/acme/widget')}/` },
  'Shape B': { site: 'B', path: `/repositories/${encodeURIComponent('https://github.com/acme/widget')}/` },
  'hostile URL (Shape B)': { site: 'H', path: `/repositories/${encodeURIComponent(`https://github.com/evil/${HOSTILE.script}`)}/` },
} as const;

/**
 * Every word of every table cell whose text lies on more than one line (brokenTableWords), and
 * how wide the page is against the window, and each table against its box.
 */
async function layoutOf(page: Page) {
  const widths = await page.evaluate(() => {
    const tables = [...document.querySelectorAll('.table-wrap')].map((w) => ({ scroll: w.scrollWidth, client: w.clientWidth, right: w.getBoundingClientRect().right }));
    return { pageWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, tables };
  });
  return { ...(await brokenTableWords(page)), ...widths };
}

describe.skipIf(!browserOrSkip('site-read-browser'))('reading the site in headless Chromium', () => {
  const dir = tempDir('badgepress-read-');
  let browser: Browser;
  const sites: Record<'A' | 'B' | 'H', Serving> = {} as never;

  beforeAll(async () => {
    await runBuild(['--store', join(ROOT, 'examples/store'), '--out', join(dir, 'a')]);
    await runBuild(['--config', shapeBConfig(dir), '--store', join(ROOT, 'examples/shape-b/store'), '--out', join(dir, 'b')]);
    await runBuild(['--config', shapeBConfig(dir), '--store', hostileStoreB(dir), '--out', join(dir, 'h')]);
    for (const s of ['a', 'b', 'h'] as const) sites[s.toUpperCase() as 'A' | 'B' | 'H'] = await serveDir(join(dir, s));
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    for (const s of Object.values(sites)) await s?.close();
  });

  it.each(Object.keys(PAGES) as Array<keyof typeof PAGES>)(
    '%s: at 1,280 and 360 px no table cell breaks inside a word, wide tables scroll in their box, axe finds nothing',
    async (kind) => {
      const { site, path } = PAGES[kind];
      for (const width of WIDTHS) {
        // axe is injected as a script of its own: the site's CSP would (rightly) refuse it otherwise.
        const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
        try {
          const page = await context.newPage();
          const dialogs: string[] = [];
          page.on('dialog', (d) => (dialogs.push(d.message()), void d.dismiss()));
          const res = await page.goto(`${sites[site].url}${path}`);
          expect(res?.status(), `${kind} ${width}`).toBe(200);
          const layout = await layoutOf(page);
          expect(layout.words, `${kind} ${width}: words in table cells`).toBeGreaterThan(30);
          expect(layout.broken, `${kind} at ${width} px: words split across lines`).toEqual([]);
          expect(layout.pageWidth, `${kind} at ${width} px: the page scrolls sideways`).toBeLessThanOrEqual(layout.innerWidth);
          for (const t of layout.tables) expect(t.right, `${kind} at ${width} px: a table box past the window`).toBeLessThanOrEqual(width);
          // At 360 px the widest tables are wider than their box: they scroll inside it.
          if (width === 360) expect(layout.tables.some((t) => t.scroll > t.client)).toBe(true);
          const violations = await axeViolations(page);
          expect(violations, `${kind} at ${width} px`).toEqual([]);
          if (site === 'H') {
            // The hostile URL is text: the heading reads it back, and nothing it holds ran.
            expect(await page.locator('h1').textContent()).toBe(`https://github.com/evil/${HOSTILE.script}`);
            expect(await page.locator('h1 script').count()).toBe(0);
          }
          expect(dialogs).toEqual([]);
        } finally {
          await context.close();
        }
      }
    },
    180_000,
  );

  it.each(['A', 'H'] as const)(
    'site %s: a feed opened in a tab is drawn by the site stylesheets under the policy serve sends, with no violation',
    async (site) => {
      const path = site === 'A' ? PAGES['Shape A'].path : PAGES['hostile URL (Shape B)'].path;
      const feedUrl = `${sites[site].url}${path}feed.atom`;
      const head = await fetch(feedUrl);
      expect(head.headers.get('content-type')).toBe('application/xml');
      expect(head.headers.get('content-security-policy')).toBe(PAGE_CSP);
      expect(head.headers.get('x-content-type-options')).toBe('nosniff');
      const context = await browser.newContext({ viewport: { width: 360, height: 900 } });
      try {
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('console', (m) => problems.push(`console ${m.type()}: ${m.text()}`));
        page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
        page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
        page.on('dialog', (d) => (problems.push(`dialog: ${d.message()}`), void d.dismiss()));
        const loaded: string[] = [];
        // An XML document cannot name an icon: the browser asks for /favicon.ico on its own
        // (the site's icon is favicon.svg, which its pages name), and logs the 404.
        const favicon = (text: string) => /\/favicon\.ico$/.test(text) || text === 'console error: Failed to load resource: the server responded with a status of 404 (Not Found)';
        page.on('response', (r) => {
          loaded.push(r.url());
          if (r.status() !== 200 && !favicon(r.url())) problems.push(`${r.status()}: ${r.url()}`);
        });
        await page.addInitScript(() => {
          document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
        });
        await page.goto(feedUrl, { waitUntil: 'load' });
        // Both stylesheets came from the site, as the feed's xml-stylesheet instructions name them.
        expect(loaded.filter((u) => /\/assets\/(site|feed)\.[0-9a-f]{12}\.css$/.test(u))).toHaveLength(2);
        const drawn = await page.evaluate(() => {
          const atom = 'http://www.w3.org/2005/Atom';
          const root = document.documentElement;
          const entries = [...document.getElementsByTagNameNS(atom, 'entry')];
          const title = document.getElementsByTagNameNS(atom, 'title')[0]!;
          const id = document.getElementsByTagNameNS(atom, 'id')[0]!;
          const link = document.querySelector('a');
          return {
            type: document.contentType,
            rootDisplay: getComputedStyle(root).display,
            titleSize: Number.parseFloat(getComputedStyle(title).fontSize),
            idShown: getComputedStyle(id).display !== 'none',
            entries: entries.map((e) => ({ display: getComputedStyle(e).display, text: (e.getElementsByTagNameNS(atom, 'title')[0]?.textContent ?? '').trim(), height: e.getBoundingClientRect().height })),
            link: link ? { href: link.getAttribute('href'), isHtml: link instanceof HTMLAnchorElement } : null,
            pageWidth: root.scrollWidth,
            title: title.textContent,
          };
        });
        expect(drawn.type).toBe('application/xml');
        expect(drawn.rootDisplay).toBe('block');
        expect(drawn.titleSize).toBeGreaterThan(20);
        expect(drawn.idShown).toBe(false);
        expect(drawn.entries.length).toBeGreaterThan(0);
        for (const e of drawn.entries) {
          expect(e.display).toBe('block');
          expect(e.text).toMatch(/ (is|changed from) /);
          expect(e.height).toBeGreaterThan(10);
        }
        expect(drawn.pageWidth).toBeLessThanOrEqual(360);
        if (site === 'H') expect(drawn.title).toBe(`Badge changes of https://github.com/evil/${HOSTILE.script}`);
        // The subtitle's link is a live HTML link to the repository's page.
        expect(drawn.link?.isHtml).toBe(true);
        expect(drawn.link?.href).toMatch(/\/repositories\/[^/]+\/$/);
        expect(problems.filter((p) => !favicon(p))).toEqual([]);
        expect(loaded.filter(favicon).length + problems.length).toBeLessThanOrEqual(2);
      } finally {
        await context.close();
      }
    },
    120_000,
  );
});
