// Shape B: evaluation plus the report and, per badge id, its image and explanation.
import type { DecisionFileB, SiteConfig, ThresholdsB } from '../config/types.ts';
import { catalogB, evaluateScanB, type EvaluationB } from '../evaluate/shape-b.ts';
import type { RepositoryHistory } from '../load/types.ts';
import { badgeExplanationB, sarifReportB } from './sarif-b.ts';
import { jsonBytes } from './sarif-common.ts';
import type { RenderedFile, ShapeSite } from './shape.ts';
import type { BadgeRenderer } from './svg.ts';

export function shapeBSite(site: SiteConfig, t: ThresholdsB, decisions: ReadonlyMap<string, DecisionFileB>, badges: BadgeRenderer): ShapeSite {
  // Grants apply as of the scan's own time, so the answer never depends on the build's --now.
  const evaluate = (h: RepositoryHistory, i: number): EvaluationB => evaluateScanB(t, decisions, h.scans[i]!, h.grants);
  return {
    shape: 'B',
    badgeIds: t.badges.map((b) => b.id),
    catalog: catalogB(t),
    renderScan(h, i) {
      const evaluation = evaluate(h, i);
      const ctx = { site, encoded: h.encoded };
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
    },
    dependsOnAsOf() {
      return false;
    },
    statuses(h, i) {
      return Object.fromEntries(evaluate(h, i).badges.map((b) => [b.def.id, b.status]));
    },
  };
}
