// `badgepress site`: after n sharded builds, write the site-wide pages (home, list pages,
// badge and rule pages, search index, sitemap, 404) from the shards' summaries alone.
import pLimit from 'p-limit';
import { parseFlags, integerFlag, UsageError } from './args.ts';
import { SITE_FLAGS, loadSite } from './setup.ts';
import { openSink } from '../build/locations.ts';
import { loadPagesContext } from '../render/pages/setup.ts';
import { readSummaries } from '../build/summaries.ts';
import { PublishOutlet } from '../build/outlet.ts';
import { siteWideFileStream } from '../render/pages/site-wide.ts';
import { siteApiFiles } from '../render/site-files.ts';
import { loadShape } from '../build/stages.ts';
import { MAX_SHARDS } from '../model/shard.ts';

export const SITE_USAGE = `usage: badgepress site --shards N [--config FILE] [--out DIR|s3://…] [--shape A|B] [--base-url URL]
                      [--prune] [--s3-endpoint URL] [--s3-path-style] [--json]
  after "badgepress build --shard i/N" for every i, writes the site-wide pages from their summaries`;

export async function siteCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { ...SITE_FLAGS, shards: { type: 'string' }, prune: { type: 'boolean' }, json: { type: 'boolean' } }, SITE_USAGE);
  const shards = integerFlag('shards', values.shards, 1, MAX_SHARDS);
  if (shards === undefined) throw new UsageError(`--shards N is required: the n of the builds' --shard i/n\n${SITE_USAGE}`);
  const config = await loadSite({ ...values, store: values.store ?? '.' });
  const { site } = config;
  if (!site.pages) throw new UsageError('pages: false in the config: there are no pages to write; remove it or set pages: true');
  const ctx = loadPagesContext(config);
  const apiFiles = siteApiFiles(site, loadShape(config).evaluator.badgeIds);
  const sink = await openSink(site.out, site);
  const counts = { written: 0, unchanged: 0, removed: 0 };
  let repositories: number;
  try {
    const summaries = await readSummaries(sink, shards);
    repositories = summaries.urls.length;
    const limit = pLimit(site.s3.concurrency);
    try {
      const outlet = new PublishOutlet(sink, limit, counts, { concurrency: site.s3.concurrency, prune: false, pages: true, prunedBefore: () => false });
      const produced = new Set<string>();
      await outlet.siteWide(siteWideFileStream(ctx, summaries), produced);
      // Site-wide too: api/v1/openapi.json (shard 0's build wrote the same bytes).
      await outlet.siteWide(apiFiles, produced);
      // --prune: site-wide files these pages no longer include (a list page past the last, …).
      if (values.prune) await outlet.pruneSiteWide(produced, { pages: true, api: true });
    } finally {
      summaries.close();
    }
  } finally {
    await sink.close();
  }
  if (values.json) process.stdout.write(`${JSON.stringify({ repositories, ...counts, out: sink.location, shards })}\n`);
  const removed = values.prune ? `, ${counts.removed} removed` : '';
  if (!values.json) process.stdout.write(`badgepress: site pages for ${repositories} repositories from ${shards} shard(s): ${counts.written} files written, ${counts.unchanged} unchanged${removed} → ${sink.location}\n`);
  return 0;
}
