// Where the loop's files go: published to the output (build), or compared with it and counted
// (plan). The loop is the same for both; only this end differs.
import type { LimitFunction } from 'p-limit';
import { repositoryPagesPrefix, repositoryPrefix } from '../model/layout.ts';
import type { OutputFile, PublishFile } from '../model/publish-file.ts';
import type { RepositoryHistory } from '../load/types.ts';
import { keysOfRepository, removeRepositories } from '../publish/gone.ts';
import type { Planner } from '../publish/plan.ts';
import { publishRepository, staleKeys, type PublishCounts } from '../publish/publish.ts';
import type { Sink } from '../publish/sink.ts';
import {
  pruneSiteWide,
  staleSiteWideKeys,
  type SiteWideScope,
} from '../publish/site-wide-prune.ts';
import type { PartialRebuild } from '../incremental/parts.ts';
import type { Carried } from '../incremental/incremental.ts';

export interface Outlet {
  /** Repositories handed over at once. */
  readonly maxInFlight: number;
  /** So little is redone that the output is best listed repository by repository. */
  narrowListing(): void;
  /** The published files may carry old Cache-Control: send unchanged bytes again too. */
  resendUnchanged(): void;
  /** One repository's API files and pages; with `partial`, the files of unchanged config parts stay as they are. */
  repository(
    h: RepositoryHistory,
    api: readonly OutputFile[],
    pages: readonly PublishFile[],
    partial: PartialRebuild | undefined,
  ): Promise<void>;
  /** Files of the whole site, in order; each key goes into `produced`. */
  siteWide(files: Iterable<PublishFile>, produced: Set<string>): Promise<void>;
  /** Keys no longer produced. */
  remove(keys: readonly string[]): Promise<void>;
  /** The site-wide files of `scope` no longer produced. */
  pruneSiteWide(produced: ReadonlySet<string>, scope: SiteWideScope): Promise<void>;
  /** Every file of repositories that left the store. */
  removeRepositories(urls: readonly string[]): Promise<void>;
  /** Repositories not redone, their files left as they are (the build state's carry-over). */
  carried(c: Carried): void;
}

/** A batch of site-wide files in flight: enough to keep the sink busy, few enough to hold. */
const SITE_WIDE_BATCH = 64;

/** Publishes to the output, counting in `counts`. */
export class PublishOutlet implements Outlet {
  readonly maxInFlight: number;
  private readonly sink: Sink;
  private readonly limit: LimitFunction;
  private readonly counts: PublishCounts;
  private readonly opts: {
    concurrency: number;
    prune: boolean;
    pages: boolean;
    prunedBefore: (url: string) => boolean;
  };
  constructor(
    sink: Sink,
    limit: LimitFunction,
    counts: PublishCounts,
    opts: {
      concurrency: number;
      prune: boolean;
      pages: boolean;
      prunedBefore: (url: string) => boolean;
    },
  ) {
    this.sink = sink;
    this.limit = limit;
    this.counts = counts;
    this.opts = opts;
    // Repositories are published side by side; how many are in flight bounds memory.
    this.maxInFlight = Math.max(2, Math.ceil(opts.concurrency / 4));
  }

  narrowListing(): void {
    this.sink.narrowListing?.();
  }

  resendUnchanged(): void {
    this.sink.resendUnchanged?.();
  }

  async repository(
    h: RepositoryHistory,
    api: readonly OutputFile[],
    pages: readonly PublishFile[],
    partial: PartialRebuild | undefined,
  ): Promise<void> {
    const files = [...api, ...pages];
    // publish: in phases, beside the repositories still in flight.
    await publishRepository(this.sink, files, this.limit, this.counts);
    this.counts.unchanged += partial?.filter.skipped ?? 0;
    if (!this.opts.prune) return;
    // Its API files and its pages (all of them when the build writes no pages; without pages
    // a repository pruned before has none to look for, and on S3 a look is a request).
    const produced = new Set(files.map((f) => f.key));
    const withPages = this.opts.pages || !this.opts.prunedBefore(h.repositoryUrl);
    const prefixes = [
      repositoryPrefix(h.encoded),
      ...(withPages ? [repositoryPagesPrefix(h.encoded)] : []),
    ];
    const stale = (await Promise.all(prefixes.map((p) => staleKeys(this.sink, p, produced))))
      .flat()
      .filter((k) => !partial?.unrendered(k));
    await this.remove(stale);
    for (const p of prefixes) await this.sink.removeEmptyDirectories?.(p);
  }

  async siteWide(files: Iterable<PublishFile>, produced: Set<string>): Promise<void> {
    let batch: PublishFile[] = [];
    for (const f of files) {
      produced.add(f.key);
      batch.push(f);
      if (batch.length === SITE_WIDE_BATCH) {
        await publishRepository(this.sink, batch, this.limit, this.counts);
        batch = [];
      }
    }
    if (batch.length > 0) await publishRepository(this.sink, batch, this.limit, this.counts);
  }

  async remove(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.sink.remove([...keys]);
    this.counts.removed += keys.length;
  }

  async pruneSiteWide(produced: ReadonlySet<string>, scope: SiteWideScope): Promise<void> {
    await pruneSiteWide(this.sink, produced, scope, this.counts);
  }

  async removeRepositories(urls: readonly string[]): Promise<void> {
    await removeRepositories(this.sink, urls, this.counts);
  }

  // The loop counts them in the build's summary.
  carried(): void {}
}

/** Compares with the output and counts what a build would change (`badgepress plan`); writes nothing. */
export class PlanOutlet implements Outlet {
  // One at a time: the plan's examples are the first repositories met, in store order.
  readonly maxInFlight = 1;
  private readonly sink: Sink;
  private readonly planner: Planner;
  constructor(sink: Sink, planner: Planner) {
    this.sink = sink;
    this.planner = planner;
  }

  narrowListing(): void {}

  /** Said in the plan where the sink stores headers (S3): the build would send those files too. */
  resendUnchanged(): void {
    if (this.sink.resendUnchanged) this.planner.resendUnchanged();
  }

  async repository(
    h: RepositoryHistory,
    api: readonly OutputFile[],
    pages: readonly PublishFile[],
    partial: PartialRebuild | undefined,
  ): Promise<void> {
    await this.planner.add(h.encoded, h.scans.length, [...api], partial, pages);
  }

  async siteWide(files: Iterable<PublishFile>, produced: Set<string>): Promise<void> {
    const track = function* () {
      for (const f of files) yield (produced.add(f.key), f);
    };
    await this.planner.addFiles(track());
  }

  async remove(keys: readonly string[]): Promise<void> {
    this.planner.addRemoved(keys);
  }

  async pruneSiteWide(produced: ReadonlySet<string>, scope: SiteWideScope): Promise<void> {
    this.planner.addRemoved(await staleSiteWideKeys(this.sink, produced, scope));
  }

  async removeRepositories(urls: readonly string[]): Promise<void> {
    for (const url of urls) this.planner.addRemoved(await keysOfRepository(this.sink, url));
  }

  carried(c: Carried): void {
    this.planner.addUnchanged(c.repositories, c.scans, c.files);
  }
}
