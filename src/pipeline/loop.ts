// The pipeline's loop: load → evaluate → render → publish, one repository at a time, doing
// what the plan of what to redo says (a full build redoes everything). Its modes: `build`
// publishes, `plan` compares with what is published, and `check` (--strict's first pass)
// loads and checks every repository, evaluating, rendering and writing nothing.
import pLimit from 'p-limit';
import { loadHistories } from '../load/histories.ts';
import type { LoadIssue, RepositoryHistory } from '../load/types.ts';
import type { StoreSource } from '../load/store.ts';
import type { ShapeStages } from './stages.ts';
import type { PublishCounts } from '../publish/publish.ts';
import { PublishError, type Sink } from '../publish/sink.ts';
import { PagesCollector, type PagesBuild } from '../render/pages/build-pages.ts';
import type { PublishFile } from '../model/publish-file.ts';
import { FullBuild, type RedoPlan } from './redo-plan.ts';
import { staleSummaryKeys } from './summaries.ts';
import { PlanOutlet, PublishOutlet, type Outlet } from './outlet.ts';
import type { Planner } from '../publish/plan.ts';
import { goneRepositories } from '../publish/gone.ts';
import { heapShortfall } from './heap-room.ts';
import type { SiteWideScope } from '../publish/site-wide-prune.ts';

/** What every mode loads: the store's histories, checked against the active shape's rules. */
interface LoadStep {
  /** The active shape's evaluate and render steps (stages.ts: loadShape). */
  shape: ShapeStages;
  store: StoreSource;
  report: (issue: LoadIssue) => void;
  /** URL schemes a repository may have (config `repositoryUrlSchemes`; default http, https). */
  schemes?: readonly string[];
  /** Only repositories for which this holds are built (sharding). */
  include?: (repositoryUrl: string) => boolean;
  /** Report records that belong to no repository (default true; only shard 0 of n does). */
  reportUnassignable?: boolean;
}

/** --strict's first pass: every repository loaded and checked; the summary counts its bad records in `skipped`. */
interface CheckOptions extends LoadStep {
  mode: 'check';
}

interface BuildOptions extends LoadStep {
  /** `build` (the default) publishes to `sink`; `plan` compares with it, counting in `planner`. */
  mode?: 'build';
  sink: Sink;
  /** Unix seconds the latest files answer for. */
  now: number;
  /** Delete keys of built repositories that this build no longer produces. */
  prune?: boolean;
  /** Concurrent puts across the build. */
  concurrency?: number;
  onRepository?: (h: RepositoryHistory, counts: BuildSummary) => void;
  /** The human site (config `pages`); absent: API files only. */
  pages?: PagesBuild;
  /** What to redo (the build state: skip repositories whose inputs did not change); default: everything. */
  redo?: RedoPlan;
  /** Files of the whole site, not of a repository (api/v1/openapi.json), published last. */
  siteFiles?: PublishFile[];
  /** The site-wide files this build answers for: with `prune`, those it no longer produces go. */
  siteWide?: SiteWideScope;
}

/** `badgepress plan`: the files a build would publish, compared with the output; nothing written. */
interface PlanOptions extends Omit<BuildOptions, 'mode'> {
  mode: 'plan';
  planner: Planner;
}

type LoopOptions = CheckOptions | BuildOptions | PlanOptions;

export interface BuildSummary extends PublishCounts {
  repositories: number;
  scans: number;
  skipped: number;
  warnings: number;
  /** Repositories skipped as unchanged since the last build (build state); counted in repositories. */
  reused: number;
  /** The site-wide pages and openapi.json were left as the last build published them (no
   *  repository redone, no config change): then neither written nor counted as unchanged. */
  sitePagesKept: boolean;
}

export interface LoopResult {
  summary: BuildSummary;
  /** The key segment that sorts first among the repositories with scans this build answers for (redone or carried over). */
  firstRepository?: string;
}

export async function build(opts: LoopOptions): Promise<LoopResult> {
  // --strict's check reads the whole store, whatever the build state says.
  const redo = (opts.mode !== 'check' && opts.redo) || new FullBuild();
  // Summary lines live in a local temporary file (see SummaryLines), released at the end.
  try {
    return await loop(opts, redo);
  } finally {
    redo.summaries.file.close();
  }
}

