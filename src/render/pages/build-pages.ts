// The human site's part of a build: per repository its page and feed (published after its
// API files), a summary of it, and at the end the shard's summaries and, for an unsharded
// build, the site-wide pages.
import type { LimitFunction } from 'p-limit';
import type { RepositoryHistory } from '../../load/types.ts';
import { publishRepository, type PublishCounts } from '../../publish/publish.ts';
import type { Sink } from '../../publish/sink.ts';
import type { SiteFile } from '../site-files.ts';
import { pagePaths, type PagesContext, type RepositoryEvaluations } from './context.ts';
import { statusChanges, type StatusChange } from './evaluate.ts';
import { repositoryFeed } from './feed.ts';
import { repositoryPage } from './repository.ts';
import { siteWideFileStream } from './site-wide.ts';
import { SUMMARIES_PREFIX, staleSummaryParts, summariesFiles, summaryLine, type SortedSummaries, type SummaryLine, type SummaryStore } from './summary.ts';

export interface PagesBuild {
  ctx: PagesContext;
  /** Which shard this build is (0 of 1 when unsharded). */
  shard: { index: number; count: number };
}

export function repositoryPageFiles(ctx: PagesContext, h: RepositoryHistory, ev: RepositoryEvaluations, changes: readonly StatusChange[] = statusChanges(ev)): SiteFile[] {
  const cacheControl = `public, max-age=${ctx.site.cache.latestMaxAge}`;
  return [
    { key: pagePaths.repositoryKey(h.encoded), body: repositoryPage(ctx, h, ev), contentType: 'text/html; charset=utf-8', cacheControl, phase: 'page' },
    { key: pagePaths.feed(h.encoded), body: repositoryFeed(ctx, h, changes), contentType: 'application/atom+xml', cacheControl, phase: 'page' },
  ];
}

/** A build's part of the human site: each repository's pages, then the site-wide ones. */
export class PagesCollector {
  constructor(private readonly pages: PagesBuild) {}

  /** The repository's page files and its summary (kept by the build, and in its state). */
  repository(ev: RepositoryEvaluations): { files: SiteFile[]; summary: SummaryLine } {
    // The feed and the summary both need the status changes: derived once.
    const changes = statusChanges(ev);
    return { files: repositoryPageFiles(this.pages.ctx, ev.history, ev, changes), summary: summaryLine(ev.history, ev, changes) };
  }

  /**
   * The shard's summaries (built and carried from the build state); with one shard also the
   * site-wide pages, from those summaries.
   */
  async finish(sink: Sink, limit: LimitFunction, counts: PublishCounts, summaries: SummaryStore, produced?: Set<string>): Promise<void> {
    const { index, count } = this.pages.shard;
    const sorted = summaries.sorted();
    let parts = 0;
    for (const f of summariesFiles(sorted, index, count)) {
      await publishRepository(sink, [f], limit, counts);
      parts++;
    }
    const stale = staleSummaryParts(await sink.list(SUMMARIES_PREFIX), index, count, parts);
    if (stale.length > 0) {
      await sink.remove(stale);
      counts.removed += stale.length;
    }
    if (count === 1) await publishSiteWide(this.pages.ctx, sink, sorted, limit, counts, produced);
  }
}

/** A batch of site-wide files in flight: enough to keep the sink busy, few enough to hold. */
const SITE_WIDE_BATCH = 64;

/** Publishes the site-wide pages; each key goes into `produced` (what --prune keeps). */
export async function publishSiteWide(ctx: PagesContext, sink: Sink, summaries: SortedSummaries, limit: LimitFunction, counts: PublishCounts, produced?: Set<string>): Promise<void> {
  // Files come in publishing order (assets, pages, home last); batches keep that order.
  let batch: SiteFile[] = [];
  for (const f of siteWideFileStream(ctx, summaries)) {
    produced?.add(f.key);
    batch.push(f);
    if (batch.length === SITE_WIDE_BATCH) {
      await publishRepository(sink, batch, limit, counts);
      batch = [];
    }
  }
  await publishRepository(sink, batch, limit, counts);
}
