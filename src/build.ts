// The pipeline: load → evaluate → render → publish, one repository at a time.
import pLimit from 'p-limit';
import { loadHistories } from './load/histories.ts';
import type { LoadIssue, RepositoryHistory } from './load/types.ts';
import type { StoreSource } from './load/store.ts';
import type { ShapeStages } from './site/stages.ts';
import { publishRepository, staleKeys, type PublishCounts } from './publish/publish.ts';
import { PublishError, type Sink } from './publish/sink.ts';
import { repositoryPagesPrefix, repositoryPrefix } from './model/layout.ts';
import { PagesCollector, type PagesBuild } from './render/pages/build-pages.ts';
import { SummaryStore, type SummaryLine } from './render/pages/summary.ts';
import type { SiteFile } from './render/site-files.ts';
import type { IncrementalBuild } from './incremental/incremental.ts';
import { goneRepositories, removeRepositories } from './publish/gone.ts';
import { heapShortfall } from './evaluate/heap-room.ts';
import { pruneSiteWide, type SiteWideScope } from './publish/site-wide-prune.ts';

export interface BuildOptions {
  /** The active shape's evaluate and render steps (src/site/stages.ts: loadShape). */
  shape: ShapeStages;
  store: StoreSource;
  sink: Sink;
  /** Unix seconds the latest files answer for. */
  now: number;
  report: (issue: LoadIssue) => void;
  /** URL schemes a repository may have (config `repositoryUrlSchemes`; default http, https). */
  schemes?: readonly string[];
  /** Only repositories for which this holds are built (sharding). */
  include?: (repositoryUrl: string) => boolean;
  /** Report records that belong to no repository (default true; only shard 0 of n does). */
  reportUnassignable?: boolean;
  /** Delete keys of built repositories that this build no longer produces. */
  prune?: boolean;
  /** Concurrent puts across the build. */
  concurrency?: number;
  onRepository?: (h: RepositoryHistory, counts: BuildSummary) => void;
  /** The human site (config `pages`); absent: API files only. */
  pages?: PagesBuild;
  /** Build state: skip repositories whose inputs did not change since the last build. */
  incremental?: IncrementalBuild;
  /** Per-repository data for site-wide pages (plain JSON), kept in the state for skipped ones;
   *  after a config change `files` holds only those of the changed parts (incremental/parts.ts). */
  summarize?: (h: RepositoryHistory, files: SiteFile[]) => SummaryLine | undefined;
  /** Every repository's summary, built or skipped, once the build is done. */
  onSummaries?: (summaries: SummaryStore) => Promise<void> | void;
  /** Files of the whole site, not of a repository (api/v1/openapi.json), published last. */
  siteFiles?: SiteFile[];
  /** The site-wide files this build answers for: with `prune`, those it no longer produces go. */
  siteWide?: SiteWideScope;
}

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

export async function build(opts: BuildOptions): Promise<BuildSummary> {
  // Summary lines live in a local temporary file (see SummaryStore), released at the end.
  const summaries = opts.incremental?.summaries ?? new SummaryStore();
  try {
    return await buildWith(opts, summaries);
  } finally {
    summaries.file.close();
  }
}

