// What a build redoes, as the loop sees it: which store files to read, what to redo for a
// repository, what to carry over unchanged, and what to record at the end. The build state
// (src/incremental/) is one such plan; a full build is the trivial one: read everything, redo
// everything, carry nothing, record nothing.
import type { LoadOptions } from '../load/histories.ts';
import type { IssueOwner, LoadIssue, RepositoryHistory } from '../load/types.ts';
import type { StoreKnowledge } from '../publish/gone.ts';
import { SummaryLines } from '../incremental/summary-lines.ts';
import type { PartialRebuild } from '../incremental/parts.ts';
import type { Carried } from '../incremental/incremental.ts';

export interface RedoPlan extends StoreKnowledge {
  /** Summary lines (for the site-wide pages) of this build, built now or carried over. */
  readonly summaries: SummaryLines;
  /** What the loader reads beyond the whole store (the files to read, when some are skipped). */
  loadOptions(include: ((url: string) => boolean) | undefined): Partial<LoadOptions>;
  /** Told of every load issue with the store file or repository it belongs to. */
  note(issue: LoadIssue, owner: IssueOwner | undefined): void;
  /** Once the first history is out: whether so little is redone that listing repository by repository is cheaper. */
  narrowsListing(): boolean;
  /**
   * The files already published may carry other Cache-Control than this build gives them
   * (new cache ages or rules, or no state to tell): then unchanged bytes are sent again too.
   */
  readonly resendsHeaders: boolean;
  /** Before anything is published: states this build makes stale go. */
  retireOtherLayouts(): Promise<void>;
  /** Before the first file is published or removed (later calls wait for the first). */
  beginPublishing(): Promise<void>;
  /** What to redo of a repository whose records did not change (only some config parts changed); undefined: all of it. */
  partial(h: Pick<RepositoryHistory, 'repositoryUrl' | 'encoded'>): PartialRebuild | undefined;
  /** A repository went out with this many files. */
  built(h: RepositoryHistory, files: number): void;
  /** Whether a repository's pages were pruned by an earlier build (then there are none to look for). */
  prunedBefore(url: string): boolean;
  /** The repositories not redone, their summaries kept and their issues reported again. */
  carry(report: (issue: LoadIssue) => void, summaries: SummaryLines): Carried;
  /** Nothing redone and no config part changed: the site-wide files are those already out. */
  readonly siteWideUnchanged: boolean;
  /** What the state after this build says left the store but may still be published. */
  noteGone(stillPublished: Iterable<string>): void;
  /** After everything is published: record what was. */
  commit(): Promise<void>;
  close(): void;
}

/** A full build: every store file read, every repository redone, nothing recorded. */
export class FullBuild implements RedoPlan {
  readonly summaries = new SummaryLines();
  readonly siteWideUnchanged = false;
  // Nothing recorded, so nothing to compare: as before, a file whose bytes are out stays as it is.
  readonly resendsHeaders = false;
  loadOptions(): Partial<LoadOptions> {
    return {};
  }
  note(): void {}
  narrowsListing(): boolean {
    return false;
  }
  async retireOtherLayouts(): Promise<void> {}
  async beginPublishing(): Promise<void> {}
  partial(): undefined {
    return undefined;
  }
  built(): void {}
  prunedBefore(): boolean {
    return false;
  }
  carry(): Carried {
    return { repositories: 0, scans: 0, files: 0 };
  }
  // A full build knows nothing of what left the store: --prune removes only what it redoes.
  goneByState(): undefined {
    return undefined;
  }
  presentRepositories(): undefined {
    return undefined;
  }
  noteGone(): void {}
  async commit(): Promise<void> {}
  close(): void {
    this.summaries.file.close();
  }
}
