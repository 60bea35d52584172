// Reading the site in a real headless Chromium (issue N, "Read"): on every repository page
// (both shapes, and one whose URL is hostile) no table cell breaks inside a word at 1,280 px
// or at 360 px, a table wider than the screen scrolls inside its box and the page never
// sideways, axe-core finds no violation at either width, and a repository's Atom feed opened
// in a tab is drawn by the site's stylesheets under the policy `serve` sends with it. Issue 34:
// no caption or cell is clipped (its text past its own box, or a caption past its table's
// scrolling box), with every <details> open, on a site of its own title and logo whose
// repository has 12 scans (the older folded) and whose home page follows a first build.
// Without a browser a local run skips (with the install command); CI never skips.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import {
  axeViolations,
  brokenTableWords,
  browserOrSkip,
  launchBrowser,
} from './helpers/browser.ts';
import { HOSTILE, hostileStoreB, runBuild, serveDir, shapeBConfig } from './helpers/site-crawl.ts';
import type { Serving } from '../src/commands/serve.ts';
import { PAGE_CSP } from '../src/model/http.ts';

const WIDTHS = [1280, 360] as const;

/** The repository pages looked at: a path under the site, per kind. */
const PAGES = {
  'Shape A': {
    site: 'A',
    path: `/repositories/${encodeURIComponent('https://github.com/acme/widget')}/`,
  },
  'Shape B': {
    site: 'B',
    path: `/repositories/${encodeURIComponent('https://github.com/acme/widget')}/`,
  },
  'hostile URL (Shape B)': {
    site: 'H',
    path: `/repositories/${encodeURIComponent(`https://github.com/evil/${HOSTILE.script}`)}/`,
  },
  '12 scans, own title and logo (Shape A)': {
    site: 'F',
    path: `/repositories/${encodeURIComponent('https://github.com/acme/busy')}/`,
  },
  'home after a first build (Shape A)': { site: 'F', path: '/' },
} as const;

