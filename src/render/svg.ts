// Flat README badges: a pure function of (label, message, colour), rendered from the mustache
// template the caller hands over (read once with the config), measured with Verdana 11px metrics and optimised with svgo. A build keeps one
// renderer, so each distinct badge costs one svgo call however many repositories show it.
import Mustache from 'mustache';
import anafanafo from 'anafanafo';
// svgo's one-file bundle (same optimiser, same output): a build loads it in a third of the
// time the hundreds of modules behind 'svgo' take, on a command that runs for about a second.
import { optimize, type Config as SvgoConfig } from 'svgo/browser';
import { escapeXml } from './escape.ts';
import { brightness, renderStyledBadge, type BadgeStyle } from './badge-styles.ts';

export interface BadgeLook {
  label: string;
  message: string;
  /** #rgb or #rrggbb */
  color: string;
}

/** The label side's colour, as shields draws it. */
const LABEL_COLOR = '#555';

// svgo's default preset strips role/aria attributes it does not know on <svg> and rewrites
// the scaled text into longer forms; keep those plugins off so the badge stays accessible
// and small. Exported so a test holds the config itself to both promises; renderBadge still
// keeps the raw SVG should some input ever come out no smaller.
export const SVGO_CONFIG: SvgoConfig = {
  multipass: true,
  plugins: [
    {
      name: 'preset-default',
      params: {
        overrides: {
          removeUnknownsAndDefaults: false,
          convertTransform: false,
          cleanupIds: false,
          moveGroupAttrsToElems: false,
          moveElemsAttrsToGroup: false,
        },
      },
    },
  ],
};

const HORIZ_PADDING = 5;

function textWidth(s: string): number {
  const w = anafanafo(s, { font: '11px Verdana' }) | 0;
  return w % 2 === 0 ? w + 1 : w; // odd widths keep the centred text on the pixel grid
}

/** `template`: the flat badge's mustache template (templates/badge.svg.mustache, read with the config). */
export function renderBadgeUnoptimised(template: string, look: BadgeLook, style: BadgeStyle = 'flat'): string {
  if (style !== 'flat') return renderStyledBadge(style, { ...look, labelColor: LABEL_COLOR });
  const labelWidth = textWidth(look.label);
  const messageWidth = textWidth(look.message);
  const leftWidth = labelWidth + 2 * HORIZ_PADDING;
  const rightWidth = messageWidth + 2 * HORIZ_PADDING;
  const light = brightness(look.color) > 0.69;
  const view = {
    width: leftWidth + rightWidth,
    leftWidth,
    rightWidth,
    label: look.label,
    message: look.message,
    accessibleText: `${look.label}: ${look.message}`,
    color: look.color,
    labelColor: LABEL_COLOR,
    textColor: light ? '#333' : '#fff',
    shadowColor: light ? '#ccc' : '#010101',
    labelX: 10 * (1 + labelWidth / 2 + HORIZ_PADDING),
    labelLength: 10 * labelWidth,
    messageX: 10 * (leftWidth - 1 + messageWidth / 2 + HORIZ_PADDING),
    messageLength: 10 * messageWidth,
  };
  return Mustache.render(template, view, {}, { escape: (v: unknown) => escapeXml(String(v)) });
}

export function renderBadge(template: string, look: BadgeLook, style: BadgeStyle = 'flat'): string {
  const raw = renderBadgeUnoptimised(template, look, style);
  const optimised = optimize(raw, SVGO_CONFIG).data;
  return optimised.length < raw.length ? optimised : raw;
}

/** One per build: identical looks are rendered and optimised once. */
export class BadgeRenderer {
  private readonly cache = new Map<string, string>();

  /** `template`: the flat badge's mustache template, as the resolved config holds it. */
  private readonly template: string;
  constructor(template: string) {
    this.template = template;
  }

  render(look: BadgeLook, style: BadgeStyle = 'flat'): string {
    const key = `${style}\u0000${look.label}\u0000${look.message}\u0000${look.color}`;
    let svg = this.cache.get(key);
    if (svg === undefined) {
      svg = renderBadge(this.template, look, style);
      this.cache.set(key, svg);
    }
    return svg;
  }

  get size(): number {
    return this.cache.size;
  }
}
