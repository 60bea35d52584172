// Finding and browsing in a real headless Chromium, through `serve`: axe-core finds no violation
// on every new kind of page (the full list, all hosts, a host, a nested group, a list by badge
// and status, the search page with results, a search page of names by prefix, the home page
// with the header's results open) at 1,280 and 360 px, no table cell breaks inside a word,
// none scrolls sideways, the header's search shows each result's badges, and without
// JavaScript the header's form lands on the search page, which leads on to the hosts and, one
// start of a name a click, to the name's page.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { runBuild, serveDir } from './helpers/site-crawl.ts';
import { tempDir } from './helpers/tmp.ts';
import {
  axeViolations,
  brokenTableWords,
  browserOrSkip,
  launchBrowser,
} from './helpers/browser.ts';
import type { Serving } from '../src/commands/serve.ts';

const haveBrowser = browserOrSkip('site-browse-browser');

const PAGES = [
  '/',
  '/repositories/',
  '/groups/',
  '/groups/github.com/',
  '/groups/gitlab.com/group0/sub/',
  '/groups/github.com/-/MAINTENANCE/',
  '/search/?q=repo1',
  '/search/s/',
];

describe.skipIf(!haveBrowser)('finding and browsing in headless Chromium', () => {
  const dir = tempDir('badgepress-browse-browser-');
  let browser: Browser;
  let serving: Serving;

  beforeAll(async () => {
    const store = join(dir, 'store');
    generateStore({ repos: 120, scans: 1, out: store });
    await runBuild(['--store', store, '--out', join(dir, 'out')]);
    serving = await serveDir(join(dir, 'out'));
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await serving?.close();
  });

  it.each([1280, 360])(
    'at %i px: no axe violation and no sideways scrolling on every new kind of page, results shown',
    async (width) => {
      const context = await browser.newContext({
        viewport: { width, height: 900 },
        bypassCSP: true,
      });
      try {
        // One tab goes from page to page (a new document each time; a fresh tab per page cost
        // about three times the CPU). What a page left running when the next load began is
        // still recorded, against the next page.
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error' || m.type() === 'warning')
            problems.push(`console ${m.type()}: ${m.text()}`);
        });
        page.on('response', (r) => {
          if (r.status() !== 200) problems.push(`${r.status()}: ${r.url()}`);
        });
        for (const path of PAGES) {
          await page.goto(`${serving.url}${path}`, { waitUntil: 'load' });
          if (path.startsWith('/search/?')) {
            // The page reads ?q= and shows what matches, each with its badges.
            await expect
              .poll(() => page.locator('#find-page-results li').count(), { timeout: 30_000 })
              .toBe(7); // repo12, repo16, repo100 … repo116
            expect(
              await page.locator('#find-page-results li').first().locator('img.badge-img').count(),
            ).toBe(3);
          }
          if (path === '/') {
            // The header's results, open over the page while one types.
            await page.getByLabel('Find a repository').fill('tool1');
            await expect
              .poll(() => page.locator('.find-popup li').count(), { timeout: 30_000 })
              .toBeGreaterThan(3);
            const first = page.locator('.find-popup li').first();
            expect(await first.locator('a').textContent()).toMatch(
              /^https:\/\/codeberg\.org\/u\d+\/tool1/,
            );
            await expect
              .poll(
                () =>
                  first
                    .locator('img.badge-img')
                    .evaluateAll(
                      (imgs) =>
                        imgs.filter(
                          (i) =>
                            (i as HTMLImageElement).complete &&
                            (i as HTMLImageElement).naturalWidth > 0,
                        ).length,
                    ),
                { timeout: 30_000 },
              )
              .toBe(3);
          }
          expect(await axeViolations(page), `${width} ${path}`).toEqual([]);
          // No table cell breaks inside a word; the home and group pages' roll-ups have words to look at (lists by status and the search's pages have no table).
          const cells = await brokenTableWords(page);
          expect(cells.broken, `${width} ${path}: words split across lines`).toEqual([]);
          if (path === '/' || (path.startsWith('/groups/') && !path.includes('/-/')))
            expect(cells.words, `${width} ${path}`).toBeGreaterThan(10);
          if (path.startsWith('/search/')) expect(cells.words, `${width} ${path}`).toBe(0);
          expect(
            await page.evaluate(() => document.documentElement.scrollWidth),
            `${width} ${path}`,
          ).toBeLessThanOrEqual(width);
          expect(problems, path).toEqual([]);
        }
        await page.goto('about:blank');
        expect(problems, 'after the last page').toEqual([]);
        await page.close();
      } finally {
        await context.close();
      }
    },
    120_000,
  );

  it('without JavaScript the search page finds a repository by its name, a click per start of the name', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${serving.url}/search/?q=svc7`);
      // 120 repositories: 30 names start with s (svc…), with the groups named sub: one page lists them all.
      await page.getByRole('link', { name: 's', exact: true }).click();
      await page.waitForURL(/\/search\/s\/$/);
      expect(await page.locator('h1').textContent()).toBe('Names starting s');
      expect(await page.locator('ul.repo-list li').count()).toBe(30);
      await page
        .getByRole('link', { name: 'https://git.example.org:8443/platform0/svc7', exact: true })
        .click();
      await page.waitForURL(
        /\/repositories\/https%3A%2F%2Fgit\.example\.org%3A8443%2Fplatform0%2Fsvc7\/$/,
      );
    } finally {
      await context.close();
    }
  }, 60_000);

  it('without JavaScript the header form goes to the search page, which leads to the hosts and the full list', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${serving.url}/groups/github.com/org0/`);
      await page.getByLabel('Find a repository').fill('repo4');
      await Promise.all([
        page.waitForURL(/\/search\/\?q=repo4$/),
        page.getByRole('button', { name: 'Find' }).first().click(),
      ]);
      expect(await page.locator('h1').textContent()).toBe('Find a repository');
      await page.getByRole('link', { name: 'github.com' }).first().click();
      await page.waitForURL(/\/groups\/github\.com\/$/);
      await page.getByRole('link', { name: 'org0', exact: true }).click();
      await page.waitForURL(/\/groups\/github\.com\/org0\/$/);
      await page.getByRole('link', { name: 'https://github.com/org0/repo4', exact: true }).click();
      await page.waitForURL(/\/repositories\/https%3A%2F%2Fgithub\.com%2Forg0%2Frepo4\/$/);
    } finally {
      await context.close();
    }
  }, 60_000);
});
