// The configuration resolved once: the site settings (file and flags), the active shape's
// thresholds and, for Shape B, its decision files, and the templates the render stage fills
// in, each read and validated here and nowhere
// else. Every stage, the pages and the build state take this object, so they cannot disagree
// on what the configuration says (the URL schemes a decision may grant, for one).
import { loadDecisions } from './decisions.ts';
import { loadSettingsAt, loadThresholdsA, type SettingsFile, type SettingsOverrides, chooseSettingsFile } from './load.ts';
import { type Templates, readTemplates } from './templates.ts';
import { loadThresholdsB } from './thresholds-b.ts';
import type { DecisionFileB, Settings, ThresholdsA, ThresholdsB } from './types.ts';

/** The active shape's thresholds; Shape B's with its decision files by manual rule id. */
export type ShapeThresholds = { shape: 'A'; t: ThresholdsA } | { shape: 'B'; t: ThresholdsB; decisions: ReadonlyMap<string, DecisionFileB> };

export interface ResolvedConfig {
  /** The settings file read (given, ./config/badgepress.yaml, or the packaged one). */
  settingsFile: SettingsFile;
  settings: Settings;
  thresholds: ShapeThresholds;
  /** What the render stage fills in, read here so rendering reads no file. */
  templates: Templates;
}

/** `file` undefined: ./config/badgepress.yaml when present, else the packaged defaults. */
export async function resolveConfig(file?: string, overrides: SettingsOverrides = {}): Promise<ResolvedConfig> {
  const settingsFile = chooseSettingsFile(file);
  const settings = await loadSettingsAt(settingsFile, overrides);
  return { settingsFile, settings: settings, thresholds: await shapeThresholds(settings), templates: readTemplates(settings) };
}

/** The thresholds (and decision files) the site settings name, for their shape. */
export async function shapeThresholds(settings: Settings): Promise<ShapeThresholds> {
  if (settings.shape === 'A') return { shape: 'A', t: await loadThresholdsA(settings.thresholds.A) };
  const t = await loadThresholdsB(settings.thresholds.B);
  return { shape: 'B', t, decisions: await loadDecisions(settings.decisions, t, settings.repositoryUrlSchemes) };
}
