// The pages' view of the resolved configuration: the site settings, the active shape's
// thresholds (and decision files) and the templates, as the build's other stages see them.
import type { ResolvedConfig } from '../../config/resolve.ts';
import { pagesContext, type PagesContext } from './context.ts';
import type { PagesBuild } from './build-pages.ts';

export function loadPagesContext(config: ResolvedConfig): PagesContext {
  return pagesContext(config.settings, config.thresholds, config.templates);
}

/** The pages part of a build, or undefined when the config switches pages off. */
export function pagesBuild(
  config: ResolvedConfig,
  shard: { index: number; count: number } | undefined,
): PagesBuild | undefined {
  if (!config.settings.pages) return undefined;
  return { ctx: loadPagesContext(config), shard: shard ?? { index: 0, count: 1 } };
}
