// A state read back, held compactly: a Map of FileState objects (one object and one array a
// file) and a Map of RepositoryState objects cost memory a repository beside the strings
// (docs/performance.md, "Memory: compact listing and state"). Here plain arrays hold the facts
// and an object is made only when one is asked for.
import type { LoadIssue } from '../load/types.ts';
import type { FileState, FileStates, RepositoryState, RepositoryStates } from './state-types.ts';

/** Where a name is in names sorted by code units (binary search), or -1. */
export function indexInSorted(names: readonly string[], name: string): number {
  let lo = 0;
  let hi = names.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const m = names[mid]!;
    if (m === name) return mid;
    if (m < name) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export class CompactFileStates implements FileStates {
  private readonly names: string[] = [];
  private readonly versions: string[] = [];
  /** One repository as its URL (the usual case), else an array. */
  private readonly repositories: Array<string | string[]> = [];
  private readonly issues = new Map<number, LoadIssue[]>();
  private index: Map<string, number> | undefined;

  set(name: string, f: FileState): void {
    let i = this.names.length;
    if (i > 0 && !this.index && name <= this.names[i - 1]!)
      this.index = new Map(this.names.map((n, j) => [n, j]));
    const known = this.index?.get(name);
    if (known !== undefined) i = known;
    this.index?.set(name, i);
    this.names[i] = name;
    this.versions[i] = f.version;
    this.repositories[i] = f.repositories.length === 1 ? f.repositories[0]! : f.repositories;
    if (f.issues) this.issues.set(i, f.issues);
    else this.issues.delete(i);
  }

  get size(): number {
    return this.names.length;
  }

  private indexOf(name: string): number {
    return this.index ? (this.index.get(name) ?? -1) : indexInSorted(this.names, name);
  }

  has(name: string): boolean {
    return this.indexOf(name) >= 0;
  }

  get(name: string): FileState | undefined {
    const i = this.indexOf(name);
    return i < 0 ? undefined : this.at(i);
  }

  versionOf(name: string): string | undefined {
    const i = this.indexOf(name);
    return i < 0 ? undefined : this.versions[i];
  }

  repositoriesOf(name: string): readonly string[] | undefined {
    const i = this.indexOf(name);
    if (i < 0) return undefined;
    const repos = this.repositories[i]!;
    return typeof repos === 'string' ? [repos] : repos;
  }

  private at(i: number): FileState {
    const repos = this.repositories[i]!;
    const f: FileState = {
      version: this.versions[i]!,
      repositories: typeof repos === 'string' ? [repos] : repos,
    };
    const issues = this.issues.get(i);
    if (issues) f.issues = issues;
    return f;
  }

  *[Symbol.iterator](): Iterator<[string, FileState]> {
    for (let i = 0; i < this.names.length; i++) yield [this.names[i]!, this.at(i)];
  }
}

/** Repositories with their counts in plain arrays, found by a Map of URL to position. */
export class CompactRepositoryStates implements RepositoryStates {
  private readonly at = new Map<string, number>();
  private readonly scans: number[] = [];
  private readonly files: number[] = [];
  /** Bit 0: pruned; bits 1-2: flipped undefined (0), false (1), true (2). */
  private readonly flags: number[] = [];
  /** The expiry moment, NaN for none. */
  private readonly flips: number[] = [];
  private readonly issues = new Map<number, LoadIssue[]>();

  set(url: string, r: RepositoryState): void {
    let i = this.at.get(url);
    if (i === undefined) {
      i = this.scans.length;
      this.at.set(url, i);
    }
    this.scans[i] = r.scans;
    this.files[i] = r.files;
    this.flags[i] = (r.pruned ? 1 : 0) | (r.flipped === undefined ? 0 : r.flipped ? 4 : 2);
    this.flips[i] = r.flip ?? Number.NaN;
    if (r.issues) this.issues.set(i, r.issues);
    else this.issues.delete(i);
  }

  get size(): number {
    return this.at.size;
  }

  has(url: string): boolean {
    return this.at.has(url);
  }

  keys(): Iterable<string> {
    return this.at.keys();
  }

  get(url: string): RepositoryState | undefined {
    const i = this.at.get(url);
    return i === undefined ? undefined : this.state(i);
  }

  private state(i: number): RepositoryState {
    const flags = this.flags[i]!;
    const r: RepositoryState = {
      scans: this.scans[i]!,
      files: this.files[i]!,
      pruned: (flags & 1) === 1,
    };
    const flip = this.flips[i]!;
    if (!Number.isNaN(flip)) r.flip = flip;
    if (flags & 6) r.flipped = (flags & 4) !== 0;
    const issues = this.issues.get(i);
    if (issues) r.issues = issues;
    return r;
  }

  *[Symbol.iterator](): Iterator<[string, RepositoryState]> {
    for (const [url, i] of this.at) yield [url, this.state(i)];
  }
}
