// Shape B: how a badge looks, and which functions render its report, explanations and
// code-scanning report (shape-files.ts places them).
import type { SiteConfig, ThresholdsB } from '../config/types.ts';
import type { BadgeB, EvaluationB } from '../evaluate/shape-b.ts';
import { codeScanningB } from './code-scanning.ts';
import { badgeExplanationB, sarifReportB } from './sarif-b.ts';
import type { ShapeRendering } from './shape-files.ts';

export function renderingB(site: SiteConfig, t: ThresholdsB): ShapeRendering<EvaluationB, BadgeB> {
  return {
    // Nothing granted shows "none" in its own colour, never fail's.
    look: (b) => {
      const shown = b.status === 'fail' ? 'none' : b.status;
      return { label: b.def.id, message: shown, color: site.colors[shown] };
    },
    report: (ctx, evaluation) => sarifReportB(ctx, evaluation, t.rules),
    explanation: badgeExplanationB,
    codeScanning: (_repositoryUrl, evaluation) => codeScanningB(site, evaluation, t.rules),
  };
}
