// Shape A: evaluation plus the three renderings of each badge and the report.
import type { SiteConfig, ThresholdsA } from '../config/types.ts';
import { catalogA, evaluateScanA, isExpired, type EvaluationA } from '../evaluate/shape-a.ts';
import type { RepositoryHistory } from '../load/types.ts';
import { badgeObjectA, sarifReportA } from './sarif-a.ts';
import { jsonBytes } from './sarif-common.ts';
import type { RenderedFile, ShapeSite } from './shape.ts';
import type { BadgeLook, BadgeRenderer } from './svg.ts';
import { codeScanningA } from './code-scanning.ts';
import { latestOnlyFiles } from './latest-only.ts';

export function shapeASite(site: SiteConfig, t: ThresholdsA, badges: BadgeRenderer): ShapeSite {
  const lookA = (b: EvaluationA['badges'][number]): BadgeLook => ({ label: b.def.id, message: b.status, color: site.colors[b.status] });
  const evaluate = (h: RepositoryHistory, i: number, asOf: number): EvaluationA =>
    evaluateScanA(t, h.scans[i]!, { at: asOf, expireAfterDays: site.expireAfterDays });
  return {
    shape: 'A',
    badgeIds: t.badges.map((b) => b.id),
    catalog: catalogA(t),
    renderScan(h, i, asOf) {
      const evaluation = evaluate(h, i, asOf);
      const ctx = { site, encoded: h.encoded };
      const files: RenderedFile[] = [{ resource: { kind: 'sarif' }, body: jsonBytes(sarifReportA(ctx, evaluation, t.rules)) }];
      for (const b of evaluation.badges) {
        files.push({ resource: { kind: 'svg', badgeId: b.def.id }, body: badges.render(lookA(b)) });
        files.push({ resource: { kind: 'explanation', badgeId: b.def.id }, body: jsonBytes(badgeObjectA(ctx, evaluation, b)) });
      }
      return files;
    },
    renderLatestOnly(h, i, asOf) {
      const evaluation = evaluate(h, i, asOf);
      const looks = evaluation.badges.map((b) => ({ badgeId: b.def.id, look: lookA(b) }));
      return latestOnlyFiles(site, badges, looks, () => codeScanningA(site, h.repositoryUrl, evaluation, t.rules));
    },
    dependsOnAsOf(scanTime, asOf) {
      return isExpired(scanTime, { at: asOf, expireAfterDays: site.expireAfterDays });
    },
    statuses(h, i, asOf) {
      return Object.fromEntries(evaluate(h, i, asOf).badges.map((b) => [b.def.id, b.status]));
    },
  };
}
