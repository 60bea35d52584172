// Each badge style holds badge-maker's geometry and text for the same label and message:
// the picture's size, every coloured rectangle, and every text a reader sees (position,
// length, fill, content), compared after our svgo pass as served.
import { describe, expect, it } from 'vitest';
import { makeBadge } from 'badge-maker';
import { XMLValidator } from 'fast-xml-parser';
import { BADGE_STYLES, type BadgeStyle } from '../src/render/badge-styles.ts';
import { renderBadge, renderBadgeUnoptimised } from '../src/render/svg.ts';
import { geometry } from './helpers/svg-geometry.ts';
import { badgeTemplate } from '../src/config/templates.ts';

/** The flat badge's template, as a build reads it with its config. */
const BADGE = badgeTemplate();

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
        const served = geometry(renderBadge(BADGE, look, style));
        const raw = geometry(renderBadgeUnoptimised(BADGE, look, style));
        expect({ ...served, rects: raw.rects }, `${style} ${look.label}`).toEqual(theirs);
        expect(raw.texts).toEqual(theirs.texts);
      }
    });
  }

  it('every style is accessible like flat: role, aria-label and title say label and message', () => {
    for (const style of BADGE_STYLES) {
      const svg = renderBadge(BADGE, looks[0]!, style);
      expect(svg).toContain('role="img"');
      const g = geometry(svg);
      expect(g.ariaLabel).toMatch(/^maintenance: silver$/i);
      expect(g.title).toBe(g.ariaLabel);
    }
  });

  it('every style escapes hostile text', () => {
    const hostile = { label: '<script>x</script>', message: '"onload="x\' & ]]>', color: '#555' };
    for (const style of BADGE_STYLES as readonly BadgeStyle[]) {
      const svg = renderBadge(BADGE, hostile, style);
      expect(svg, style).not.toMatch(/<script/i);
      expect(svg, style).not.toContain('"onload="');
      expect(XMLValidator.validate(svg), style).toBe(true);
    }
  });
});
