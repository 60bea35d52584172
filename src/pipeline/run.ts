// A build from start to end: the store and the output opened, the loop in check mode first
// under --strict, the lease, the build state, the loop in build mode, and everything closed
// again however it ends. Commands turn argv into these options, call runBuild once, and
// print what it returns.
import { acquireLease, leaseKey } from '../io/lease.ts';
import { leasedSink } from '../publish/lease.ts';
import { BadInputError, cleanUpAfter } from '../errors.ts';
import type { ResolvedConfig } from '../config/resolve.ts';
import type { Settings } from '../config/types.ts';
import type { Sink } from '../publish/sink.ts';
import type { LoadIssue, RepositoryHistory } from '../load/types.ts';
import type { StoreSource } from '../load/store.ts';
import type { Shard } from '../model/shard.ts';
import { counted } from '../model/plural.ts';
import type { SiteWideScope } from '../publish/site-wide-prune.ts';
import type { PublishFile } from '../model/publish-file.ts';
import { openapiFiles } from '../render/renderer.ts';
import { openIncremental, openStateKeeper } from '../incremental/open.ts';
import type { IncrementalBuild } from '../incremental/incremental.ts';
import { Planner, type PlanReport } from '../publish/plan.ts';
import { PublishOutlet } from './outlet.ts';
import pLimit from 'p-limit';
import type { PublishCounts } from '../publish/publish.ts';
import { loadPagesContext, pagesBuild } from '../render/pages/setup.ts';
import { siteWideFileStream } from '../render/pages/site-wide.ts';
import { readSummaries } from './summaries.ts';
import { openSink, openStore } from './locations.ts';
import { build, type BuildSummary, type LoopResult } from './loop.ts';
import { loadShape } from './stages.ts';

/** Which repositories a shard builds, and whether it reports records that belong to none. */
export interface Sharding {
  include?: (url: string) => boolean;
  reportUnassignable: boolean;
  shard?: Shard;
}

/** What a command hears while a build runs. */
interface BuildListener {
  /** A bad record or a warning (under --strict, only during the check). */
  issue(issue: LoadIssue): void;
  /** Everything said so far about issues is out (before the summary is printed). */
  flushIssues(): void;
  warn(message: string): void;
  /** Called once the store is open; the returned progress hears of every repository built. */
  progress(
    store: StoreSource,
  ): Promise<{ update(summary: BuildSummary, h: RepositoryHistory): void; done(): void }>;
}

/** What a build opens to read and write: the store and the output (a directory or S3: locations.ts). */
export interface BuildIo {
  openStore(location: string, settings: Settings): Promise<StoreSource>;
  openSink(location: string, settings: Settings): Promise<Sink>;
}

const LOCATIONS: BuildIo = { openStore, openSink };

interface BuildRun {
  config: ResolvedConfig;
  /** Unix seconds the latest files answer for. */
  now: number;
  sharding: Sharding;
  /** Any bad record is fatal and nothing is written: everything is checked first. */
  strict: boolean;
  prune: boolean;
  force: boolean;
  /** How long to wait for another build's lease. */
  waitSeconds: number;
  listener: BuildListener;
  /** Where the store and the output are opened from (default: their locations in the config). */
  io?: BuildIo;
}

/**
 * What a build writes and answers for of the whole site beside its repositories: every shard
 * would write the same openapi.json, so shard 0 writes it (and `badgepress site`); --prune
 * removes site-wide files: an unsharded build answers for all of them, shard 0 for
 * openapi.json and, only when there are no pages (else `site` writes them), the pages.
 */
function siteWideOf(
  { settings, templates }: ResolvedConfig,
  shard: Shard | undefined,
  pages: boolean,
  badgeIds: readonly string[],
): { siteFiles: PublishFile[]; siteWide?: SiteWideScope } {
  if ((shard?.index ?? 0) !== 0) return { siteFiles: [] };
  return {
    siteFiles: openapiFiles(settings, badgeIds, templates),
    siteWide: { pages: !shard || !pages, api: true },
  };
}

/**
 * What a build would change, writing nothing: the same loop over the same plan of what to redo
 * (the build state, read only), its files compared with the output instead of published, and
 * as if --prune were given, since the plan reports what --prune would remove.
 */
export async function runPlan(
  run: Pick<BuildRun, 'config' | 'now' | 'sharding' | 'force'> & {
    listener: Omit<BuildListener, 'progress'>;
  },
): Promise<PlanReport> {
  const { config, sharding, listener } = run;
  const { settings } = config;
  const shape = loadShape(config);
  const store = await openStore(settings.store, settings);
  const sink = await openSink(settings.out, settings);
  const planner = new Planner(sink, settings.cache.latestMaxAge);
  const state = await openStateKeeper(settings.out, settings);
  const { shard, ...loadSharding } = sharding;
  let redo: IncrementalBuild | undefined;
  try {
    redo = await openIncremental({
      config,
      store,
      state,
      shard,
      now: run.now,
      prune: true,
      force: run.force,
      readOnly: true,
      warn: listener.warn,
    });
    const pages = pagesBuild(config, sharding.shard);
    await build({
      mode: 'plan',
      planner,
      shape,
      store,
      sink,
      schemes: settings.repositoryUrlSchemes,
      now: run.now,
      report: listener.issue,
      prune: true,
      ...loadSharding,
      redo,
      ...(pages ? { pages } : {}),
      ...siteWideOf(config, sharding.shard, pages !== undefined, shape.evaluator.badgeIds),
    });
  } finally {
    redo?.close();
    await sink.close();
    await state.close();
  }
  listener.flushIssues();
  return planner.result();
}

