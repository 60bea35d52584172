// README badges: a pure function of (label, message, colour, style), drawn by the one
// renderer family of badge-styles.ts from the style's template (read with the config) and
// optimised with svgo. A build keeps one renderer, so each distinct badge costs one svgo call
// however many repositories show it.
//
// svgo's one-file bundle (same optimiser, same output): a build loads it much sooner than the
// hundreds of modules behind 'svgo' (docs/performance.md, "Start-up").
import { optimize, type Config as SvgoConfig } from 'svgo/browser';
import type { BadgeTemplates } from '../config/templates.ts';
import { drawBadge, type BadgeStyle } from './badge-styles.ts';

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

/** The SVG before svgo. `templates`: the badge templates, as the resolved config holds them. */
export function renderBadgeUnoptimised(
  templates: BadgeTemplates,
  look: BadgeLook,
  style: BadgeStyle = 'flat',
): string {
  return drawBadge(templates, style, { ...look, labelColor: LABEL_COLOR });
}

export function renderBadge(
  templates: BadgeTemplates,
  look: BadgeLook,
  style: BadgeStyle = 'flat',
): string {
  const raw = renderBadgeUnoptimised(templates, look, style);
  const optimised = optimize(raw, SVGO_CONFIG).data;
  return optimised.length < raw.length ? optimised : raw;
}

/** One per build: identical looks are rendered and optimised once. */
export class BadgeRenderer {
  private readonly cache = new Map<string, string>();

  /** `templates`: the badge templates, as the resolved config holds them. */
  private readonly templates: BadgeTemplates;
  constructor(templates: BadgeTemplates) {
    this.templates = templates;
  }

  render(look: BadgeLook, style: BadgeStyle = 'flat'): string {
    const key = `${style}\u0000${look.label}\u0000${look.message}\u0000${look.color}`;
    let svg = this.cache.get(key);
    if (svg === undefined) {
      svg = renderBadge(this.templates, look, style);
      this.cache.set(key, svg);
    }
    return svg;
  }

  get size(): number {
    return this.cache.size;
  }
}
