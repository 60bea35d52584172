// Shape A: the report and the two renderings of each badge (image, explanation) of one scan.
import type { SiteConfig, ThresholdsA } from '../config/types.ts';
import type { EvaluationA } from '../evaluate/shape-a.ts';
import { badgeObjectA, sarifReportA } from './sarif-a.ts';
import { jsonBytes } from './sarif-common.ts';
import type { RenderedFile, ScanFiles } from './shape.ts';
import type { BadgeRenderer } from './svg.ts';

export function scanFilesA(site: SiteConfig, t: ThresholdsA, badges: BadgeRenderer): ScanFiles<EvaluationA> {
  return (encoded, evaluation) => {
    const ctx = { site, encoded };
    const files: RenderedFile[] = [{ resource: { kind: 'sarif' }, body: jsonBytes(sarifReportA(ctx, evaluation, t.rules)) }];
    for (const b of evaluation.badges) {
      files.push({
        resource: { kind: 'svg', badgeId: b.def.id },
        body: badges.render({ label: b.def.id, message: b.status, color: site.colors[b.status] }),
      });
      files.push({ resource: { kind: 'explanation', badgeId: b.def.id }, body: jsonBytes(badgeObjectA(ctx, evaluation, b)) });
    }
    return files;
  };
}
