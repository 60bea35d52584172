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
   * What finish publishes, in its order: the shard's summaries (built and carried from the
   * build state) in parts, counted in `parts`, then with one shard the site-wide pages.
   */
  *files(summaries: SortedSummaries, parts: { n: number } = { n: 0 }): Generator<SiteFile> {
    const { index, count } = this.pages.shard;
    for (const f of summariesFiles(summaries, index, count)) {
      parts.n++;
      yield f;
    }
    if (count === 1) yield* siteWideFileStream(this.pages.ctx, summaries);
  }

  /** Summary parts of this shard past the `parts` written now (an earlier, larger build's): removed. */
  async staleParts(sink: Sink, parts: number): Promise<string[]> {
    const { index, count } = this.pages.shard;
    return staleSummaryParts(await sink.list(SUMMARIES_PREFIX), index, count, parts);
  }

  /** Publishes files() and removes the stale parts; each key published goes into `produced`. */
  async finish(sink: Sink, limit: LimitFunction, counts: PublishCounts, summaries: SummaryStore, produced?: Set<string>): Promise<void> {
    const parts = { n: 0 };
    await publishInBatches(sink, this.files(summaries.sorted(), parts), limit, counts, produced);
    const stale = await this.staleParts(sink, parts.n);
    if (stale.length > 0) {
      await sink.remove(stale);
      counts.removed += stale.length;
    }
  }
}

/** A batch of site-wide files in flight: enough to keep the sink busy, few enough to hold. */
const SITE_WIDE_BATCH = 64;

/** Publishes the site-wide pages; each key goes into `produced` (what --prune keeps). */
export async function publishSiteWide(ctx: PagesContext, sink: Sink, summaries: SortedSummaries, limit: LimitFunction, counts: PublishCounts, produced?: Set<string>): Promise<void> {
  await publishInBatches(sink, siteWideFileStream(ctx, summaries), limit, counts, produced);
}

/** Files in publishing order (assets, pages, home last), in batches that keep that order. */
async function publishInBatches(sink: Sink, files: Iterable<SiteFile>, limit: LimitFunction, counts: PublishCounts, produced?: Set<string>): Promise<void> {
  let batch: SiteFile[] = [];
  for (const f of files) {
    produced?.add(f.key);
    batch.push(f);
    if (batch.length === SITE_WIDE_BATCH) {
      await publishRepository(sink, batch, limit, counts);
      batch = [];
    }
  }
  await publishRepository(sink, batch, limit, counts);
}
