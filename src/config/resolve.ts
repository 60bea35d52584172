// The configuration resolved once: the site settings (file and flags), the active shape's
// thresholds and, for Shape B, its decision files, and the templates the render stage fills
// in, each read and validated here and nowhere
// else. Every stage, the pages and the build state take this object, so they cannot disagree
// on what the configuration says (the URL schemes a decision may grant, for one).
import { loadDecisions } from './decisions.ts';
import { loadSiteConfigAt, loadThresholdsA, type SettingsFile, type SiteOverrides, siteConfigFile } from './load.ts';
import { type SiteTemplates, siteTemplates } from './templates.ts';
import { loadThresholdsB } from './thresholds-b.ts';
import type { DecisionFileB, SiteConfig, ThresholdsA, ThresholdsB } from './types.ts';

/** The active shape's thresholds; Shape B's with its decision files by manual rule id. */
export type ShapeThresholds = { shape: 'A'; t: ThresholdsA } | { shape: 'B'; t: ThresholdsB; decisions: ReadonlyMap<string, DecisionFileB> };

export interface ResolvedConfig {
  /** The settings file read (given, ./config/badgepress.yaml, or the packaged one). */
  settingsFile: SettingsFile;
  site: SiteConfig;
  thresholds: ShapeThresholds;
  /** What the render stage fills in, read here so rendering reads no file. */
  templates: SiteTemplates;
}

/** `file` undefined: ./config/badgepress.yaml when present, else the packaged defaults. */
export async function resolveConfig(file?: string, overrides: SiteOverrides = {}): Promise<ResolvedConfig> {
  const settingsFile = siteConfigFile(file);
  const site = await loadSiteConfigAt(settingsFile, overrides);
  return { settingsFile, site, thresholds: await shapeThresholds(site), templates: siteTemplates(site) };
}

/** The thresholds (and decision files) the site settings name, for their shape. */
export async function shapeThresholds(site: SiteConfig): Promise<ShapeThresholds> {
  if (site.shape === 'A') return { shape: 'A', t: await loadThresholdsA(site.thresholds.A) };
  const t = await loadThresholdsB(site.thresholds.B);
  return { shape: 'B', t, decisions: await loadDecisions(site.decisions, t, site.repositoryUrlSchemes) };
}
