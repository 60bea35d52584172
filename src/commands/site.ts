// `badgepress site`: after n sharded builds, write the site-wide pages (home, list pages,
// badge and rule pages, host and group pages, search files, sitemap, 404) from the shards' summaries alone.
import { parseFlags, integerFlag } from './args.ts';
import { UsageError } from '../errors.ts';
import { CONFIG_FLAGS, resolveFlags, warnOfLocalBaseUrl } from './setup.ts';
import { runSiteWidePages } from '../pipeline/run.ts';
import { MAX_SHARDS } from '../model/shard.ts';
import { counted } from '../model/plural.ts';

export const SITE_USAGE = `usage: badgepress site --shards N [--config FILE] [--out DIR|s3://…] [--shape A|B] [--base-url URL]
                      [--prune] [--s3-endpoint URL] [--s3-path-style] [--json]
  after "badgepress build --shard i/N" for every i, writes the site-wide pages from their summaries`;

export async function siteCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    argv,
    {
      ...CONFIG_FLAGS,
      shards: { type: 'string' },
      prune: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    SITE_USAGE,
  );
  const shards = integerFlag('shards', values.shards, 1, MAX_SHARDS);
  if (shards === undefined)
    throw new UsageError(`--shards N is required: the n of the builds' --shard i/n\n${SITE_USAGE}`);
  const config = await resolveFlags({ ...values, store: values.store ?? '.' });
  warnOfLocalBaseUrl(config.settings);
  if (!config.settings.pages)
    throw new UsageError(
      'pages: false in the config: there are no pages to write; remove it or set pages: true',
    );
  const { repositories, counts, location } = await runSiteWidePages(
    config,
    shards,
    values.prune ?? false,
  );
  if (values.json)
    process.stdout.write(`${JSON.stringify({ repositories, ...counts, out: location, shards })}\n`);
  else {
    const removed = values.prune ? `, ${counts.removed} removed` : '';
    process.stdout.write(
      `badgepress: site pages for ${counted(repositories, 'repository', 'repositories')} from ${counted(shards, 'shard', 'shards')}: ${counted(counts.written, 'file', 'files')} written, ${counts.unchanged} unchanged${removed} → ${location}\n`,
    );
  }
  return 0;
}
