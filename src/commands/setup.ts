// Turns flags and config into the pieces a build needs: the site settings, the active shape,
// the store to read and the sink to write. Shared by `build` and `plan`.
import { ConfigError, isS3, loadSiteConfig, loadThresholdsA } from '../config/load.ts';
import type { Shape, SiteConfig } from '../config/types.ts';
import { DirectoryStore, type StoreSource } from '../load/store.ts';
import { DirectorySink } from '../publish/dir-sink.ts';
import type { Sink } from '../publish/sink.ts';
import { shapeASite } from '../render/site-a.ts';
import { shapeBSite } from '../render/site-b.ts';
import { loadThresholdsB } from '../config/thresholds-b.ts';
import { loadDecisions } from '../config/decisions.ts';
import type { ShapeSite } from '../render/shape.ts';
import { BadgeRenderer } from '../render/svg.ts';
import { UsageError } from './args.ts';

export const SITE_FLAGS = {
  config: { type: 'string' },
  store: { type: 'string' },
  out: { type: 'string' },
  shape: { type: 'string' },
  'base-url': { type: 'string' },
  now: { type: 'string' },
} as const;

export interface SiteFlags {
  config?: string | undefined;
  store?: string | undefined;
  out?: string | undefined;
  shape?: string | undefined;
  'base-url'?: string | undefined;
}

export async function loadSite(flags: SiteFlags): Promise<SiteConfig> {
  if (flags.shape !== undefined && flags.shape !== 'A' && flags.shape !== 'B') {
    throw new UsageError(`--shape ${JSON.stringify(flags.shape)}: expected A or B`);
  }
  return loadSiteConfig(flags.config, {
    ...(flags.shape ? { shape: flags.shape as Shape } : {}),
    ...(flags['base-url'] !== undefined ? { baseUrl: flags['base-url'] } : {}),
    ...(flags.store !== undefined ? { store: flags.store } : {}),
    ...(flags.out !== undefined ? { out: flags.out } : {}),
  });
}

export async function loadShape(site: SiteConfig): Promise<ShapeSite> {
  const badges = new BadgeRenderer();
  if (site.shape === 'A') return shapeASite(site, await loadThresholdsA(site.thresholds.A), badges);
  const thresholdsB = await loadThresholdsB(site.thresholds.B);
  return shapeBSite(site, thresholdsB, await loadDecisions(site.decisions, thresholdsB), badges);
}

export function openStore(location: string, _site: SiteConfig): StoreSource {
  if (isS3(location)) throw new ConfigError([`--store ${location}: reading stored values from S3 is not supported by this version yet; use a directory`]);
  return new DirectoryStore(location);
}

export function openSink(location: string, _site: SiteConfig): Sink {
  if (isS3(location)) throw new ConfigError([`--out ${location}: publishing to S3 is not supported by this version yet; use a directory`]);
  return new DirectorySink(location);
}
