// Each badge style holds badge-maker's geometry and text for the same label and message:
// the picture's size, every coloured rectangle, and every text a reader sees (position,
// length, fill, content), compared after our svgo pass as served.
import { describe, expect, it } from 'vitest';
import { makeBadge } from 'badge-maker';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { BADGE_STYLES, type BadgeStyle } from '../src/render/badge-styles.ts';
import { renderBadge, renderBadgeUnoptimised } from '../src/render/svg.ts';

type Node = Record<string, unknown>;
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', preserveOrder: true, parseTagValue: false, trimValues: false });

interface Geometry {
  width: number;
  height: number;
  ariaLabel: string;
  title: string;
  rects: string[];
  texts: string[];
}

const num = (v: unknown) => (v === undefined ? 0 : Number(v));

/** What a reader sees: texts outside aria-hidden subtrees, and rectangles filled with a colour. */
export function geometry(svg: string): Geometry {
  expect(XMLValidator.validate(svg)).toBe(true);
  const doc = parser.parse(svg) as Node[];
  const root = doc.find((n) => 'svg' in n)!;
  const attrs = (n: Node) => (n[':@'] ?? {}) as Record<string, string>;
  const g: Geometry = { width: num(attrs(root).width), height: num(attrs(root).height), ariaLabel: attrs(root)['aria-label']!, title: '', rects: [], texts: [] };
  const textOf = (children: Node[]): string => children.map((c) => (typeof c['#text'] === 'string' ? c['#text'] : '')).join('');
  const walk = (nodes: Node[], hidden: boolean, fill: string | undefined) => {
    for (const n of nodes) {
      const tag = Object.keys(n).find((k) => k !== ':@')!;
      if (tag === 'clipPath') continue; // a mask, not a picture
      const a = attrs(n);
      const isHidden = hidden || a['aria-hidden'] === 'true';
      const f = a.fill ?? fill;
      if (tag === 'title') g.title = textOf(n[tag] as Node[]);
      if (tag === 'rect' && a.fill && /^#/.test(a.fill)) g.rects.push(`x=${num(a.x)} w=${num(a.width)} h=${num(a.height)} fill=${a.fill}`);
      if (tag === 'text' && !isHidden) g.texts.push(`x=${num(a.x)} y=${num(a.y)} len=${num(a.textLength)} fill=${f} "${textOf(n[tag] as Node[])}"`);
      if (Array.isArray(n[tag])) walk(n[tag] as Node[], isHidden, f);
    }
  };
  walk(root.svg as Node[], false, undefined);
  return g;
}

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
        const served = geometry(renderBadge(look, style));
        const raw = geometry(renderBadgeUnoptimised(look, style));
        expect({ ...served, rects: raw.rects }, `${style} ${look.label}`).toEqual(theirs);
        expect(raw.texts).toEqual(theirs.texts);
      }
    });
  }

  it('every style is accessible like flat: role, aria-label and title say label and message', () => {
    for (const style of BADGE_STYLES) {
      const svg = renderBadge(looks[0]!, style);
      expect(svg).toContain('role="img"');
      const g = geometry(svg);
      expect(g.ariaLabel).toMatch(/^maintenance: silver$/i);
      expect(g.title).toBe(g.ariaLabel);
    }
  });

  it('every style escapes hostile text', () => {
    const hostile = { label: '<script>x</script>', message: '"onload="x\' & ]]>', color: '#555' };
    for (const style of BADGE_STYLES as readonly BadgeStyle[]) {
      const svg = renderBadge(hostile, style);
      expect(svg, style).not.toMatch(/<script/i);
      expect(svg, style).not.toContain('"onload="');
      expect(XMLValidator.validate(svg), style).toBe(true);
    }
  });
});
