// The human site's part of a build: per repository its page and feed, a summary of it, and at
// the end the shard's summaries and, for an unsharded build, the site-wide pages. Publishing
// them is the build's job (src/pipeline/run.ts).
import { HTML_TYPE, XML_TYPE } from '../../model/http.ts';
import type { RepositoryHistory } from '../../load/types.ts';
import type { PublishFile } from '../../model/publish-file.ts';
import { pagePaths, type PagesContext, type RepositoryEvaluations } from './context.ts';
import { statusChanges, type StatusChange } from './evaluate.ts';
import { repositoryFeed } from './feed.ts';
import { repositoryPage } from './repository.ts';
import { siteWideFileStream } from './site-wide.ts';
import { summariesFiles, summaryLine, type SortedSummaries, type SummaryLine } from './summary.ts';

export interface PagesBuild {
  ctx: PagesContext;
  /** Which shard this build is (0 of 1 when unsharded). */
  shard: { index: number; count: number };
}

/**
 * A page as one flat string: V8 keeps a string built by concatenation as a tree of its
 * pieces, and a page waits while its repository's API files are published, long enough to
 * be promoted to the old generation: flattened now, the pieces die young.
 */
function flattened(s: string): string {
  return (Number(s), s);
}

export function repositoryPageFiles(
  ctx: PagesContext,
  h: RepositoryHistory,
  ev: RepositoryEvaluations,
  changes: readonly StatusChange[] = statusChanges(ev),
): PublishFile[] {
  const cacheControl = `public, max-age=${ctx.settings.cache.latestMaxAge}`;
  return [
    {
      key: pagePaths.repositoryKey(h.encoded),
      body: flattened(repositoryPage(ctx, h, ev)),
      contentType: HTML_TYPE,
      cacheControl,
      phase: 'page',
    },
    {
      key: pagePaths.feed(h.encoded),
      body: flattened(repositoryFeed(ctx, h, ev, changes)),
      contentType: XML_TYPE,
      cacheControl,
      phase: 'page',
    },
  ];
}

/** A build's part of the human site: each repository's pages, then the site-wide ones. */
export class PagesCollector {
  private readonly pages: PagesBuild;
  constructor(pages: PagesBuild) {
    this.pages = pages;
  }

  /** Which shard this build is (0 of 1 when unsharded). */
  get shard(): { index: number; count: number } {
    return this.pages.shard;
  }

  /** The repository's page files and its summary (kept by the build, and in its state). */
  repository(ev: RepositoryEvaluations): { files: PublishFile[]; summary: SummaryLine } {
    // The feed and the summary both need the status changes: derived once.
    const changes = statusChanges(ev);
    return {
      files: repositoryPageFiles(this.pages.ctx, ev.history, ev, changes),
      summary: summaryLine(ev.history, ev, changes),
    };
  }

  /**
   * What a build publishes after its repositories, in order: the shard's summaries (built and carried from the
   * build state) in parts, counted in `parts`, then with one shard the site-wide pages.
   */
  *files(summaries: SortedSummaries, parts: { n: number } = { n: 0 }): Generator<PublishFile> {
    const { index, count } = this.pages.shard;
    for (const f of summariesFiles(summaries, index, count)) {
      parts.n++;
      yield f;
    }
    if (count === 1) yield* siteWideFileStream(this.pages.ctx, summaries);
  }
}
