// The files of one scan and the files only the latest answer has, built the same way for both
// shapes from what a shape renders differently: a badge's look and explanation, the report,
// and the code-scanning report. Which latest-only files are written follows the site config
// (styles, shieldsEndpoint, codeScanning).
import type { Settings } from '../config/types.ts';
import { EXTRA_BADGE_STYLES } from '../model/layout.ts';
import { jsonBytes, type ReportContext } from './sarif-common.ts';
import {
  renderedFiles,
  type LatestOnlyFiles,
  type RenderedFile,
  type RenderFilter,
  type ScanFiles,
} from './shape.ts';
import { shieldsEndpoint } from './shields.ts';
import type { BadgeLook, BadgeRenderer } from './svg.ts';

/** What a shape renders its own way, for an evaluation E whose badges are B. */
export interface ShapeRendering<
  E extends { badges: readonly B[] },
  B extends { def: { id: string } },
> {
  look(badge: B): BadgeLook;
  report(ctx: ReportContext, evaluation: E): object;
  explanation(ctx: ReportContext, evaluation: E, badge: B): object;
  codeScanning(repositoryUrl: string, evaluation: E): object;
}

/** One scan's report and, per badge, its image and explanation. */
export function scanFiles<E extends { badges: readonly B[] }, B extends { def: { id: string } }>(
  settings: Settings,
  badges: BadgeRenderer,
  shape: ShapeRendering<E, B>,
): ScanFiles<E> {
  return (encoded, evaluation, filter) => {
    const ctx = { settings, encoded };
    const { files, add } = renderedFiles(filter);
    add({ kind: 'sarif' }, () => jsonBytes(shape.report(ctx, evaluation)));
    for (const b of evaluation.badges) {
      add({ kind: 'svg', badgeId: b.def.id }, () => badges.render(shape.look(b)));
      add({ kind: 'explanation', badgeId: b.def.id }, () =>
        jsonBytes(shape.explanation(ctx, evaluation, b)),
      );
    }
    return files;
  };
}

export function latestFiles<E extends { badges: readonly B[] }, B extends { def: { id: string } }>(
  settings: Settings,
  badges: BadgeRenderer,
  shape: ShapeRendering<E, B>,
): LatestOnlyFiles<E> {
  return (repositoryUrl, evaluation, filter) => {
    const looks = evaluation.badges.map((b) => ({ badgeId: b.def.id, look: shape.look(b) }));
    return latestOnlyFiles(
      settings,
      badges,
      looks,
      () => shape.codeScanning(repositoryUrl, evaluation),
      filter,
    );
  };
}

/** The latest-only files from each badge's look and the code-scanning report. */
function latestOnlyFiles(
  settings: Settings,
  badges: BadgeRenderer,
  looks: ReadonlyArray<{ badgeId: string; look: BadgeLook }>,
  codeScanning: () => object,
  filter?: RenderFilter,
): RenderedFile[] {
  const { files, add } = renderedFiles(filter);
  for (const { badgeId, look } of looks) {
    for (const style of EXTRA_BADGE_STYLES) {
      if (settings.styles.includes(style))
        add({ kind: 'styled', badgeId, style }, () => badges.render(look, style));
    }
    if (settings.shieldsEndpoint)
      add({ kind: 'shields', badgeId }, () =>
        jsonBytes(shieldsEndpoint(look, settings.cache.latestMaxAge)),
      );
  }
  if (settings.codeScanning) add({ kind: 'code-scanning' }, () => jsonBytes(codeScanning()));
  return files;
}