async function loop(opts: LoopOptions, redo: RedoPlan): Promise<LoopResult> {
  const summary: BuildSummary = {
    repositories: 0,
    scans: 0,
    written: 0,
    unchanged: 0,
    removed: 0,
    skipped: 0,
    warnings: 0,
    reused: 0,
    sitePagesKept: false,
  };
  const report = (issue: LoadIssue) => {
    if (issue.severity === 'error') summary.skipped++;
    else summary.warnings++;
    opts.report(issue);
  };
  // load: one repository's whole history at a time.
  const histories = loadHistories(opts.store, {
    catalog: opts.shape.evaluator.catalog,
    ...(opts.schemes ? { schemes: opts.schemes } : {}),
    report: (issue, owner) => (redo.note(issue, owner), report(issue)),
    ...(opts.include ? { include: opts.include } : {}),
    ...(opts.reportUnassignable === undefined
      ? {}
      : { reportUnassignable: opts.reportUnassignable }),
    ...redo.loadOptions(opts.include),
  });
  if (opts.mode === 'check') {
    // Loaded and checked is all: every bad record is reported before anything is written.
    for await (const h of histories) {
      if (h.scans.length === 0) continue;
      summary.repositories++;
      summary.scans += h.scans.length;
    }
    return { summary };
  }
  const { summaries } = redo;
  const limit = pLimit(opts.concurrency ?? 32);
  const outlet: Outlet =
    opts.mode === 'plan'
      ? new PlanOutlet(opts.sink, opts.planner)
      : new PublishOutlet(opts.sink, limit, summary, {
          concurrency: opts.concurrency ?? 32,
          prune: opts.prune ?? false,
          pages: opts.pages !== undefined,
          prunedBefore: (url) => redo.prunedBefore(url),
        });
  if (redo.resendsHeaders) outlet.resendUnchanged();
  const inFlight = new Set<Promise<void>>();
  // A repository that fails to publish stops only itself (its later phases never go out);
  // the others go on, and the build ends naming every key that did not make it.
  const failed: PublishError[] = [];
  let failure: unknown;
  let firstRepository: string | undefined;
  const pages = opts.pages ? new PagesCollector(opts.pages) : undefined;
  await redo.retireOtherLayouts();
  let first = true;
  for await (const h of histories) {
    if (failure) break;
    if (first && redo.narrowsListing()) outlet.narrowListing();
    first = false;
    if (h.scans.length === 0) {
      redo.built(h, 0);
      continue;
    }
    // Known once the loader hands out its first history (it has read every file it needs).
    await redo.beginPublishing();
    const shortfall = heapShortfall(h);
    if (shortfall) {
      report({ severity: 'error', where: h.repositoryUrl, message: shortfall });
      continue;
    }
    // evaluate: every scan, its expired variant and the answer for `now`; render: their files.
    const evaluation = opts.shape.evaluator.evaluate(h, opts.now);
    // After a config change, only the files of the parts it changed (the rest stay as they are).
    const partial = redo.partial(h);
    const api = opts.shape.renderer.render(evaluation, partial?.filter);
    const current = partial?.filter.skipped ?? 0;
    const page = pages?.repository(evaluation);
    const fileCount = api.length + (page?.files.length ?? 0);
    summary.repositories++;
    summary.scans += h.scans.length;
    const job = (async () => {
      await outlet.repository(h, api, page?.files ?? [], partial);
      if (page) summaries.set(h.repositoryUrl, page.summary);
      redo.built(h, fileCount + current);
      if (firstRepository === undefined || h.encoded < firstRepository) firstRepository = h.encoded;
      opts.onRepository?.(h, summary);
    })().catch((err: unknown) => {
      if (err instanceof PublishError) failed.push(err);
      else failure ??= err;
    });
    inFlight.add(job);
    void job.finally(() => inFlight.delete(job));
    if (inFlight.size >= outlet.maxInFlight) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  if (failure) throw failure;
  const carried = redo.carry(report, summaries);
  outlet.carried(carried);
  summary.reused = carried.repositories;
  summary.repositories += carried.repositories;
  summary.scans += carried.scans;
  summary.unchanged += carried.files;
  if (
    carried.first !== undefined &&
    (firstRepository === undefined || carried.first < firstRepository)
  )
    firstRepository = carried.first;
  // The site-wide pages, a shard's summaries and openapi.json go out before the state that
  // describes them, so a state is never ahead of what is published; when no repository was
  // redone and no config part changed, they are those of the last build, already out.
  const summariesUnchanged = redo.siteWideUnchanged;
  summary.sitePagesKept = summariesUnchanged;
  if (failed.length === 0 && (!summariesUnchanged || opts.prune)) await redo.beginPublishing();
  if (failed.length === 0 && !summariesUnchanged) {
    const produced = new Set<string>();
    if (pages) {
      // The shard's summaries in parts, then (one shard) the site-wide pages; parts of an earlier, larger build go.
      const parts = { n: 0 };
      await outlet.siteWide(pages.files(summaries.sorted(), parts), produced);
      await outlet.remove(await staleSummaryKeys(opts.sink, pages.shard, parts.n));
    }
    await outlet.siteWide(opts.siteFiles ?? [], produced);
    // Unchanged summaries and config leave nothing new to remove: the last build (with --prune
    // too, or every repository would be redone) removed what this one would.
    if (opts.prune && opts.siteWide) await outlet.pruneSiteWide(produced, opts.siteWide);
  }
  // --prune: repositories that left the store go too, after the site-wide pages stopped linking them.
  if (opts.prune && failed.length === 0) await pruneGone(opts.sink, redo, opts.include, outlet);
  // After every file it describes is published, failed repositories left out of it. A state
  // that cannot be written must not hide why files failed: those are the operator's first job.
  await redo.commit().catch((err: unknown) => {
    if (failed.length === 0) throw err;
  });
  // Every distinct reason is kept (AccessDenied, an altered body, …): "still failing" alone
  // would leave the operator guessing.
  if (failed.length > 0) throw PublishError.combine(failed);
  return { summary, ...(firstRepository === undefined ? {} : { firstRepository }) };
}

async function pruneGone(
  sink: Sink,
  redo: RedoPlan,
  include: ((url: string) => boolean) | undefined,
  outlet: Outlet,
): Promise<void> {
  const gone = await goneRepositories(sink, redo, include);
  if (!gone) return;
  await outlet.removeRepositories(gone);
  // Removed: the state from now on knows that nothing else of this shard is published.
  redo.noteGone([]);
}
