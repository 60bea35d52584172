// The shape-specific stages of a build, chosen and configured by the site settings: the
// evaluator (src/evaluate) and the renderer (src/render) of the active shape.
import type { ResolvedConfig } from '../config/resolve.ts';
import type { Shape, Settings } from '../config/types.ts';
import { evaluatorA, evaluatorB, type Evaluator } from '../evaluate/repository.ts';
import type { Renderer } from '../render/shape.ts';
import { latestFiles, scanFiles, type ShapeRendering } from '../render/shape-files.ts';
import { renderingA, renderingB } from '../render/shape-renderings.ts';
import { shapeRenderer } from '../render/renderer.ts';
import { BadgeRenderer } from '../render/svg.ts';

export interface ShapeStages {
  readonly shape: Shape;
  readonly evaluator: Evaluator;
  readonly renderer: Renderer;
}

export function loadShape({ settings, thresholds, templates }: ResolvedConfig): ShapeStages {
  // One badge renderer per build: each distinct badge costs one svgo call.
  const badges = new BadgeRenderer(templates.badges);
  if (thresholds.shape === 'A') {
    const { t } = thresholds;
    return {
      shape: 'A',
      evaluator: evaluatorA(t, settings.expireAfterDays, { unknownAs: settings.unknownAs }),
      renderer: rendererOf(settings, 'A', badges, renderingA(settings, t)),
    };
  }
  const { t, decisions } = thresholds;
  return {
    shape: 'B',
    evaluator: evaluatorB(t, decisions),
    renderer: rendererOf(settings, 'B', badges, renderingB(settings, t)),
  };
}

function rendererOf<E extends { badges: readonly B[] }, B extends { def: { id: string } }>(
  settings: Settings,
  shape: Shape,
  badges: BadgeRenderer,
  rendering: ShapeRendering<E, B>,
): Renderer {
  return shapeRenderer(
    settings,
    shape,
    scanFiles(settings, badges, rendering),
    latestFiles(settings, badges, rendering),
  );
}
