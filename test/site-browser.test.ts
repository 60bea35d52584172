// The human site in a real headless Chromium (Debian's chromium, driven by playwright-core):
// every page loads with no console error and no failed request under serve's CSP (one tab
// going through them all); axe-core
// finds no violation on the home, a repository page of each shape, a badge and a rule page;
// a repository page at 1280 px and 360 px shows its headings, badges and chart.
// Without a browser a local run skips (with the install command); CI never skips.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { runBuild, crawl, serveDir, shapeBConfig } from './helpers/site-crawl.ts';
import { axeViolations, browserOrSkip, COLOUR_RULES, launchBrowser } from './helpers/browser.ts';
import type { Serving } from '../src/commands/serve.ts';

const haveBrowser = browserOrSkip('site-browser');
/** Where the screenshots go, to look at after a run. */
export const SHOTS = join(ROOT, 'test-results', 'site');

describe.skipIf(!haveBrowser)('the site in headless Chromium', () => {
  const dir = tempDir('badgepress-browser-');
  let browser: Browser;
  const sites: Record<'A' | 'B', { serving: Serving; pages: string[] }> = {} as never;

  beforeAll(async () => {
    const outA = join(dir, 'a');
    const outB = join(dir, 'b');
    await runBuild(['--store', join(ROOT, 'examples/store'), '--out', outA]);
    await runBuild([
      '--config',
      shapeBConfig(dir),
      '--store',
      join(ROOT, 'examples/shape-b/store'),
      '--out',
      outB,
    ]);
    for (const [shape, out] of [
      ['A', outA],
      ['B', outB],
    ] as const) {
      const serving = await serveDir(out);
      const found = await crawl(serving.url);
      const html = [...found.visited]
        .filter(([, r]) => r.type.startsWith('text/html'))
        .map(([p]) => p);
      // A group's lists by badge are one template: the root's and one group's are loaded, not every group's.
      const groupList = /^\/groups\/[^-].*\/-\/[A-Za-z0-9]/;
      const oneGroupsLists = html.find((p) => groupList.test(p))?.replace(/\/-\/.*/, '/-/');
      const pages = html.filter(
        (p) => !groupList.test(p) || (oneGroupsLists !== undefined && p.startsWith(oneGroupsLists)),
      );
      sites[shape] = { serving, pages };
    }
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    for (const s of Object.values(sites)) await s.serving.close();
  });

  /**
   * A tab that records what goes wrong while it loads pages: console errors and warnings, page
   * errors, failed or non-200 requests. `load` navigates it to a page and returns what went wrong
   * since the previous load. One tab goes through every page: a new document replaces the last
   * one whole, and what a page left running when the next load began (a late answer, an error)
   * is still recorded, against the next page. Only a request the browser cancelled
   * (net::ERR_ABORTED: the next load cuts short lazy images below the fold and the favicon) is no
   * problem of either page, as closing a tab per page cut them short unseen. A fresh tab per page cost
   * about three times the CPU (Chromium and playwright set up each new tab).
   */
  async function problemTab(
    context: BrowserContext,
  ): Promise<{ page: Page; load: (url: string) => Promise<string[]> }> {
    const page = await context.newPage();
    let problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning')
        problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => {
      const error = r.failure()?.errorText;
      // A request the browser cancelled got no answer to judge: the next navigation cuts short an
      // earlier page's lazy images and favicon, and a lazy image can be asked for in the instant
      // between one load's start and the old document's end, so the load it is counted against
      // cannot tell. Every answer that does come is checked below (status 200).
      if (error === 'net::ERR_ABORTED') return;
      problems.push(`failed: ${r.url()} ${error}`);
    });
    page.on('response', (r) => {
      if (r.status() !== 200) problems.push(`${r.status()}: ${r.url()}`);
    });
    return {
      page,
      load: async (url) => {
        await page.goto(url, { waitUntil: 'load' });
        const found = problems;
        problems = [];
        return found;
      },
    };
  }

  it.each(['A', 'B'] as const)(
    'Shape %s: every page loads with no console error and no failed request; the script runs under the CSP',
    async (shape) => {
      const { serving, pages } = sites[shape];
      expect(pages.length).toBeGreaterThan(8);
      const context = await browser.newContext();
      try {
        const tab = await problemTab(context);
        for (const path of pages) expect(await tab.load(`${serving.url}${path}`), path).toEqual([]);
        // Nor after the last page's load.
        expect(await tab.load('about:blank'), 'after the last page').toEqual([]);
        // The header's search answers as one types: a host, group or repository by its name.
        const home = tab.page;
        await home.goto(`${serving.url}/`);
        await home.getByLabel('Find a repository').fill(shape === 'A' ? 'codeberg' : 'gitlab');
        await expect.poll(() => home.locator('.find-popup a').count(), { timeout: 30_000 }).toBe(1);
        const href = await home.locator('.find-popup a').getAttribute('href');
        expect((await fetch(`${serving.url}${href}`)).status).toBe(200);
        // Copy buttons are added to the embed snippets.
        const repo = home;
        await repo.goto(`${serving.url}${pages.find((p) => /^\/repositories\/[^/]+%3A/.test(p))}`);
        expect(await repo.locator('[data-copy] button').count()).toBeGreaterThan(3);
      } finally {
        await context.close();
      }
    },
    180_000,
  );

  it('the dark scheme sets colour variables and nothing else (so its axe run checks the colour rules only)', () => {
    const css = readFileSync(join(ROOT, 'templates/site.css'), 'utf8');
    const dark = [...css.matchAll(/@media \(prefers-color-scheme:dark\)\{(.*?\})\}/g)].map(
      (m) => m[1],
    );
    expect(dark).toHaveLength(1);
    expect(dark[0]).toMatch(/^:root\{(--[a-z-]+:#[0-9a-f]{3,8};?)+\}$/);
  });

  it.each(['A', 'B'] as const)(
    'Shape %s: axe-core finds no violation on the home, a repository, a badge and a rule page',
    async (shape) => {
      const { serving, pages } = sites[shape];
      const chosen = [
        '/',
        pages.find((p) => /^\/repositories\/[^/]+%3A/.test(p))!,
        pages.find((p) => p.startsWith('/badges/'))!,
        pages.find((p) => p.startsWith('/rules/'))!,
      ];
      // axe is injected as a script of its own: the site's CSP would (rightly) refuse it otherwise.
      const context = await browser.newContext({ bypassCSP: true });
      try {
        // One tab per scheme, going from page to page (a new document each time).
        for (const scheme of ['light', 'dark'] as const) {
          const page = await context.newPage();
          await page.emulateMedia({ colorScheme: scheme });
          for (const path of chosen) {
            await page.goto(`${serving.url}${path}`);
            // The dark scheme changes only the stylesheet's colour variables: in it, only the rules
            // about colour can find anything the light run did not.
            const violations = await axeViolations(
              page,
              scheme === 'dark' ? { runOnly: { type: 'rule', values: COLOUR_RULES } } : {},
            );
            expect(violations, `${scheme} ${path}`).toEqual([]);
          }
          await page.close();
        }
      } finally {
        await context.close();
      }
    },
    180_000,
  );

  it.each([1280, 360])(
    'a repository page at %i px shows its headings, badges and chart, without sideways scrolling',
    async (width) => {
      const { serving, pages } = sites.A;
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      try {
        const page = await context.newPage();
        await page.goto(`${serving.url}${pages.find((p) => p.includes('acme%2Fwidget'))}`);
        mkdirSync(SHOTS, { recursive: true });
        const shot = await page.screenshot({
          path: join(SHOTS, `repository-${width}.png`),
          fullPage: false,
        });
        expect(shot.byteLength).toBeGreaterThan(5000);
        await expect.poll(() => page.locator('h1').isVisible(), { timeout: 30_000 }).toBe(true);
        const h1 = await page.locator('h1').boundingBox();
        expect(h1!.y).toBeLessThan(300);
        const badge = page.locator('img.badge-img').first();
        expect(await badge.isVisible()).toBe(true);
        expect(
          await badge.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
        ).toBe(true);
        const chart = page.locator('svg.chart').first();
        await chart.scrollIntoViewIfNeeded();
        expect(await chart.isVisible()).toBe(true);
        const box = await chart.boundingBox();
        expect(box!.width).toBeGreaterThan(width === 360 ? 250 : 400);
        expect(box!.x + box!.width).toBeLessThanOrEqual(width);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          width,
        );
        writeFileSync(
          join(SHOTS, `repository-${width}-full.png`),
          await page.screenshot({ fullPage: true }),
        );
      } finally {
        await context.close();
      }
    },
    120_000,
  );
});