async function buildWith(opts: BuildOptions, summaries: SummaryStore): Promise<BuildSummary> {
  const summary: BuildSummary = { repositories: 0, scans: 0, written: 0, unchanged: 0, removed: 0, skipped: 0, warnings: 0, reused: 0, sitePagesKept: false };
  const incr = opts.incremental;
  const report = (issue: LoadIssue) => {
    if (issue.severity === 'error') summary.skipped++;
    else summary.warnings++;
    opts.report(issue);
  };
  const limit = pLimit(opts.concurrency ?? 32);
  // Repositories are published side by side; how many are in flight bounds memory.
  const inFlight = new Set<Promise<void>>();
  const maxInFlight = Math.max(2, Math.ceil((opts.concurrency ?? 32) / 4));
  // A repository that fails to publish stops only itself (its later phases never go out);
  // the others go on, and the build ends naming every key that did not make it.
  const failed: PublishError[] = [];
  let failure: unknown;
  // load: one repository's whole history at a time.
  const histories = loadHistories(opts.store, {
    catalog: opts.shape.evaluator.catalog,
    ...(opts.schemes ? { schemes: opts.schemes } : {}),
    report: incr ? (issue, owner) => (incr.note(issue, owner), report(issue)) : report,
    ...(opts.include ? { include: opts.include } : {}),
    ...(opts.reportUnassignable === undefined ? {} : { reportUnassignable: opts.reportUnassignable }),
    ...incr?.loadOptions(opts.include),
  });
  const pages = opts.pages ? new PagesCollector(opts.pages) : undefined;
  await incr?.retireOtherLayouts();
  let first = true;
  for await (const h of histories) {
    if (failure) break;
    // A listing page holds 1,000 keys: list repositories one by one while that costs no more pages.
    if (first && incr?.incremental && incr.redone <= Math.ceil(incr.knownFiles / 1000)) opts.sink.narrowListing?.();
    first = false;
    if (h.scans.length === 0) {
      incr?.built(h, 0);
      continue;
    }
    // Known once the loader hands out its first history (it has read every file it needs).
    await incr?.beginPublishing();
    const shortfall = heapShortfall(h);
    if (shortfall) {
      report({ severity: 'error', where: h.repositoryUrl, message: shortfall });
      continue;
    }
    // evaluate: every scan, its expired variant and the answer for `now`; render: their files.
    const evaluation = opts.shape.evaluator.evaluate(h, opts.now);
    // After a config change, only the files of the parts it changed (the rest stay as they are).
    const partial = incr?.partial(h);
    const files: SiteFile[] = opts.shape.renderer.render(evaluation, partial?.filter);
    const current = partial?.filter.skipped ?? 0;
    let pageSummary: SummaryLine | undefined;
    if (pages) {
      const page = pages.repository(evaluation);
      files.push(...page.files);
      pageSummary = page.summary;
    }
    summary.repositories++;
    summary.scans += h.scans.length;
    // publish: in phases, beside the repositories still in flight.
    const job = (async () => {
      await publishRepository(opts.sink, files, limit, summary);
      summary.unchanged += current;
      if (opts.prune) {
        // Its API files and its pages (all of them when the build writes no pages; without pages
        // a repository pruned before has none to look for, and on S3 a look is a request).
        const produced = new Set(files.map((f) => f.key));
        const withPages = pages !== undefined || !incr?.prunedBefore(h.repositoryUrl);
        const prefixes = [repositoryPrefix(h.encoded), ...(withPages ? [repositoryPagesPrefix(h.encoded)] : [])];
        const stale = (await Promise.all(prefixes.map((p) => staleKeys(opts.sink, p, produced)))).flat().filter((k) => !partial?.unrendered(k));
        if (stale.length > 0) {
          await opts.sink.remove(stale);
          summary.removed += stale.length;
        }
        for (const p of prefixes) await opts.sink.removeEmptyDirectories?.(p);
      }
      const repoSummary = pageSummary ?? opts.summarize?.(h, files);
      if (repoSummary !== undefined) summaries.set(h.repositoryUrl, repoSummary);
      incr?.built(h, files.length + current);
      opts.onRepository?.(h, summary);
    })().catch((err: unknown) => {
      if (err instanceof PublishError) failed.push(err);
      else failure ??= err;
    });
    inFlight.add(job);
    void job.finally(() => inFlight.delete(job));
    if (inFlight.size >= maxInFlight) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  if (failure) throw failure;
  const carried = incr?.carry(report, summaries);
  if (carried) {
    summary.reused = carried.repositories;
    summary.repositories += carried.repositories;
    summary.scans += carried.scans;
    summary.unchanged += carried.files;
  }
  // The site-wide pages, a shard's summaries and openapi.json go out before the state that
  // describes them, so a state is never ahead of what is published; when no repository was
  // redone and no config part changed, they are those of the last build, already out.
  const summariesUnchanged = incr?.siteWideUnchanged === true;
  summary.sitePagesKept = summariesUnchanged;
  if (failed.length === 0 && (!summariesUnchanged || opts.prune)) await incr?.beginPublishing();
  if (failed.length === 0 && !summariesUnchanged) {
    const produced = new Set<string>();
    if (pages) await pages.finish(opts.sink, limit, summary, summaries, produced);
    if (opts.siteFiles && opts.siteFiles.length > 0) await publishRepository(opts.sink, opts.siteFiles, limit, summary);
    for (const f of opts.siteFiles ?? []) produced.add(f.key);
    // Unchanged summaries and config leave nothing new to remove: the last build (with --prune
    // too, or every repository would be redone) removed what this one would.
    if (opts.prune && opts.siteWide) await pruneSiteWide(opts.sink, produced, opts.siteWide, summary);
  }
  // --prune: repositories that left the store go too, after the site-wide pages stopped linking them.
  if (opts.prune && incr && failed.length === 0) await pruneGone(opts.sink, incr, opts.include, summary);
  if (incr) {
    // After every file it describes is published, failed repositories left out of it. A state
    // that cannot be written must not hide why files failed: those are the operator's first job.
    await incr.commit().catch((err: unknown) => {
      if (failed.length === 0) throw err;
    });
  }
  await opts.onSummaries?.(summaries);
  // Every distinct reason is kept (AccessDenied, an altered body, …): "still failing" alone
  // would leave the operator guessing.
  if (failed.length > 0) throw PublishError.combine(failed);
  return summary;
}

async function pruneGone(sink: Sink, incr: IncrementalBuild, include: ((url: string) => boolean) | undefined, counts: BuildSummary): Promise<void> {
  const gone = await goneRepositories(sink, incr, include);
  if (!gone) return;
  await removeRepositories(sink, gone, counts);
  // Removed: the state from now on knows that nothing else of this shard is published.
  incr.noteGone([]);
}
