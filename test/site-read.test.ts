// Issue N, "Read", in the bytes: Shape B's lowest rung is "none" on its charts, the Scans
// table colours its statuses and lists its files, the README snippet sits at the top of a
// repository page, the feed names the site's stylesheets, and silver is a colour of its own
// (WCAG contrast against the error badge's grey and for the text on it). The browser side is
// test/site-read-browser.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { HOSTILE, hostileStoreB, runBuild, shapeBConfig } from './helpers/site-crawl.ts';
import { DEFAULT_COLORS } from '../src/config/defaults.ts';
import { brightness } from '../src/render/badge-styles.ts';
import { errorBadge } from '../src/resolver/error-badge.ts';
import { cellText } from '../src/render/pages/html.ts';

const dir = tempDir('badgepress-read-');
const enc = encodeURIComponent;
const read = (out: string, key: string) => readFileSync(join(out, key), 'utf8');
const WIDGET = `repositories/${enc('https://github.com/acme/widget')}`;

/** WCAG 2.x relative luminance of #rrggbb or #rgb. */
function luminance(hex: string): number {
  const h = hex.length === 4 ? hex.replace(/^#(.)(.)(.)$/, '#$1$1$2$2$3$3') : hex;
  const n = Number.parseInt(h.slice(1), 16);
  const lin = (c: number) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
}

/** WCAG contrast ratio of two colours, 1 to 21. */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The badge's message text colour on `fill`, as svg.ts picks it (shields' rule). */
const textOn = (fill: string) => (brightness(fill) > 0.69 ? '#333333' : '#ffffff');

/** A custom property of the light (first) or dark (second) :root block of site.css. */
function cssVar(css: string, scheme: 'light' | 'dark', name: string): string {
  const blocks = [...css.matchAll(/:root\{([^}]*)\}/g)].map((m) => m[1]!);
  const block = scheme === 'light' ? blocks[0]! : blocks[1]!;
  return new RegExp(`--${name}:(#[0-9a-f]{3,6})`).exec(block)![1]!;
}

describe('silver is a colour of its own', () => {
  const errorGrey = /<rect x="\d+" width="\d+" height="20" fill="(#[0-9a-f]{6})"\/>/.exec(
    errorBadge('MAINTENANCE', 'not found'),
  )![1]!;

  it('the badge: silver against the error badge grey, and the text on each', () => {
    // The error badge keeps shields' "lightgrey" (#9f9f9f): it stays as it was, silver moved.
    expect(errorGrey).toBe('#9f9f9f');
    expect(DEFAULT_COLORS.silver).toBe('#64778c');
    const figures = {
      silverVsError: contrast(DEFAULT_COLORS.silver, errorGrey),
      silverVsNone: contrast(DEFAULT_COLORS.silver, DEFAULT_COLORS.none),
      silverVsLabel: contrast(DEFAULT_COLORS.silver, '#555555'),
      textOnSilver: contrast(textOn(DEFAULT_COLORS.silver), DEFAULT_COLORS.silver),
      textOnError: contrast('#ffffff', errorGrey),
    };
    // Measured: 1.74, 2.40, 1.62, 4.61 and 2.65 (the error grey's own, unchanged).
    expect(figures.silverVsError).toBeGreaterThanOrEqual(1.5);
    expect(figures.silverVsNone).toBeGreaterThanOrEqual(1.5);
    expect(figures.silverVsLabel).toBeGreaterThanOrEqual(1.5);
    expect(figures.textOnSilver).toBeGreaterThanOrEqual(4.5);
    expect(figures.textOnError).toBeCloseTo(2.65, 2);
    // The shipped config spells the same defaults.
    expect(read(ROOT, 'config/badgepress.yaml')).toContain(`silver: "${DEFAULT_COLORS.silver}"`);
  });

  it('the pages: silver differs from the greys of none and expired, and reads on both backgrounds in both schemes', () => {
    const css = read(ROOT, 'templates/site.css');
    for (const scheme of ['light', 'dark'] as const) {
      const silver = cssVar(css, scheme, 'silver');
      for (const other of ['none', 'expired'])
        expect(silver, `${scheme} ${other}`).not.toBe(cssVar(css, scheme, other));
      // Light measured: 7.15 on the page, 6.71 on a table head; dark 8.81 and 8.05.
      for (const bg of ['bg', 'panel'])
        expect(
          contrast(silver, cssVar(css, scheme, bg)),
          `${scheme} on ${bg}`,
        ).toBeGreaterThanOrEqual(4.5);
    }
  });
});

