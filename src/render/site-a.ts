// Shape A: the report and the two renderings of each badge (image, explanation) of one scan,
// and the files only the latest answer has.
import type { SiteConfig, ThresholdsA } from '../config/types.ts';
import type { EvaluationA } from '../evaluate/shape-a.ts';
import { codeScanningA } from './code-scanning.ts';
import { latestOnlyFiles } from './latest-only.ts';
import { badgeObjectA, sarifReportA } from './sarif-a.ts';
import { jsonBytes } from './sarif-common.ts';
import { renderedFiles, type LatestOnlyFiles, type ScanFiles } from './shape.ts';
import type { BadgeLook, BadgeRenderer } from './svg.ts';

function lookA(site: SiteConfig, b: EvaluationA['badges'][number]): BadgeLook {
  return { label: b.def.id, message: b.status, color: site.colors[b.status] };
}

export function scanFilesA(site: SiteConfig, t: ThresholdsA, badges: BadgeRenderer): ScanFiles<EvaluationA> {
  return (encoded, evaluation, filter) => {
    const ctx = { site, encoded };
    const { files, add } = renderedFiles(filter);
    add({ kind: 'sarif' }, () => jsonBytes(sarifReportA(ctx, evaluation, t.rules)));
    for (const b of evaluation.badges) {
      add({ kind: 'svg', badgeId: b.def.id }, () => badges.render(lookA(site, b)));
      add({ kind: 'explanation', badgeId: b.def.id }, () => jsonBytes(badgeObjectA(ctx, evaluation, b)));
    }
    return files;
  };
}

export function latestFilesA(site: SiteConfig, t: ThresholdsA, badges: BadgeRenderer): LatestOnlyFiles<EvaluationA> {
  return (repositoryUrl, evaluation, filter) => {
    const looks = evaluation.badges.map((b) => ({ badgeId: b.def.id, look: lookA(site, b) }));
    return latestOnlyFiles(site, badges, looks, () => codeScanningA(site, repositoryUrl, evaluation, t.rules), filter);
  };
}
