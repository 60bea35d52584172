// The shields endpoint JSON draws, through badge-maker as shields renders an endpoint badge
// (label, message, colour from the JSON), the same texts and colours as our own SVG.
import { describe, expect, it } from 'vitest';
import { makeBadge } from 'badge-maker';
import { shieldsEndpoint } from '../src/render/shields.ts';
import { renderBadge } from '../src/render/svg.ts';
import { geometry } from './helpers/svg-geometry.ts';
import { badgeTemplates } from '../src/config/templates.ts';

/** The badge templates, as a build reads them with its config. */
const BADGES = badgeTemplates();

const looks = [
  { label: 'MAINTENANCE', message: 'silver', color: '#9f9f9f' },
  { label: 'SECURITY', message: 'fail', color: '#e05d44' },
  { label: 'DIN-SPEC-XXXX', message: 'none', color: '#bbb' },
  { label: 'x', message: 'expired', color: '#555555' },
];

describe('shields endpoint JSON', () => {
  it('holds shields endpoint schema fields, cacheSeconds the short cache age', () => {
    expect(shieldsEndpoint(looks[0]!, 300)).toEqual({
      schemaVersion: 1,
      label: 'MAINTENANCE',
      message: 'silver',
      color: '9f9f9f',
      cacheSeconds: 300,
    });
  });

  it('rendered by badge-maker as shields does, shows what our SVG shows', () => {
    for (const look of looks) {
      const json = JSON.parse(JSON.stringify(shieldsEndpoint(look, 300)));
      const viaShields = geometry(
        makeBadge({ label: json.label, message: json.message, color: json.color, style: 'flat' }),
      );
      const ours = geometry(renderBadge(BADGES, look));
      expect(ours.texts, look.label).toEqual(viaShields.texts);
      expect(ours.ariaLabel).toEqual(viaShields.ariaLabel);
      expect(ours.width).toEqual(viaShields.width);
      // the message's background: same colour (shields expands #bbb-style shorthands)
      const expand = (c: string) => c.toLowerCase().replace(/^#(.)(.)(.)$/, '#$1$1$2$2$3$3');
      expect(expand(viaShields.rects[1]!.split('fill=')[1]!)).toBe(expand(look.color));
    }
  });
});
