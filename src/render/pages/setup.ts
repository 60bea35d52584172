// The pages' view of the configuration: the active shape's thresholds (and decision files),
// loaded the way build loads them.
import { loadThresholdsA } from '../../config/load.ts';
import { loadThresholdsB } from '../../config/thresholds-b.ts';
import { loadDecisions } from '../../config/decisions.ts';
import type { SiteConfig } from '../../config/types.ts';
import { pagesContext, type PagesContext } from './context.ts';
import type { PagesBuild } from './build-pages.ts';

export async function loadPagesContext(site: SiteConfig): Promise<PagesContext> {
  if (site.shape === 'A') return pagesContext(site, { shape: 'A', t: await loadThresholdsA(site.thresholds.A) });
  const t = await loadThresholdsB(site.thresholds.B);
  return pagesContext(site, { shape: 'B', t, decisions: await loadDecisions(site.decisions, t) });
}

/** The pages part of a build, or undefined when the config switches pages off. */
export async function pagesBuild(site: SiteConfig, shard: { index: number; count: number } | undefined): Promise<PagesBuild | undefined> {
  if (!site.pages) return undefined;
  return { ctx: await loadPagesContext(site), shard: shard ?? { index: 0, count: 1 } };
}
