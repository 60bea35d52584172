// What the page renderers need besides one repository's data: the site settings, the page
// environment (paths, assets made from the templates) and the active shape's thresholds.
import type { ShapeThresholds } from '../../config/resolve.ts';
import type { Templates } from '../../config/templates.ts';
import type { Settings } from '../../config/types.ts';
import type { RepositoryEvaluation } from '../../evaluate/repository.ts';
import { repositoryPagesPrefix, rulePagePath } from '../../model/layout.ts';
import { pageAssets } from './assets.ts';
import { pageEnv, type PageEnv } from './html.ts';

type PagesThresholds = ShapeThresholds;

export interface PagesContext {
  settings: Settings;
  env: PageEnv;
  thresholds: PagesThresholds;
}

export function pagesContext(
  settings: Settings,
  thresholds: PagesThresholds,
  templates: Pick<Templates, 'css' | 'js' | 'feedCss'>,
): PagesContext {
  const env = pageEnv(
    settings.baseUrl,
    settings.site.title,
    `Built by ${settings.tool.name} ${settings.tool.version}`,
    pageAssets(templates, settings.site.logo?.svg),
  );
  return { settings: settings, env, thresholds };
}

/** One repository's evaluations, from the build's evaluate step (src/evaluate/repository.ts). */
export type RepositoryEvaluations = RepositoryEvaluation;

/** The word a badge shows: Shape B says "none" where its explanation says fail. */
export function shownStatus(shape: 'A' | 'B', status: string): string {
  return shape === 'B' && status === 'fail' ? 'none' : status;
}

/** The rungs of a Shape B status chart, lowest first: the words its badge shows. */
export const SHOWN_LEVELS_B = ['none', 'bronze', 'silver', 'gold'] as const;

/** Site paths of the human pages. */
export const pagePaths = {
  repository: repositoryPagesPrefix,
  repositoryKey: (encoded: string) => `${repositoryPagesPrefix(encoded)}index.html`,
  feed: (encoded: string) => `repositories/${encoded}/feed.atom`,
  badge: (id: string) => `badges/${id}/`,
  badgeKey: (id: string) => `badges/${id}/index.html`,
  rule: rulePagePath,
  ruleKey: (ruleId: string) => `${rulePagePath(ruleId)}index.html`,
  listPage: (n: number) => (n <= 1 ? 'repositories/' : `repositories/page/${n}.html`),
  listPageKey: (n: number) => (n <= 1 ? 'repositories/index.html' : `repositories/page/${n}.html`),
  /** The page the header's search form goes to (search/index.html), beside the search's files. */
  search: 'search/',
  searchKey: 'search/index.html',
};
