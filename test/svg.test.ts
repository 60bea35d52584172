import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { optimize } from 'svgo';
import {
  BadgeRenderer,
  renderBadge,
  renderBadgeUnoptimised,
  SVGO_CONFIG,
} from '../src/render/svg.ts';
import { badgeTemplates } from '../src/config/templates.ts';

/** The badge templates, as a build reads them with its config. */
const BADGES = badgeTemplates();

const look = { label: 'MAINTENANCE', message: 'silver', color: '#9f9f9f' };
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });

function svgRoot(svg: string) {
  expect(XMLValidator.validate(svg)).toBe(true);
  return parser.parse(svg).svg;
}

describe('SVG badges', () => {
  it('are well-formed and accessible', () => {
    const root = svgRoot(renderBadge(BADGES, look));
    expect(root.role).toBe('img');
    expect(root['aria-label']).toBe('MAINTENANCE: silver');
    expect(root.title).toBe('MAINTENANCE: silver');
  });

  it('the svgo config itself makes badges smaller and keeps their accessibility', () => {
    // The config, not renderBadge: renderBadge falls back to the raw SVG, which would hide a bad config.
    const looks = [
      look,
      { label: 'SECURITY', message: 'fail', color: '#e05d44' },
      { label: 'x', message: 'gold', color: '#dfb317' },
      { label: 'DIN-SPEC-XXXX', message: 'none', color: '#bbbbbb' },
    ];
    for (const l of looks) {
      const raw = renderBadgeUnoptimised(BADGES, l);
      const optimised = optimize(raw, SVGO_CONFIG).data;
      expect(optimised.length, l.label).toBeLessThan(raw.length);
      expect(optimised).toContain('role="img"');
      expect(optimised).toContain(`aria-label="${l.label}: ${l.message}"`);
      expect(optimised).toContain(`<title>${l.label}: ${l.message}</title>`);
      expect(renderBadge(BADGES, l)).toBe(optimised);
    }
  });

  it('grows with its text (Verdana 11px metrics)', () => {
    const width = (l: typeof look) => Number(svgRoot(renderBadge(BADGES, l)).width);
    expect(width({ ...look, message: 'gold' })).toBeLessThan(width({ ...look, message: 'bronze' }));
    expect(width({ ...look, label: 'A' })).toBeLessThan(width({ ...look, label: 'AAAAAAAAAA' }));
    expect(width({ ...look, label: 'iiii' })).toBeLessThan(width({ ...look, label: 'WWWW' }));
  });

  it('escapes hostile text', () => {
    const hostile = {
      label: '<script>alert(1)</script>',
      message: '"onload="x\' & ]]>',
      color: '#555',
    };
    const svg = renderBadge(BADGES, hostile);
    expect(svg).not.toContain('<script>');
    expect(svg).not.toContain('"onload="');
    const root = svgRoot(svg);
    expect(root['aria-label']).toBe('<script>alert(1)</script>: "onload="x\' & ]]>');
    expect(Object.keys(root).filter((k) => k.startsWith('on'))).toEqual([]);
  });

  it('drops characters XML forbids', () => {
    expect(
      XMLValidator.validate(renderBadge(BADGES, { ...look, message: 'a\u0000b\u0008c\ud800' })),
    ).toBe(true);
  });

  it('a renderer renders each distinct badge once', () => {
    const r = new BadgeRenderer(BADGES);
    const a = r.render(look);
    expect(r.render({ ...look })).toBe(a);
    r.render({ ...look, message: 'gold' });
    expect(r.size).toBe(2);
  });
});
