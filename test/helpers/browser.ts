// Headless Chromium (Debian's, through playwright-core) and axe-core, for the site's browser tests.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const INSTALL = 'apt-get update && apt-get install -y chromium';
export const haveBrowser = existsSync(CHROMIUM);

/** Throws on CI without a browser (CI never skips), warns elsewhere; true when the tests can run. */
export function browserOrSkip(what: string): boolean {
  if (!haveBrowser && process.env.CI === 'true')
    throw new Error(`no Chromium at ${CHROMIUM}; CI never skips the browser tests: ${INSTALL}`);
  if (!haveBrowser)
    console.warn(`${what} tests skipped: no Chromium at ${CHROMIUM}; install it with: ${INSTALL}`);
  return haveBrowser;
}

export const AXE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);
/** axe-core's rules that depend on colours. */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

export function launchBrowser(): Promise<Browser> {
  // playwright-core gives every launch a fresh --user-data-dir of its own (it refuses the flag).
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * axe-core's violations on the page as it is, one line each (id and up to three targets).
 * axe is injected as a script of its own: the site's CSP would (rightly) refuse it otherwise,
 * so the page's context must bypass the CSP.
 */
export async function axeViolations(page: Page, options: object = {}): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async (o) => {
    const w = window as unknown as {
      axe: {
        run: (
          ctx: Document,
          o: object,
        ) => Promise<{ violations: Array<{ id: string; nodes: Array<{ target: string[] }> }> }>;
      };
    };
    const r = await w.axe.run(document, { resultTypes: ['violations'], ...o });
    return r.violations.map(
      (v) =>
        `${v.id}: ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
  }, options);
}

/**
 * Every word of every table cell whose text lies on more than one line (a word is a run of
 * non-space characters in one text node; its Range's client rects must all sit on one line),
 * and how many words were looked at.
 */
export function brokenTableWords(page: Page): Promise<{ broken: string[]; words: number }> {
  return page.evaluate(() => {
    const broken: string[] = [];
    let words = 0;
    for (const cell of document.querySelectorAll('td, th')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        for (const m of (n.textContent ?? '').matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(n, m.index);
          range.setEnd(n, m.index + m[0].length);
          const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
          if (rects.length === 0) continue;
          words++;
          // Boxes of one line overlap vertically; a box wholly below the first is a new line.
          if (rects.some((r) => r.top >= rects[0]!.bottom - 1)) broken.push(m[0]);
        }
      }
    }
    return { broken, words };
  });
}
