// What a build state says: per store file its version and repositories, per repository what
// was built, and the config and code it was built with.
import type { LoadIssue } from '../load/types.ts';

export interface RepositoryState {
  /** Scans built, files produced: counted again when the repository is skipped. */
  scans: number;
  files: number;
  /** The --now moment at which its latest files change (Shape A expiry), and which side it was built on. */
  flip?: number;
  flipped?: boolean;
  /** Built with --prune (a later --prune must prune what an earlier build kept). */
  pruned: boolean;
  /** Bad records of this repository, reported again while it is skipped. */
  issues?: LoadIssue[];
}

export interface FileState {
  version: string;
  /** The repositories of this shard the file names. */
  repositories: string[];
  /** Problems of the file that belong to no repository. */
  issues?: LoadIssue[];
}

export interface BuildState {
  code: string;
  /** The global config part: a change redoes everything (incremental/parts.ts). */
  config: string;
  /** The other config parts by name: a change redoes their files only. */
  parts: Record<string, string>;
  /** The Cache-Control the files went out with (ConfigParts.headers); absent in older states. */
  headers?: string;
  files: FileStates;
  repositories: RepositoryStates;
  /**
   * Repositories of this shard no store file names any more whose files may still be
   * published (a build without --prune leaves them); absent when the state cannot tell (it
   * was begun without knowing what the output held), and `build --prune` lists the output.
   */
  gone?: string[];
}

/** A store file as listed: its name and version strings, shared with the state read beside it. */
export interface StoreListed {
  name: string;
  version: string;
}

export interface ShardKey {
  index: number;
  count: number;
}

/** Store files by name: what a state says of each. */
export interface FileStates extends Iterable<[string, FileState]> {
  get(name: string): FileState | undefined;
  /** The file's version string without making a FileState (asked once a listed file). */
  versionOf(name: string): string | undefined;
  /** The repositories the file names, without making a FileState. */
  repositoriesOf(name: string): readonly string[] | undefined;
  has(name: string): boolean;
  readonly size: number;
}

/** Repositories by URL: what a state says of each (a Map of RepositoryState is one too). */
export interface RepositoryStates extends Iterable<[string, RepositoryState]> {
  get(url: string): RepositoryState | undefined;
  has(url: string): boolean;
  keys(): Iterable<string>;
  readonly size: number;
}

/**
 * Files as a state lists them (the listing's order, so a name is found by binary search; a
 * state in another order is indexed by a Map instead). A name given twice keeps the last.
 */
