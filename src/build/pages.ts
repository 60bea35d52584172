// Publishing the human site's files a build renders: after every repository, the shard's
// summaries and the site-wide pages, in batches that keep their order (assets, pages, home last).
import type { LimitFunction } from 'p-limit';
import { publishRepository, type PublishCounts } from '../publish/publish.ts';
import type { Sink } from '../publish/sink.ts';
import type { PagesCollector } from '../render/pages/build-pages.ts';
import type { PagesContext } from '../render/pages/context.ts';
import { siteWideFileStream } from '../render/pages/site-wide.ts';
import { SUMMARIES_PREFIX, staleSummaryParts, type SortedSummaries, type SummaryStore } from '../render/pages/summary.ts';
import type { SiteFile } from '../render/site-files.ts';

/** Summary parts of this shard past the `parts` written now (an earlier, larger build's): removed. */
export async function staleSummaryKeys(sink: Sink, shard: { index: number; count: number }, parts: number): Promise<string[]> {
  return staleSummaryParts(await sink.list(SUMMARIES_PREFIX), shard.index, shard.count, parts);
}

/** Publishes the collector's files and removes the stale parts; each key published goes into `produced`. */
export async function publishPages(pages: PagesCollector, sink: Sink, limit: LimitFunction, counts: PublishCounts, summaries: SummaryStore, produced?: Set<string>): Promise<void> {
  const parts = { n: 0 };
  await publishInBatches(sink, pages.files(summaries.sorted(), parts), limit, counts, produced);
  const stale = await staleSummaryKeys(sink, pages.shard, parts.n);
  if (stale.length > 0) {
    await sink.remove(stale);
    counts.removed += stale.length;
  }
}

/** A batch of site-wide files in flight: enough to keep the sink busy, few enough to hold. */
const SITE_WIDE_BATCH = 64;

/** Publishes the site-wide pages; each key goes into `produced` (what --prune keeps). */
export async function publishSiteWide(ctx: PagesContext, sink: Sink, summaries: SortedSummaries, limit: LimitFunction, counts: PublishCounts, produced?: Set<string>): Promise<void> {
  await publishInBatches(sink, siteWideFileStream(ctx, summaries), limit, counts, produced);
}

/** Files in publishing order, in batches that keep that order. */
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