describe('repository pages and feeds', () => {
  const outA = join(dir, 'a');
  const outB = join(dir, 'b');
  const outH = join(dir, 'h');
  beforeAll(async () => {
    await runBuild(['--store', join(ROOT, 'examples/store'), '--out', outA]);
    await runBuild([
      '--config',
      shapeBConfig(dir),
      '--store',
      join(ROOT, 'examples/shape-b/store'),
      '--out',
      outB,
    ]);
    await runBuild(['--config', shapeBConfig(dir), '--store', hostileStoreB(dir), '--out', outH]);
  }, 120_000);

  it("Shape B's status charts name the lowest rung none, never fail", () => {
    const html = read(outB, `${WIDGET}/index.html`);
    const charts = [
      ...html.matchAll(/<svg class="chart"[^>]*aria-labelledby="(badge-\d+)-t[^>]*>(.*?)<\/svg>/g),
    ];
    expect(charts.length).toBeGreaterThan(0);
    for (const [, , svg] of charts) {
      const rungs = [
        ...svg!.matchAll(/<text x="\d+" y="[\d.]+" text-anchor="end">([a-z]+)<\/text>/g),
      ].map((m) => m[1]);
      expect(rungs).toEqual(['none', 'bronze', 'silver', 'gold']);
      expect(svg).not.toMatch(/\bfail\b/);
    }
    // Shape A keeps its own word.
    const a = read(outA, `${WIDGET}/index.html`);
    expect(a).toMatch(/text-anchor="end">fail<\/text>/);
  });

  it('the Scans table colours each status and lists each scan file', () => {
    for (const out of [outA, outB]) {
      const html = read(out, `${WIDGET}/index.html`);
      const scans = html.slice(html.indexOf('<h2 id="scans">'));
      const rows = [
        ...scans.matchAll(
          /<tr><th scope="row"><time datetime="[^"]+">[^<]+<\/time><\/th>(.*?)<\/tr>/g,
        ),
      ].map((m) => m[1]!);
      expect(rows.length).toBeGreaterThan(1);
      for (const row of rows) {
        const cells = [...row.matchAll(/<td>(.*?)<\/td>/g)].map((m) => m[1]!);
        const files = cells.pop()!;
        for (const c of cells)
          expect(c).toMatch(
            /^<span class="status st-(gold|silver|bronze|fail|none|expired)">(gold|silver|bronze|fail|none|expired)<\/span>$/,
          );
        expect(files).toMatch(
          /^<ul class="files"><li><a href="[^"]+\/at\/\d+\/sarif">SARIF<\/a><\/li>(<li><a href="[^"]+\.svg">[A-Z-]+ badge<\/a>, <a href="[^"]+">[A-Z-]+ explanation<\/a><\/li>)+<\/ul>$/,
        );
      }
    }
  });

  it('the README snippet of every badge comes before the first badge section, escaped', () => {
    for (const out of [outA, outB]) {
      const html = read(out, `${WIDGET}/index.html`);
      const embed = html.indexOf('<h2 id="embed">');
      expect(embed).toBeGreaterThan(0);
      expect(embed).toBeLessThan(html.indexOf('<section aria-labelledby="badge-'));
      const code = /<h2 id="embed">.*?<pre><code>(.*?)<\/code><\/pre>/s.exec(html)![1]!;
      const ids = [...html.matchAll(/<h2 id="badge-([^"]+)">/g)].map((m) => m[1]);
      expect(code.split('\n').map((l) => /^\[!\[([^\]]+)\]/.exec(l)![1])).toEqual(ids);
      expect(code).toContain(`/api/v1/${WIDGET}/badges/`);
    }
    // A hostile URL is escaped in the snippet too (it is inside the encoded segment).
    const hostile = read(
      outH,
      `repositories/${enc(`https://github.com/evil/${HOSTILE.svg}`)}/index.html`,
    );
    const code = /<h2 id="embed">.*?<pre><code>(.*?)<\/code><\/pre>/s.exec(hostile)![1]!;
    expect(code).not.toMatch(/[<>"]/);
    expect(code).toContain(enc(`https://github.com/evil/${HOSTILE.svg}`));
  });

  it('table cells keep words with hyphens, dashes and slashes on one line, and stay escaped', () => {
    expect(cellText('granted 2025-05-20 in din-spec.yaml')).toBe(
      '<bdi>granted <span class="nw">2025-05-20</span> in <span class="nw">din-spec.yaml</span></bdi>',
    );
    expect(cellText(`${HOSTILE.script} a/b`)).toBe(
      '<bdi><span class="nw">&lt;script&gt;alert(1)&lt;/script&gt;</span> <span class="nw">a/b</span></bdi>',
    );
  });

  it('a feed names the site stylesheet and its own, says what it is, and is valid Atom', () => {
    const feed = read(outA, `${WIDGET}/feed.atom`);
    const css =
      /<\?xml-stylesheet type="text\/css" href="\/(assets\/site\.[0-9a-f]{12}\.css)"\?>\n<\?xml-stylesheet type="text\/css" href="\/(assets\/feed\.[0-9a-f]{12}\.css)"\?>/.exec(
        feed,
      );
    expect(css).not.toBeNull();
    // Both are published with the site, and the feeds' stylesheet draws Atom elements.
    expect(read(outA, css![1]!)).toContain('--silver:');
    expect(read(outA, css![2]!)).toContain('@namespace url(http://www.w3.org/2005/Atom);');
    expect(XMLValidator.validate(feed)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(feed).feed;
    expect(parsed.subtitle['@_type']).toBe('xhtml');
    // Atom's xhtml text construct: exactly one XHTML div.
    expect(parsed.subtitle.div['@_xmlns']).toBe('http://www.w3.org/1999/xhtml');
    expect(parsed.subtitle.div.p.a['@_href']).toBe(`http://127.0.0.1:8787/${WIDGET}/`);
  });
});
