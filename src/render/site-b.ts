// Shape B: the report and, per badge id, its image and explanation of one scan, and the
// files only the latest answer has.
import type { SiteConfig, ThresholdsB } from '../config/types.ts';
import type { EvaluationB } from '../evaluate/shape-b.ts';
import { codeScanningB } from './code-scanning.ts';
import { latestOnlyFiles } from './latest-only.ts';
import { badgeExplanationB, sarifReportB } from './sarif-b.ts';
import { jsonBytes } from './sarif-common.ts';
import { renderedFiles, type LatestOnlyFiles, type ScanFiles } from './shape.ts';
import type { BadgeLook, BadgeRenderer } from './svg.ts';

/** Nothing granted shows "none" in its own colour, never fail's. */
function lookB(site: SiteConfig, b: EvaluationB['badges'][number]): BadgeLook {
  const shown = b.status === 'fail' ? 'none' : b.status;
  return { label: b.def.id, message: shown, color: site.colors[shown] };
}

export function scanFilesB(site: SiteConfig, t: ThresholdsB, badges: BadgeRenderer): ScanFiles<EvaluationB> {
  return (encoded, evaluation, filter) => {
    const ctx = { site, encoded };
    const { files, add } = renderedFiles(filter);
    add({ kind: 'sarif' }, () => jsonBytes(sarifReportB(ctx, evaluation, t.rules)));
    for (const b of evaluation.badges) {
      add({ kind: 'svg', badgeId: b.def.id }, () => badges.render(lookB(site, b)));
      add({ kind: 'explanation', badgeId: b.def.id }, () => jsonBytes(badgeExplanationB(ctx, evaluation, b)));
    }
    return files;
  };
}

export function latestFilesB(site: SiteConfig, t: ThresholdsB, badges: BadgeRenderer): LatestOnlyFiles<EvaluationB> {
  return (_repositoryUrl, evaluation, filter) => {
    const looks = evaluation.badges.map((b) => ({ badgeId: b.def.id, look: lookB(site, b) }));
    return latestOnlyFiles(site, badges, looks, () => codeScanningB(site, evaluation, t.rules), filter);
  };
}