/** What a build did, where, and a repository and badge of the site to show as an example. */
export interface Built {
  summary: BuildSummary;
  location: string;
  /** The repository whose key segment sorts first, and the first badge its index lists. */
  example?: { repository: string; badgeId: string };
}

export async function runBuild(run: BuildRun): Promise<Built> {
  const { config, sharding, listener } = run;
  const { settings } = config;
  const io = run.io ?? LOCATIONS;
  const shape = loadShape(config);
  const pages = pagesBuild(config, sharding.shard);
  const store = await io.openStore(settings.store, settings);

  const { shard, ...loadSharding } = sharding;
  if (run.strict) {
    // The check mode first: every record loaded and checked before anything is opened for writing.
    const {
      summary: { skipped: errors },
    } = await build({
      mode: 'check',
      shape,
      store,
      schemes: settings.repositoryUrlSchemes,
      report: listener.issue,
      ...loadSharding,
    });
    listener.flushIssues();
    if (errors > 0)
      throw new BadInputError(
        `${counted(errors, 'bad record', 'bad records')} and --strict: nothing written; fix ${errors === 1 ? 'it' : 'them'} or drop --strict`,
      );
  }

  const sink = await io.openSink(settings.out, settings);
  // One build at a time per output; shards write disjoint repositories, so each holds its own.
  let lease;
  try {
    lease = await acquireLease(sink.leaseSlot(leaseKey(sharding.shard)), {
      waitSeconds: run.waitSeconds,
      onLost: listener.warn,
      onWarning: listener.warn,
      conditionalWrites: settings.s3.conditionalWrites ?? 'required',
    });
  } catch (err) {
    throw await cleanUpAfter(err, [() => sink.close()]);
  }
  const progress = await listener.progress(store);
  let result!: LoopResult;
  // The state is read under the lease: another build may be writing it.
  const state = await openStateKeeper(settings.out, settings).catch(async (err: unknown) => {
    throw await cleanUpAfter(err, [() => lease.release(), () => sink.close()]);
  });
  let failure: unknown;
  try {
    const redo = await openIncremental({
      config,
      store,
      state,
      shard,
      now: run.now,
      prune: run.prune,
      force: run.force,
      warn: listener.warn,
    });
    result = await build({
      shape,
      store,
      // A build whose lease went to another stops publishing at its next file.
      sink: leasedSink(sink, lease),
      schemes: settings.repositoryUrlSchemes,
      now: run.now,
      report: run.strict ? () => {} : listener.issue,
      prune: run.prune,
      concurrency: settings.s3.concurrency,
      ...loadSharding,
      redo,
      onRepository: (h, s) => progress.update(s, h),
      ...(pages ? { pages } : {}),
      ...siteWideOf(config, sharding.shard, pages !== undefined, shape.evaluator.badgeIds),
    });
  } catch (err) {
    failure = err;
  }
  progress.done();
  // The first failure is the one to report (a publish that failed names its keys); a failure
  // to release the lease or close the output afterwards is added to it.
  const outcome = await cleanUpAfter(failure, [
    () => lease.release(),
    () => sink.close(),
    () => state.close(),
  ]);
  if (outcome !== undefined) throw outcome;
  listener.flushIssues();
  const repository = result.firstRepository;
  // Every repository's index lists the active shape's badges.
  const badgeId = shape.evaluator.badgeIds[0];
  return {
    summary: result.summary,
    location: sink.location,
    ...(repository !== undefined && badgeId !== undefined
      ? { example: { repository, badgeId } }
      : {}),
  };
}

/**
 * After n sharded builds: the site-wide pages (home, list and group pages, badge and rule pages, search
 * files, sitemap, 404) and openapi.json, from the shards' summaries alone.
 */
export async function runSiteWidePages(
  config: ResolvedConfig,
  shards: number,
  prune: boolean,
): Promise<{ repositories: number; counts: PublishCounts; location: string }> {
  const { settings } = config;
  const ctx = loadPagesContext(config);
  const apiFiles = openapiFiles(settings, loadShape(config).evaluator.badgeIds, config.templates);
  const sink = await openSink(settings.out, settings);
  const counts: PublishCounts = { written: 0, unchanged: 0, removed: 0 };
  let repositories: number;
  try {
    const summaries = await readSummaries(sink, shards);
    repositories = summaries.urls.length;
    try {
      const outlet = new PublishOutlet(sink, pLimit(settings.s3.concurrency), counts, {
        concurrency: settings.s3.concurrency,
        prune: false,
        pages: true,
        prunedBefore: () => false,
      });
      const produced = new Set<string>();
      await outlet.siteWide(siteWideFileStream(ctx, summaries), produced);
      // Site-wide too: api/v1/openapi.json (shard 0's build wrote the same bytes).
      await outlet.siteWide(apiFiles, produced);
      // --prune: site-wide files these pages no longer include (a list page past the last, …).
      if (prune) await outlet.pruneSiteWide(produced, { pages: true, api: true });
    } finally {
      summaries.close();
    }
  } finally {
    await sink.close();
  }
  return { repositories, counts, location: sink.location };
}
