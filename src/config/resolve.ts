// The configuration resolved once: the site settings (file and flags), the active shape's
// thresholds and, for Shape B, its decision files, and the templates the render stage fills
// in, each read and validated here and nowhere
// else. Every stage, the pages and the build state take this object, so they cannot disagree
// on what the configuration says (the URL schemes a decision may grant, for one).
import { loadDecisions } from './decisions.ts';
import {
  loadSettingsAt,
  loadThresholdsA,
  type SettingsFile,
  type SettingsOverrides,
  chooseSettingsFile,
} from './load.ts';
import { type Templates, readTemplates } from './templates.ts';
import { loadThresholdsB } from './thresholds-b.ts';
import type { DecisionFileB, Settings, ThresholdsA, ThresholdsB } from './types.ts';

/** The active shape's thresholds; Shape B's with its decision files by manual rule id. */
export type ShapeThresholds =
  | { shape: 'A'; t: ThresholdsA }
  | { shape: 'B'; t: ThresholdsB; decisions: ReadonlyMap<string, DecisionFileB> };

export interface ResolvedConfig {
  /** The settings file read (given, ./config/badgepress.yaml, or the packaged one). */
  settingsFile: SettingsFile;
  settings: Settings;
  thresholds: ShapeThresholds;
  /** What the render stage fills in, read here so rendering reads no file. */
  templates: Templates;
}

/** `file` undefined: ./config/badgepress.yaml when present, else the packaged defaults. */
export async function resolveConfig(
  file?: string,
  overrides: SettingsOverrides = {},
): Promise<ResolvedConfig> {
  const settingsFile = chooseSettingsFile(file);
  const settings = await loadSettingsAt(settingsFile, overrides);
  return {
    settingsFile,
    settings: settings,
    thresholds: await shapeThresholds(settings),
    templates: readTemplates(settings),
  };
}

/**
 * What the active thresholds judge by measurement, whatever their shape: the rule ids (no
 * manual rule), and each one's window in months where it gives one (timeRangeInMonths).
 */
export function judgedRules(thresholds: ShapeThresholds): {
  windowMonths: Record<string, number>;
  ids: string[];
} {
  const windowMonths: Record<string, number> = {};
  const ids: string[] = [];
  if (thresholds.shape === 'A') {
    for (const r of thresholds.t.rules) {
      ids.push(r.id);
      if (r.type === 'numeric' && r.timeRangeInMonths !== undefined)
        windowMonths[r.id] = r.timeRangeInMonths;
    }
  } else {
    for (const r of thresholds.t.rules) {
      if (r.manual) continue;
      ids.push(r.id);
      if (r.threshold.timeRangeInMonths !== undefined)
        windowMonths[r.id] = r.threshold.timeRangeInMonths;
    }
  }
  return { windowMonths, ids };
}

/** The thresholds (and decision files) the site settings name, for their shape. */
async function shapeThresholds(settings: Settings): Promise<ShapeThresholds> {
  if (settings.shape === 'A')
    return { shape: 'A', t: await loadThresholdsA(settings.thresholds.A) };
  const t = await loadThresholdsB(settings.thresholds.B);
  return {
    shape: 'B',
    t,
    decisions: await loadDecisions(settings.decisions, t, settings.repositoryUrlSchemes),
  };
}
