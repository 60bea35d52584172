// `--prune` for the files of the whole site rather than of one repository: the site-wide pages
// (home, list pages, group pages and lists, badge and rule pages, search files and pages,
// sitemap, 404, robots, assets) and
// api/v1/openapi.json. A build removes those it no longer produces: a list page past the last
// after repositories left, the page of a removed badge or rule, assets of an older version,
// openapi.json after `openapi: false`, every page after `pages: false`. Only keys badgepress
// itself writes are ever looked at, so files an operator keeps beside the site stay.
import { OPENAPI_KEY } from '../render/openapi.ts';
import type { PublishCounts } from './publish.ts';
import type { Sink } from './sink.ts';

/** Folders that hold site-wide pages alone. */
const PAGE_FOLDERS = [
  'assets/',
  'badges/',
  'rules/',
  'sitemaps/',
  'repositories/page/',
  'groups/',
  'search/',
];
/** Site-wide pages outside those folders. */
const PAGE_FILES = [
  'index.html',
  '404.html',
  'robots.txt',
  'favicon.svg',
  'sitemap.xml',
  'repositories/index.html',
  'repositories/search.json',
];

/** Which site-wide files a build answers for: the pages (one unsharded build, or `site`), openapi.json. */
export interface SiteWideScope {
  pages: boolean;
  api: boolean;
}

/** Whether a key is published, from what the sink can tell without fetching it where it can (S3: its listing). */
async function present(sink: Sink, key: string): Promise<boolean> {
  return (
    (await sink.compare({ key, body: '', contentType: '', cacheControl: '', phase: 'page' })) !==
    'absent'
  );
}

/** Site-wide keys of the scope that are published and not among `produced`. */
export async function staleSiteWideKeys(
  sink: Sink,
  produced: ReadonlySet<string>,
  scope: SiteWideScope,
): Promise<string[]> {
  const candidates: string[] = [];
  if (scope.pages) {
    for (const folder of PAGE_FOLDERS) candidates.push(...(await sink.list(folder)));
    for (const key of PAGE_FILES) if (await present(sink, key)) candidates.push(key);
  }
  if (scope.api && (await present(sink, OPENAPI_KEY))) candidates.push(OPENAPI_KEY);
  return candidates.filter((k) => !produced.has(k)).sort();
}

/** Removes them (and, in a directory, the folders that leaves empty). */
export async function pruneSiteWide(
  sink: Sink,
  produced: ReadonlySet<string>,
  scope: SiteWideScope,
  counts: PublishCounts,
): Promise<void> {
  const stale = await staleSiteWideKeys(sink, produced, scope);
  if (stale.length === 0) return;
  await sink.remove(stale);
  counts.removed += stale.length;
  if (!scope.pages) return;
  for (const folder of PAGE_FOLDERS) await sink.removeEmptyDirectories?.(folder);
  // With no page produced (pages: false) the repository pages' folder goes too once the
  // per-repository prune has emptied it (while pages are built it holds them: not walked).
  if (![...produced].some((k) => k.startsWith(REPOSITORY_PAGES)))
    await sink.removeEmptyDirectories?.(REPOSITORY_PAGES);
}

/** The folder of the repository pages and the list pages. */
const REPOSITORY_PAGES = 'repositories/';
