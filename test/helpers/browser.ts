// Headless Chromium for the site tests (Debian's chromium, driven by playwright-core) and
// axe-core run inside a page. Without a browser a local run skips (the caller says so with
// INSTALL); CI never skips.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const INSTALL = 'apt-get update && apt-get install -y chromium';

/** Whether Chromium is here; throws on CI without it, warns (naming `what`) elsewhere. */
export function haveBrowser(what: string): boolean {
  const have = existsSync(CHROMIUM);
  if (!have && process.env.CI === 'true') throw new Error(`no Chromium at ${CHROMIUM}; CI never skips the browser tests: ${INSTALL}`);
  if (!have) console.warn(`${what} tests skipped: no Chromium at ${CHROMIUM}; install it with: ${INSTALL}`);
  return have;
}

/** playwright-core gives every launch a fresh --user-data-dir of its own (it refuses the flag). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's violations on the loaded page, one line each (rule: the first three targets).
 * axe is injected as a script of its own: open the page in a context with `bypassCSP`, as the
 * site's CSP would (rightly) refuse it otherwise.
 */
export async function axeViolations(page: Page, options: object = {}): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async (o) => {
    const w = window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: Array<{ id: string; nodes: Array<{ target: string[] }> }> }> } };
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
