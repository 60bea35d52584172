// Shape B: the report and, per badge id, its image and explanation of one scan.
import type { SiteConfig, ThresholdsB } from '../config/types.ts';
import type { EvaluationB } from '../evaluate/shape-b.ts';
import { badgeExplanationB, sarifReportB } from './sarif-b.ts';
import { jsonBytes } from './sarif-common.ts';
import type { RenderedFile, ScanFiles } from './shape.ts';
import type { BadgeRenderer } from './svg.ts';

export function scanFilesB(site: SiteConfig, t: ThresholdsB, badges: BadgeRenderer): ScanFiles<EvaluationB> {
  return (encoded, evaluation) => {
    const ctx = { site, encoded };
    const files: RenderedFile[] = [{ resource: { kind: 'sarif' }, body: jsonBytes(sarifReportB(ctx, evaluation, t.rules)) }];
    for (const b of evaluation.badges) {
      const message = b.status === 'fail' ? 'none' : b.status;
      files.push({
        resource: { kind: 'svg', badgeId: b.def.id },
        body: badges.render({ label: b.def.id, message, color: site.colors[b.status === 'fail' ? 'none' : b.status] }),
      });
      files.push({ resource: { kind: 'explanation', badgeId: b.def.id }, body: jsonBytes(badgeExplanationB(ctx, evaluation, b)) });
    }
    return files;
  };
}
