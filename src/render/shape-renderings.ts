// What each shape renders its own way: how a badge looks, and which functions render its
// report, explanations and code-scanning report (shape-files.ts places them).
import type { Settings, ThresholdsA, ThresholdsB } from '../config/types.ts';
import type { BadgeA, EvaluationA } from '../evaluate/shape-a.ts';
import type { BadgeB, EvaluationB } from '../evaluate/shape-b.ts';
import { codeScanningA, codeScanningB } from './code-scanning.ts';
import { badgeObjectA, sarifReportA } from './sarif-a.ts';
import { badgeExplanationB, sarifReportB } from './sarif-b.ts';
import type { ShapeRendering } from './shape-files.ts';

/** Shape A: a badge shows its status in the status's colour. */
export function renderingA(
  settings: Settings,
  t: ThresholdsA,
): ShapeRendering<EvaluationA, BadgeA> {
  return {
    look: (b) => ({ label: b.def.id, message: b.status, color: settings.colors[b.status] }),
    report: (ctx, evaluation) => sarifReportA(ctx, evaluation, t.rules),
    explanation: badgeObjectA,
    codeScanning: (repositoryUrl, evaluation) =>
      codeScanningA(settings, repositoryUrl, evaluation, t.rules),
  };
}

/** Shape B: a badge shows its level, or "none". */
export function renderingB(
  settings: Settings,
  t: ThresholdsB,
): ShapeRendering<EvaluationB, BadgeB> {
  return {
    // Nothing granted shows "none" in its own colour, never fail's.
    look: (b) => {
      const shown = b.status === 'fail' ? 'none' : b.status;
      return { label: b.def.id, message: shown, color: settings.colors[shown] };
    },
    report: (ctx, evaluation) => sarifReportB(ctx, evaluation, t.rules),
    explanation: badgeExplanationB,
    codeScanning: (_repositoryUrl, evaluation) => codeScanningB(settings, evaluation, t.rules),
  };
}
