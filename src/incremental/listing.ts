// The store listing a build works from, and what the build read of each listed file, kept by
// position in the listing. Plain arrays of shared strings hold these facts in a fraction of
// what a Map of names to versions, the StoreEntry objects and a Map of FileState objects took
// (docs/performance.md, "Memory: compact listing and state").
import type { StoreEntry } from '../load/store.ts';
import type { LoadIssue } from '../load/types.ts';
import { indexInSorted } from './compact-state.ts';
import type { FileState, StoreListed } from './state-types.ts';

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class StoreListing {
  /** Names in code-unit order, and the version each was listed at. */
  readonly names: string[];
  private readonly versions: string[];
  /** The version read, per file; undefined: not read by this build. */
  private readonly readVersions: Array<string | undefined>;
  /** The repositories a read file names: one as its URL (the usual case), else an array. */
  private readonly readRepositories: Array<string | string[]>;
  /** Problems of read files that belong to no repository (rare). */
  private readonly readIssues = new Map<number, LoadIssue[]>();

  constructor(entries: readonly StoreEntry[]) {
    // Both store sources list in code-unit order; another source is put in that order.
    let sorted: readonly StoreEntry[] = entries;
    for (let i = 1; i < entries.length; i++) {
      if (entries[i - 1]!.name >= entries[i]!.name) {
        sorted = [...entries].sort((a, b) => byCodeUnits(a.name, b.name));
        break;
      }
    }
    this.names = sorted.map((e) => e.name);
    this.versions = sorted.map((e) => e.version);
    this.readVersions = new Array<string | undefined>(sorted.length).fill(undefined);
    this.readRepositories = new Array<string | string[]>(sorted.length).fill('');
  }

  get size(): number {
    return this.names.length;
  }

  /** The file's position in the listing, or -1 when it is not listed. */
  indexOf(name: string): number {
    return indexInSorted(this.names, name);
  }

  /** The version a file was listed at (undefined: not listed). */
  version(name: string): string | undefined {
    const i = this.indexOf(name);
    return i < 0 ? undefined : this.versions[i];
  }

  versionAt(i: number): string {
    return this.versions[i]!;
  }

  /** The listed file's name and version strings (for a state read beside the listing to share). */
  get(name: string): StoreListed | undefined {
    const i = this.indexOf(name);
    return i < 0 ? undefined : { name: this.names[i]!, version: this.versions[i]! };
  }

  /** Keeps what the build read of a listed file (a file not listed is not kept: no state names it). */
  setRead(name: string, version: string, repositories: string[]): void {
    const i = this.indexOf(name);
    if (i < 0) return;
    // The listing's string when it is that version (one string a file, not two).
    this.readVersions[i] = version === this.versions[i] ? this.versions[i] : version;
    this.readRepositories[i] = repositories.length === 1 ? repositories[0]! : repositories;
    this.readIssues.delete(i);
  }

  isRead(name: string): boolean {
    const i = this.indexOf(name);
    return i >= 0 && this.readVersions[i] !== undefined;
  }

  /** A problem of a file this build read; false when it did not read it. */
  addIssue(name: string, issue: LoadIssue): boolean {
    const i = this.indexOf(name);
    if (i < 0 || this.readVersions[i] === undefined) return false;
    const list = this.readIssues.get(i);
    if (list) list.push(issue);
    else this.readIssues.set(i, [issue]);
    return true;
  }

  /** What the build read of the file at position i, as the state keeps it (undefined: not read). */
  readAt(i: number): FileState | undefined {
    const version = this.readVersions[i];
    if (version === undefined) return undefined;
    const repos = this.readRepositories[i]!;
    const f: FileState = { version, repositories: typeof repos === 'string' ? [repos] : repos };
    const issues = this.readIssues.get(i);
    if (issues) f.issues = issues;
    return f;
  }

  /** The repositories the file at position i names, as read by this build (undefined: not read). */
  repositoriesReadAt(i: number): readonly string[] | undefined {
    if (this.readVersions[i] === undefined) return undefined;
    const repos = this.readRepositories[i]!;
    return typeof repos === 'string' ? [repos] : repos;
  }
}
