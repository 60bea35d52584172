// `badgepress site`: after n sharded builds, write the site-wide pages (home, list pages,
// badge and rule pages, search index, sitemap, 404) from the shards' summaries alone.
import pLimit from 'p-limit';
import { parseFlags, integerFlag, UsageError, BadInputError } from './args.ts';
import { SITE_FLAGS, loadSite, warnOfLocalBaseUrl } from './setup.ts';
import { openSink } from '../site/locations.ts';
import { loadPagesContext } from '../render/pages/setup.ts';
import { MissingSummariesError, readSummaries } from '../render/pages/summary.ts';
import { publishSiteWide } from '../render/pages/build-pages.ts';
import { publishRepository } from '../publish/publish.ts';
import { siteApiFiles } from '../render/site-files.ts';
import { pruneSiteWide } from '../publish/site-wide-prune.ts';
import { loadShape } from '../site/stages.ts';
import { MAX_SHARDS } from '../model/shard.ts';
import { plural } from '../model/plural.ts';

export const SITE_USAGE = `usage: badgepress site --shards N [--config FILE] [--out DIR|s3://…] [--shape A|B] [--base-url URL]
                      [--prune] [--s3-endpoint URL] [--s3-path-style] [--json]
  after "badgepress build --shard i/N" for every i, writes the site-wide pages from their summaries`;

export async function siteCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { ...SITE_FLAGS, shards: { type: 'string' }, prune: { type: 'boolean' }, json: { type: 'boolean' } }, SITE_USAGE);
  const shards = integerFlag('shards', values.shards, 1, MAX_SHARDS);
  if (shards === undefined) throw new UsageError(`--shards N is required: the n of the builds' --shard i/n\n${SITE_USAGE}`);
  const site = await loadSite({ ...values, store: values.store ?? '.' });
  warnOfLocalBaseUrl(site);
  if (!site.pages) throw new UsageError('pages: false in the config: there are no pages to write; remove it or set pages: true');
  const ctx = await loadPagesContext(site);
  const apiFiles = siteApiFiles(site, (await loadShape(site)).evaluator.badgeIds);
  const sink = await openSink(site.out, site);
  const counts = { written: 0, unchanged: 0, removed: 0 };
  let repositories: number;
  try {
    const summaries = await readSummaries(sink, shards).catch((err: unknown) => {
      throw err instanceof MissingSummariesError ? new BadInputError(err.message) : err;
    });
    repositories = summaries.urls.length;
    const limit = pLimit(site.s3.concurrency);
    try {
      const produced = new Set(apiFiles.map((f) => f.key));
      await publishSiteWide(ctx, sink, summaries, limit, counts, produced);
      // Site-wide too: api/v1/openapi.json (shard 0's build wrote the same bytes).
      await publishRepository(sink, apiFiles, limit, counts);
      // --prune: site-wide files these pages no longer include (a list page past the last, …).
      if (values.prune) await pruneSiteWide(sink, produced, { pages: true, api: true }, counts);
    } finally {
      summaries.close();
    }
  } finally {
    await sink.close();
  }
  if (values.json) process.stdout.write(`${JSON.stringify({ repositories, ...counts, out: sink.location, shards })}\n`);
  else {
    const removed = values.prune ? `, ${counts.removed} removed` : '';
    process.stdout.write(`badgepress: site pages for ${plural(repositories, 'repository', 'repositories')} from ${plural(shards, 'shard', 'shards')}: ${plural(counts.written, 'file', 'files')} written, ${counts.unchanged} unchanged${removed} → ${sink.location}\n`);
  }
  return 0;
}