/** A Shape A store: acme/busy scanned 12 times (values past 10,000), three more scanned once. */
function faceStore(dir: string): string {
  const store = join(dir, 'face-store');
  mkdirSync(store, { recursive: true });
  const lines = Array.from({ length: 12 }, (_, i) => ({
    repositoryUrl: 'https://github.com/acme/busy',
    timestamp: 1_762_000_000 + i * 86_400,
    values: {
      ISSUE_REACTION_TIME: 12_345 - i,
      BUS_FACTOR: 1 + (i % 5),
      SECURITY_POLICY: i % 2 === 0,
      DEPENDENTS: 10_000 + i,
    },
  }));
  for (const name of ['one', 'two', 'three'])
    lines.push({
      repositoryUrl: `https://gitlab.com/group/sub/${name}`,
      timestamp: 1_763_000_000,
      values: { ISSUE_REACTION_TIME: 1, BUS_FACTOR: 1, SECURITY_POLICY: true, DEPENDENTS: 1 },
    });
  writeFileSync(join(store, 'face.ndjson'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  writeFileSync(
    join(dir, 'logo.svg'),
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><circle cx="4" cy="4" r="4" fill="#0969da"/></svg>',
  );
  writeFileSync(join(dir, 'face.yaml'), 'site:\n  title: ACME project health\n  logo: logo.svg\n');
  return store;
}

/**
 * Every word of every table cell whose text lies on more than one line (brokenTableWords), and
 * how wide the page is against the window, and each table against its box.
 */
async function layoutOf(page: Page) {
  const widths = await page.evaluate(() => {
    const tables = [...document.querySelectorAll('.table-wrap')].map((w) => ({
      scroll: w.scrollWidth,
      client: w.clientWidth,
      right: w.getBoundingClientRect().right,
    }));
    // Text past its own box, or a caption past the box its table scrolls in, cannot be read.
    const clipped: string[] = [];
    for (const el of document.querySelectorAll('caption, th, td, h1, h2, h3, dt, dd, summary')) {
      const wrap = el.closest('.table-wrap');
      const past =
        el.tagName === 'CAPTION' &&
        wrap !== null &&
        el.getBoundingClientRect().right > wrap.getBoundingClientRect().right + 1;
      if (el.scrollWidth > el.clientWidth + 1 || past)
        clipped.push(
          `${el.tagName} ${el.scrollWidth}/${el.clientWidth}: ${el.textContent?.slice(0, 60)}`,
        );
    }
    return {
      pageWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      tables,
      clipped,
    };
  });
  return { ...(await brokenTableWords(page)), ...widths };
}

describe.skipIf(!browserOrSkip('site-read-browser'))(
  'reading the site in headless Chromium',
  () => {
    const dir = tempDir('badgepress-read-');
    let browser: Browser;
    const sites: Record<'A' | 'B' | 'H' | 'F', Serving> = {} as never;

    beforeAll(async () => {
      await runBuild(['--store', join(ROOT, 'examples/store'), '--out', join(dir, 'a')]);
      await runBuild([
        '--config',
        shapeBConfig(dir),
        '--store',
        join(ROOT, 'examples/shape-b/store'),
        '--out',
        join(dir, 'b'),
      ]);
      await runBuild([
        '--config',
        shapeBConfig(dir),
        '--store',
        hostileStoreB(dir),
        '--out',
        join(dir, 'h'),
      ]);
      await runBuild([
        '--config',
        join(dir, 'face.yaml'),
        '--store',
        faceStore(dir),
        '--out',
        join(dir, 'f'),
      ]);
      for (const s of ['a', 'b', 'h', 'f'] as const)
        sites[s.toUpperCase() as 'A' | 'B' | 'H' | 'F'] = await serveDir(join(dir, s));
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
          const context = await browser.newContext({
            viewport: { width, height: 900 },
            bypassCSP: true,
          });
          try {
            const page = await context.newPage();
            const dialogs: string[] = [];
            page.on('dialog', (d) => (dialogs.push(d.message()), void d.dismiss()));
            const res = await page.goto(`${sites[site].url}${path}`);
            expect(res?.status(), `${kind} ${width}`).toBe(200);
            // What a reader can open is looked at open: the older scans, the embed snippets.
            await page.evaluate(() => {
              for (const d of document.querySelectorAll('details')) d.open = true;
            });
            const layout = await layoutOf(page);
            expect(layout.clipped, `${kind} at ${width} px: clipped text`).toEqual([]);
            if (path !== '/')
              expect(layout.words, `${kind} ${width}: words in table cells`).toBeGreaterThan(30);
            expect(layout.broken, `${kind} at ${width} px: words split across lines`).toEqual([]);
            expect(
              layout.pageWidth,
              `${kind} at ${width} px: the page scrolls sideways`,
            ).toBeLessThanOrEqual(layout.innerWidth);
            for (const t of layout.tables)
              expect(
                t.right,
                `${kind} at ${width} px: a table box past the window`,
              ).toBeLessThanOrEqual(width);
            // At 360 px the widest tables are wider than their box: they scroll inside it.
            if (width === 360 && path !== '/')
              expect(layout.tables.some((t) => t.scroll > t.client)).toBe(true);
            const violations = await axeViolations(page);
            expect(violations, `${kind} at ${width} px`).toEqual([]);
            if (site === 'H') {
              // The hostile URL is text: the heading reads it back, and nothing it holds ran.
              expect(await page.locator('h1').textContent()).toBe(`evil/${HOSTILE.script}`);
              expect(await page.locator('h1 script').count()).toBe(0);
            }
            if (site === 'F') {
              expect(await page.locator('header .brand').textContent()).toBe('ACME project health');
              expect(
                await page
                  .locator('header .brand img.logo')
                  .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
              ).toBe(true);
              // The three scanned once are one line, the newest; acme/busy's changes follow.
              const recent = await page.locator('#recent + ul li').allTextContents();
              if (path === '/')
                expect([recent[0], recent.filter((l) => /first/.test(l)).length]).toEqual([
                  '2025-11-13 3 repositories scanned for the first time',
                  1,
                ]);
              else
                expect(await page.locator('details.older-scans summary').textContent()).toBe(
                  '2 older scans',
                );
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
          page.on('requestfailed', (r) =>
            problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`),
          );
          page.on('dialog', (d) => (problems.push(`dialog: ${d.message()}`), void d.dismiss()));
          const loaded: string[] = [];
          // An XML document cannot name an icon: the browser asks for /favicon.ico on its own
          // (the site's icon is favicon.svg, which its pages name), and logs the 404.
          const favicon = (text: string) =>
            /\/favicon\.ico$/.test(text) ||
            text ===
              'console error: Failed to load resource: the server responded with a status of 404 (Not Found)';
          page.on('response', (r) => {
            loaded.push(r.url());
            if (r.status() !== 200 && !favicon(r.url())) problems.push(`${r.status()}: ${r.url()}`);
          });
          await page.addInitScript(() => {
            document.addEventListener('securitypolicyviolation', (e) =>
              console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
            );
          });
          await page.goto(feedUrl, { waitUntil: 'load' });
          // Both stylesheets came from the site, as the feed's xml-stylesheet instructions name them.
          expect(
            loaded.filter((u) => /\/assets\/(site|feed)\.[0-9a-f]{12}\.css$/.test(u)),
          ).toHaveLength(2);
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
              entries: entries.map((e) => ({
                display: getComputedStyle(e).display,
                text: (e.getElementsByTagNameNS(atom, 'title')[0]?.textContent ?? '').trim(),
                height: e.getBoundingClientRect().height,
              })),
              link: link
                ? { href: link.getAttribute('href'), isHtml: link instanceof HTMLAnchorElement }
                : null,
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
          if (site === 'H')
            expect(drawn.title).toBe(`Badge changes of https://github.com/evil/${HOSTILE.script}`);
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
  },
);
