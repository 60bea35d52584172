// `badgepress build`: the whole pipeline from the store to the output.
import { performance } from 'node:perf_hooks';
import { build, type BuildSummary } from '../build.ts';
import { loadHistories } from '../load/histories.ts';
import { BadInputError, integerFlag, parseFlags, UsageError } from './args.ts';
import { cleanUpAfter } from '../errors.ts';
import { issuePrinter } from './report.ts';
import { progressLine, progressShown } from './progress.ts';
import { inShard, parseShard, type Shard } from '../model/shard.ts';
import { SITE_FLAGS, loadSite } from './setup.ts';
import { openSink, openStore } from '../site/locations.ts';
import { loadShape } from '../site/stages.ts';
import { acquireLease, leasedSink, leaseKey } from '../publish/lease.ts';
import { pagesBuild } from '../render/pages/setup.ts';
import { openIncremental, openStateStore } from '../incremental/open.ts';
import { siteApiFiles, type SiteFile } from '../render/site-files.ts';
import type { SiteWideScope } from '../publish/site-wide-prune.ts';
import type { SiteConfig } from '../config/types.ts';

export const BUILD_USAGE = `usage: badgepress build [--config FILE] [--store DIR|s3://…] [--out DIR|s3://…] [--shape A|B]
                       [--base-url URL] [--now UNIX] [--shard i/n] [--strict] [--prune] [--force] [--json] [--wait SECONDS]
                       [--s3-endpoint URL] [--s3-path-style]`;

/** What --shard means to the loader: only this shard's repositories, and records that belong
 *  to no repository (no valid URL, a broken line) reported by shard 0 alone, so n shards
 *  report every bad record exactly once. */
export function shardLoadOptions(text: string | undefined): { include?: (url: string) => boolean; reportUnassignable: boolean; shard?: Shard } {
  if (text === undefined) return { reportUnassignable: true };
  const shard = parseShard(text);
  if ('problem' in shard) throw new UsageError(`--shard ${JSON.stringify(text)}: ${shard.problem}`);
  return { include: inShard(shard), reportUnassignable: shard.index === 0, shard };
}

/**
 * What a build writes and answers for of the whole site beside its repositories: every shard
 * would write the same openapi.json, so shard 0 writes it (and `badgepress site`); --prune
 * removes site-wide files: an unsharded build answers for all of them, shard 0 for
 * openapi.json and, only when there are no pages (else `site` writes them), the pages.
 */
export function siteWideOf(site: SiteConfig, shard: Shard | undefined, pages: boolean, badgeIds: readonly string[]): { siteFiles: SiteFile[]; siteWide?: SiteWideScope } {
  if ((shard?.index ?? 0) !== 0) return { siteFiles: [] };
  return { siteFiles: siteApiFiles(site, badgeIds), siteWide: { pages: !shard || !pages, api: true } };
}

export async function buildCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { ...SITE_FLAGS, strict: { type: 'boolean' }, prune: { type: 'boolean' }, force: { type: 'boolean' }, shard: { type: 'string' }, json: { type: 'boolean' }, wait: { type: 'string' } }, BUILD_USAGE);
  const waitSeconds = integerFlag('wait', values.wait, 0, 86_400) ?? 0;
  const started = performance.now();
  const now = integerFlag('now', values.now) ?? Math.floor(Date.now() / 1000);
  const sharding = shardLoadOptions(values.shard);
  const config = await loadSite(values);
  const { site } = config;
  const shape = loadShape(config);
  const pages = pagesBuild(config, sharding.shard);
  const store = await openStore(site.store, site);
  const printer = issuePrinter(process.stderr);

  if (values.strict) {
    // --strict: any bad record is fatal and nothing is written, so check everything first.
    let errors = 0;
    for await (const _ of loadHistories(store, {
      catalog: shape.evaluator.catalog,
      schemes: site.repositoryUrlSchemes,
      ...sharding,
      report: (i) => {
        printer.print(i);
        if (i.severity === 'error') errors++;
      },
    }));
    printer.flush();
    if (errors > 0) throw new BadInputError(`${errors} bad records and --strict: nothing written; fix them or drop --strict`);
  }

  const sink = await openSink(site.out, site);
  // One build at a time per output; shards write disjoint repositories, so each holds its own.
  let lease;
  try {
    const warn = (m: string) => process.stderr.write(`badgepress: warning: ${m}\n`);
    lease = await acquireLease(sink.leaseStore(leaseKey(sharding.shard)), { waitSeconds, onLost: warn, onWarning: warn, conditionalWrites: site.s3.conditionalWrites ?? 'required' });
  } catch (err) {
    throw await cleanUpAfter(err, [() => sink.close()]);
  }
  const storeFiles = progressShown(process.stderr) ? { names: await store.list(), display: (n: string) => store.display(n) } : undefined;
  const progress = progressLine(process.stderr, storeFiles, Date.now());
  let summary!: BuildSummary;
  // The state is read under the lease: another build may be writing it.
  const state = await openStateStore(site.out, site).catch(async (err: unknown) => {
    throw await cleanUpAfter(err, [() => lease.release(), () => sink.close()]);
  });
  const { shard, ...loadSharding } = sharding;
  let failure: unknown;
  try {
    const incremental = await openIncremental({ config, store, state, shard, now, prune: values.prune ?? false, force: values.force ?? false, warn: (m) => process.stderr.write(`badgepress: warning: ${m}\n`) });
    summary = await build({
      shape,
      store,
      // A build whose lease went to another stops publishing at its next file.
      sink: leasedSink(sink, lease),
      schemes: site.repositoryUrlSchemes,
      now,
      report: values.strict ? () => {} : printer.print,
      prune: values.prune ?? false,
      concurrency: site.s3.concurrency,
      ...loadSharding,
      incremental,
      onRepository: (h, s) => progress.update(s, h),
      ...(pages ? { pages } : {}),
      ...siteWideOf(site, sharding.shard, pages !== undefined, shape.evaluator.badgeIds),
    });
  } catch (err) {
    failure = err;
  }
  progress.done();
  // The first failure is the one to report (a publish that failed names its keys); a failure
  // to release the lease or close the output afterwards is added to it.
  const outcome = await cleanUpAfter(failure, [() => lease.release(), () => sink.close(), () => state.close()]);
  if (outcome !== undefined) throw outcome;
  printer.flush();
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const exitCode = summary.skipped > 0 ? 1 : 0;
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...summary, seconds: Number(seconds), out: sink.location, shard: values.shard ?? null, exitCode })}\n`);
    return exitCode;
  }
  const removed = values.prune ? `, ${summary.removed} removed` : '';
  const reused = summary.reused > 0 ? ` (${summary.reused} unchanged since the last build, not read)` : '';
  process.stdout.write(
    `badgepress: ${summary.repositories} repositories${reused}, ${summary.scans} scans, ${summary.written} files written, ` +
      `${summary.unchanged} unchanged${removed}, ${summary.skipped} records skipped, ${seconds} s → ${sink.location}\n`,
  );
  return exitCode;
}
