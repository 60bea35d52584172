// Shape A: how a badge looks, and which functions render its report, explanations and
// code-scanning report (shape-files.ts places them).
import type { SiteConfig, ThresholdsA } from '../config/types.ts';
import type { BadgeA, EvaluationA } from '../evaluate/shape-a.ts';
import { codeScanningA } from './code-scanning.ts';
import { badgeObjectA, sarifReportA } from './sarif-a.ts';
import type { ShapeRendering } from './shape-files.ts';

export function renderingA(site: SiteConfig, t: ThresholdsA): ShapeRendering<EvaluationA, BadgeA> {
  return {
    look: (b) => ({ label: b.def.id, message: b.status, color: site.colors[b.status] }),
    report: (ctx, evaluation) => sarifReportA(ctx, evaluation, t.rules),
    explanation: badgeObjectA,
    codeScanning: (repositoryUrl, evaluation) => codeScanningA(site, repositoryUrl, evaluation, t.rules),
  };
}
