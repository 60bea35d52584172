// Each badge style holds badge-maker's geometry and text for the same label and message:
// the picture's size, every coloured rectangle, and every text a reader sees (position,
// length, fill, content), compared after our svgo pass as served.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeBadge } from 'badge-maker';
import { XMLValidator } from 'fast-xml-parser';
import {
  BADGE_STYLES,
  drawBadge,
  type BadgeStyle,
  type StyledLook,
} from '../src/render/badge-styles.ts';
import { renderBadge, renderBadgeUnoptimised } from '../src/render/svg.ts';
import { geometry } from './helpers/svg-geometry.ts';
import { badgeTemplates } from '../src/config/templates.ts';

/** The badge templates, as a build reads them with its config. */
const BADGES = badgeTemplates();

const looks = [
  { label: 'MAINTENANCE', message: 'silver', color: '#9f9f9f' },
  { label: 'SECURITY', message: 'fail', color: '#e05d44' },
  { label: 'DIN-SPEC-XXXX', message: 'none', color: '#bbbbbb' },
  { label: 'x', message: 'gold', color: '#dfb317' },
  { label: 'release_cadence', message: 'expired', color: '#fe7d37' },
  { label: 'iiii', message: 'WWWW', color: '#eee' },
];

describe('badge styles match badge-maker', () => {
  for (const style of BADGE_STYLES) {
    it(style, () => {
      for (const look of looks) {
        const theirs = geometry(makeBadge({ ...look, style }));
        // svgo turns rectangles into paths: rectangles are compared before it, the rest after.
        const served = geometry(renderBadge(BADGES, look, style));
        const raw = geometry(renderBadgeUnoptimised(BADGES, look, style));
        expect({ ...served, rects: raw.rects }, `${style} ${look.label}`).toEqual(theirs);
        expect(raw.texts).toEqual(theirs.texts);
      }
    });
  }

  it('every style is accessible like flat: role, aria-label and title say label and message', () => {
    for (const style of BADGE_STYLES) {
      const svg = renderBadge(BADGES, looks[0]!, style);
      expect(svg).toContain('role="img"');
      const g = geometry(svg);
      expect(g.ariaLabel).toMatch(/^maintenance: silver$/i);
      expect(g.title).toBe(g.ariaLabel);
    }
  });

  it('every style escapes hostile text', () => {
    const hostile = { label: '<script>x</script>', message: '"onload="x\' & ]]>', color: '#555' };
    for (const style of BADGE_STYLES as readonly BadgeStyle[]) {
      const svg = renderBadge(BADGES, hostile, style);
      expect(svg, style).not.toMatch(/<script/i);
      expect(svg, style).not.toContain('"onload="');
      expect(XMLValidator.validate(svg), style).toBe(true);
    }
  });
});

describe('flat is drawn by the same family', () => {
  // The bytes the flat badge had when it was a mustache template of its own (before the
  // family): drawing it beside the other styles changed no published badge.
  it('draws the bytes of the former template, before svgo', () => {
    expect(
      renderBadgeUnoptimised(BADGES, { label: 'MAINTENANCE', message: 'silver', color: '#9f9f9f' }),
    ).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" width="132" height="20" role="img" aria-label="MAINTENANCE: silver"><title>MAINTENANCE: silver</title>' +
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>' +
        '<clipPath id="r"><rect width="132" height="20" rx="3" fill="#fff"/></clipPath><g clip-path="url(#r)"><rect width="93" height="20" fill="#555"/>' +
        '<rect x="93" width="39" height="20" fill="#9f9f9f"/><rect width="132" height="20" fill="url(#s)"/></g>' +
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">' +
        '<text aria-hidden="true" x="475" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="830">MAINTENANCE</text>' +
        '<text x="475" y="140" transform="scale(.1)" textLength="830">MAINTENANCE</text>' +
        '<text aria-hidden="true" x="1115" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="290">silver</text>' +
        '<text x="1115" y="140" transform="scale(.1)" fill="#fff" textLength="290">silver</text></g></svg>',
    );
  });

  it('a light colour gets dark text and a light shadow; text is escaped', () => {
    const svg = renderBadgeUnoptimised(BADGES, { label: 'x<y', message: 'gold', color: '#eee' });
    expect(svg).toContain(
      '<text aria-hidden="true" x="485" y="150" fill="#ccc" fill-opacity=".3" transform="scale(.1)" textLength="230">gold</text>',
    );
    expect(svg).toContain(
      '<text x="485" y="140" transform="scale(.1)" fill="#333" textLength="230">gold</text>',
    );
    expect(svg).toContain('aria-label="x&lt;y: gold"><title>x&lt;y: gold</title>');
  });
});

describe('every style is drawn from its template', () => {
  // What the styles drew when their markup was written in code (the fixture was written by that
  // code): moving the markup into templates/badge-<style>.svg.mustache changed no badge. Hostile
  // text, non-Latin letters, emoji, control characters, an empty badge, a light label colour.
  const drawn: Array<{ style: BadgeStyle; look: StyledLook; svg: string }> = JSON.parse(
    readFileSync(new URL('./fixtures/badge-styles-drawn.json', import.meta.url), 'utf8'),
  );

  it('draws the bytes the code drew, before svgo', () => {
    expect(new Set(drawn.map((d) => d.style))).toEqual(new Set(BADGE_STYLES));
    for (const { style, look, svg } of drawn)
      expect(drawBadge(BADGES, style, look), `${style} ${JSON.stringify(look.label)}`).toBe(svg);
  });
});
