// Shape B: evaluation plus the report and, per badge id, its image and explanation.
import type { DecisionFileB, SiteConfig, ThresholdsB } from '../config/types.ts';
import { catalogB, evaluateScanB, type EvaluationB } from '../evaluate/shape-b.ts';
import type { RepositoryHistory } from '../load/types.ts';
import { badgeExplanationB, sarifReportB } from './sarif-b.ts';
import { jsonBytes } from './sarif-common.ts';
import type { RenderedFile, ShapeSite } from './shape.ts';
import type { BadgeLook, BadgeRenderer } from './svg.ts';
import { codeScanningB } from './code-scanning.ts';
import { latestOnlyFiles } from './latest-only.ts';

export function shapeBSite(site: SiteConfig, t: ThresholdsB, decisions: ReadonlyMap<string, DecisionFileB>, badges: BadgeRenderer): ShapeSite {
  // Grants apply as of the scan's own time, so the answer never depends on the build's --now.
  const evaluate = (h: RepositoryHistory, i: number): EvaluationB => evaluateScanB(t, decisions, h.scans[i]!, h.grants);
  // Nothing granted shows "none" in its own colour, never fail's.
  const lookB = (b: EvaluationB['badges'][number]): BadgeLook => ({ label: b.def.id, message: b.status === 'fail' ? 'none' : b.status, color: site.colors[b.status === 'fail' ? 'none' : b.status] });
  return {
    shape: 'B',
    badgeIds: t.badges.map((b) => b.id),
    catalog: catalogB(t),
    renderScan(h, i) {
      const evaluation = evaluate(h, i);
      const ctx = { site, encoded: h.encoded };
      const files: RenderedFile[] = [{ resource: { kind: 'sarif' }, body: jsonBytes(sarifReportB(ctx, evaluation, t.rules)) }];
      for (const b of evaluation.badges) {
        files.push({ resource: { kind: 'svg', badgeId: b.def.id }, body: badges.render(lookB(b)) });
        files.push({ resource: { kind: 'explanation', badgeId: b.def.id }, body: jsonBytes(badgeExplanationB(ctx, evaluation, b)) });
      }
      return files;
    },
    renderLatestOnly(h, i) {
      const evaluation = evaluate(h, i);
      const looks = evaluation.badges.map((b) => ({ badgeId: b.def.id, look: lookB(b) }));
      return latestOnlyFiles(site, badges, looks, () => codeScanningB(site, evaluation, t.rules));
    },
    dependsOnAsOf() {
      return false;
    },
    statuses(h, i) {
      return Object.fromEntries(evaluate(h, i).badges.map((b) => [b.def.id, b.status]));
    },
  };
}
