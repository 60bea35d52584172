// Which repositories a build must redo, learned from the store listing and the last build's
// state, and the state the build leaves behind.
//
// A repository is skipped (not read, parsed, evaluated, rendered or compared) when the code
// and configuration are those of the last build, every store file that names it has the
// version it had then (size+mtime on disk, ETag on S3), no changed file names it now, the
// build's --now is on the same side of its expiry moment, and --prune asks for nothing the
// last build did not do. Store files are read only when they changed or name a repository
// that must be redone; one file of many repositories redoes those repositories only.
//
// A config change that leaves the global part alone (incremental/parts.ts) redoes every
// repository partially: it is loaded and evaluated, but only the files of the changed parts
// are rendered and compared; the others are still current and stay as they are.
import type { IssueOwner, LoadIssue, RepositoryHistory } from '../load/types.ts';
import type { LoadOptions } from '../load/histories.ts';
import { listedAsKept, verifiedByBytes, type StoreEntry, type StoreSource } from '../load/store.ts';
import type { Settings } from '../config/types.ts';
import { repositoryPrefix } from '../model/layout.ts';
import { expiresAt } from '../model/expiry.ts';
import { changedParts, PartialRebuild, type ConfigParts } from './parts.ts';
import { SummaryFile, SummaryLines } from './summary-lines.ts';
import {
  STATE_PREFIX,
  checkState,
  pendingKey,
  pendingText,
  readPending,
  type Pending,
  stateLines,
  stateKey,
  type StateLinesInput,
} from './state.ts';
import { StateDigest, UntrustedStateError, digestedLines } from './state-lines.ts';
import type { StateKeeper } from './state-keeper.ts';
import { StoreListing } from './listing.ts';
import { CompactRepositoryStates } from './compact-state.ts';
import type { BuildState, FileState, RepositoryState, ShardKey } from './state-types.ts';

interface IncrementalOptions {
  state: StateKeeper;
  store: StoreSource;
  shard: ShardKey;
  code: string;
  config: ConfigParts;
  settings: Settings;
  now: number;
  prune: boolean;
  /** Ignore the state (build everything); a new state is still written. */
  force: boolean;
  /** Told of a state that cannot be trusted (named, and set aside unless `readOnly`). */
  warn?: (message: string) => void;
  /** Never changes the kept state (plan): an untrusted state is named, not set aside. */
  readOnly?: boolean;
}

/** What skipped repositories add to a build's counts. */
export interface Carried {
  repositories: number;
  scans: number;
  files: number;
  /** The key segment that sorts first among the carried repositories with scans. */
  first?: string;
}

/** The build's plan of what to redo (src/pipeline/redo-plan.ts), from the state of the last build. */
export class IncrementalBuild {
  private readonly prev: BuildState | undefined;
  /** The last state even when code or config changed since: it still says what was published. */
  private readonly last: BuildState | undefined;
  /** Repositories that left the store, as this build knows them (undefined: unknown). */
  private goneNext: Set<string> | undefined;
  /** The store as listed at the start, and what this build read of each file. */
  private readonly listing: StoreListing;
  /** Repositories that must be built (only meaningful with a previous state). */
  private readonly dirty = new Set<string>();
  /** Of those, the ones whose every file is redone (their records changed, an expiry, --prune). */
  private readonly whole = new Set<string>();
  /** Config parts that differ from the last build's: the files every other dirty repository redoes. */
  private readonly changed: ReadonlySet<string>;
  private readonly requested = new Set<string>();
  /** Files the last build read just after a write, listed at that size and mtime: read to compare bytes. */
  private readonly toVerify = new Set<string>();
  private readonly unstable = new Set<string>();
  private readonly recorded = new CompactRepositoryStates();
  private readonly issuesOf = new Map<string, LoadIssue[]>();
  private readonly key: string;
  /** The pending mark, once written (beginPublishing) or being written. */
  private begun: Promise<void> | undefined;
  private marked = false;
  /** The digest of the state as read (undefined: none read). */
  private readDigest: string | undefined;
  /** The listing as the store gave it, until the loader takes it (it needs the sizes). */
  private entries: StoreEntry[] | undefined;
  /**
   * Summary lines (for the site-wide pages) of this build: those built now and those carried
   * for skipped repositories. Kept on local disk beside the last build's (prevSummaries), in
   * one file: memory holds where each line is, not the line.
   */
  readonly summaries: SummaryLines;

  private readonly opts: IncrementalOptions;
  private readonly prevSummaries: SummaryLines;
  private readonly pending: Pending | undefined;
  private stateKeys: string[] | undefined;
  private constructor(
    opts: IncrementalOptions,
    prev: BuildState | undefined,
    entries: StoreEntry[],
    listing: StoreListing,
    prevSummaries: SummaryLines,
    /** What a build that did not finish may have published (undefined: the last build finished). */
    pending: Pending | undefined,
    /** The state keeper's keys as listed when the build began. */
    stateKeys: string[] | undefined,
    /** A forced build's one use of the state: the headers its files went out with. */
    forcedHeaders?: string,
  ) {
    this.opts = opts;
    this.prevSummaries = prevSummaries;
    this.pending = pending;
    this.stateKeys = stateKeys;
    this.summaries = new SummaryLines(prevSummaries.file);
    this.key = stateKey(opts.shard);
    this.prev =
      prev && prev.code === opts.code && prev.config === opts.config.global ? prev : undefined;
    // Without a state to say so, the stored headers are unknown: every file goes out again.
    this.resendsHeaders = (prev?.headers ?? forcedHeaders) !== opts.config.headers;
    this.last = prev;
    this.listing = listing;
    this.entries = entries;
    const changed = this.prev
      ? changedParts(this.prev.parts, opts.config.parts)
      : new Set<string>();
    // Pages hold every setting; listed anyway so summaries are recomputed on any partial rebuild.
    if (changed.size > 0) changed.add('pages');
    this.changed = changed;
    if (this.prev) this.markDirtyFromState(this.prev);
  }

  static async open(opts: IncrementalOptions): Promise<IncrementalBuild> {
    const key = stateKey(opts.shard);
    const untrusted = (err: unknown) => {
      if (err instanceof UntrustedStateError) return { untrusted: err.reason };
      throw err;
    };
    // The state's keys (listed anyway, to retire other layouts) say whether a mark is pending.
    const [lines, entries, keys] = await Promise.all([
      opts.force ? undefined : opts.state.read(key).catch(untrusted),
      opts.store.entries(),
      opts.state.list(),
    ]);
    const marked = keys.includes(pendingKey(opts.shard));
    const pending = marked
      ? await readPending(
          await opts.state
            .read(pendingKey(opts.shard))
            .catch((err: unknown) =>
              err instanceof UntrustedStateError ? ['?'] : Promise.reject(err),
            ),
        )
      : undefined;
    const prevSummaries = new SummaryLines(new SummaryFile());
    const listing = new StoreListing(entries);
    const digest = new StateDigest();
    const read =
      lines === undefined
        ? undefined
        : 'untrusted' in lines
          ? lines
          : await checkState(digestedLines(lines, digest), prevSummaries, listing);
    let prev: BuildState | undefined;
    // A build that may have published anything and did not finish: its state says nothing.
    if (read && 'state' in read && !(pending && 'all' in pending)) prev = read.state;
    else if (read && 'untrusted' in read) {
      // Never trusted, never an end: named, moved out of the way, and this build is a full one.
      const where = opts.readOnly ? undefined : await opts.state.setAside(key);
      const fate = where
        ? `set aside as ${where}; this build is a full one and writes a new state`
        : 'not used (a build sets it aside)';
      opts.warn?.(`build state ${opts.state.display(key)}: ${read.untrusted}; ${fate}`);
    }
    // --force trusts no file record of the state, but the headers it names are still those the
    // files went out with: without them every unchanged object would be sent again.
    const forcedHeaders = opts.force
      ? await headersOf(await opts.state.read(key).catch(() => undefined))
      : undefined;
    const build = new IncrementalBuild(
      opts,
      prev,
      entries,
      listing,
      prevSummaries,
      pending,
      keys,
      forcedHeaders,
    );
    if (prev) build.readDigest = digest.digest();
    return build;
  }

  /** Whether a previous state is in use (false: a full build). */
  get incremental(): boolean {
    return this.prev !== undefined;
  }

  /** A repository all of whose files are redone. */
  private redoWhole(url: string): void {
    this.dirty.add(url);
    this.whole.add(url);
  }

  private markDirtyFromState(prev: BuildState): void {
    for (const [name, f] of prev.files) {
      const listed = this.listing.version(name);
      // A file the last build read just after it was written: known again by its bytes once read.
      if (listedAsKept(f.version, listed)) {
        this.toVerify.add(name);
        continue;
      }
      const changed = listed !== f.version;
      for (const url of f.repositories) {
        // A repository a file names but the state does not hold failed or was left out.
        if (changed || !prev.repositories.has(url)) this.redoWhole(url);
      }
    }
    // Published by a build that did not finish: the state may describe other files than theirs.
    if (this.pending && 'repositories' in this.pending)
      for (const url of this.pending.repositories) this.redoWhole(url);
    for (const [url, r] of prev.repositories) {
      if (r.flip !== undefined && this.opts.now >= r.flip !== r.flipped) this.redoWhole(url);
      if (this.opts.prune && !r.pruned) this.redoWhole(url);
      if (this.changed.size > 0) this.dirty.add(url);
    }
  }

  /**
   * How a repository about to be built is redone: undefined for all of its files, else only the
   * files of the changed config parts (its records, and so its other files, are as last built).
   */
  partial(h: Pick<RepositoryHistory, 'repositoryUrl' | 'encoded'>): PartialRebuild | undefined {
    if (
      !this.prev ||
      this.changed.size === 0 ||
      this.whole.has(h.repositoryUrl) ||
      !this.prev.repositories.has(h.repositoryUrl)
    )
      return undefined;
    return new PartialRebuild(this.changed, repositoryPrefix(h.encoded));
  }

  /** Files to read first: all of them without a state, else those that changed. */
  private initialFiles(): string[] {
    const { names } = this.listing;
    if (!this.prev) return [...names];
    return names.filter(
      (n, i) => this.prev!.files.versionOf(n) !== this.listing.versionAt(i) || this.namesDirty(n),
    );
  }

  private namesDirty(name: string): boolean {
    return this.prev!.files.repositoriesOf(name)?.some((u) => this.dirty.has(u)) ?? false;
  }

  /** What the loader needs: which files, which repositories, and where to tell what it read. */
  loadOptions(
    include: ((url: string) => boolean) | undefined,
  ): Pick<
    LoadOptions,
    'files' | 'entries' | 'moreFiles' | 'onFileRead' | 'onUnstable' | 'include'
  > {
    const files = this.initialFiles();
    // Only an incremental build asks for more files (moreFiles): a full one reads them all.
    if (this.prev) for (const f of files) this.requested.add(f);
    const inShard = include ?? (() => true);
    // Held by the loader only (it lets go of it after its first pass).
    const entries = this.entries;
    this.entries = undefined;
    return {
      files,
      ...(entries ? { entries } : {}),
      include: this.prev ? (url) => inShard(url) && this.dirty.has(url) : inShard,
      onFileRead: (name, version, repositories, digest) => {
        const mine = repositories.filter(inShard).sort();
        this.listing.setRead(name, version, mine);
        const known = this.prev?.files.versionOf(name);
        const verified = this.toVerify.delete(name) && verifiedByBytes(known!, version, digest);
        // A file read at another version than the state knows redoes every repository it names
        // (and so does one the state names that it no longer names: markDirtyFromState).
        if (this.prev && known !== version && !verified)
          for (const u of new Set([...mine, ...(this.prev.files.repositoriesOf(name) ?? [])]))
            this.redoWhole(u);
      },
      onUnstable: (names) => {
        for (const n of names) this.unstable.add(n);
      },
      moreFiles: () => {
        if (!this.prev) return [];
        // A file to know by its bytes that could not be read: its repositories are redone.
        for (const name of this.toVerify)
          for (const u of this.prev.files.repositoriesOf(name) ?? []) this.redoWhole(u);
        this.toVerify.clear();
        const more = this.listing.names.filter((n) => !this.requested.has(n) && this.namesDirty(n));
        for (const f of more) this.requested.add(f);
        return more;
      },
    };
  }

  /** Keeps a load problem with what it belongs to, to report it again while that is skipped. */
  note(issue: LoadIssue, owner: IssueOwner | undefined): void {
    if (!owner) return;
    if ('repositoryUrl' in owner) {
      const list = this.issuesOf.get(owner.repositoryUrl);
      if (list) list.push(issue);
      else this.issuesOf.set(owner.repositoryUrl, [issue]);
    } else {
      this.listing.addIssue(owner.file, issue);
    }
  }

  /** Whether a config part changed since the last build (the site-wide pages show every part). */
  get configChanged(): boolean {
    return this.changed.size > 0;
  }

  /**
   * Whether the site-wide files (pages, a shard's summaries, openapi.json) are those of the last
   * build, already out: no repository was redone and no config part changed.
   */
  get siteWideUnchanged(): boolean {
    return this.incremental && this.redone === 0 && !this.configChanged;
  }

  /**
   * Whether the last build pruned the repository under the same code and config: whatever it
   * left below the repository's prefixes is what this build would leave (no page of it
   * appeared since, for one).
   */
  prunedBefore(url: string): boolean {
    return (
      this.prev !== undefined &&
      this.changed.size === 0 &&
      this.prev.repositories.get(url)?.pruned === true
    );
  }

  /** How many repositories are redone (known once the loader has read every file it needs). */
  /** The files already out may carry other Cache-Control than this build's (RedoPlan). */
  readonly resendsHeaders: boolean;

  narrowsListing(): boolean {
    // A listing page holds 1,000 keys: list repositories one by one while that costs no more pages.
    return this.incremental && this.redone <= Math.ceil(this.knownFiles / 1000);
  }

  get redone(): number {
    return this.dirty.size;
  }

  /** Output files the last build produced, a measure of the site's size. */
  get knownFiles(): number {
    let n = 0;
    for (const [, r] of this.prev?.repositories ?? []) n += r.files;
    return n;
  }

  /**
   * A repository whose files are all published (or that has no valid scan); its summary line,
   * if any, is in `summaries` (the build puts it there).
   */
  built(h: RepositoryHistory, files: number): void {
    const entry: RepositoryState = { scans: h.scans.length, files, pruned: this.opts.prune };
    const last = h.scans[h.scans.length - 1];
    const { settings } = this.opts;
    if (last && settings.shape === 'A' && settings.expireAfterDays !== null) {
      // The first second at which the latest scan counts as expired (see isExpired).
      entry.flip = expiresAt(last.timestamp, settings.expireAfterDays) + 1;
      entry.flipped = this.opts.now >= entry.flip;
    }
    const issues = this.issuesOf.get(h.repositoryUrl);
    if (issues) entry.issues = issues;
    this.recorded.set(h.repositoryUrl, entry);
  }

  private clean(url: string): RepositoryState | undefined {
    if (!this.prev || this.dirty.has(url)) return undefined;
    return this.prev.repositories.get(url);
  }

  /** Repositories skipped as unchanged: their problems are reported again, their counts and summaries carried. */
  carry(report: (issue: LoadIssue) => void, summaries?: SummaryLines): Carried {
    const carried: Carried = { repositories: 0, scans: 0, files: 0 };
    if (!this.prev) return carried;
    for (const [name, f] of this.prev.files) {
      if (!this.listing.isRead(name) && this.listing.version(name) === f.version)
        for (const i of f.issues ?? []) report(i);
    }
    for (const url of this.repositoriesNamed()) {
      const r = this.clean(url);
      if (!r || this.recorded.has(url)) continue;
      for (const i of r.issues ?? []) report(i);
      if (r.scans > 0) {
        carried.repositories++;
        carried.scans += r.scans;
        carried.files += r.files;
        const encoded = encodeURIComponent(url);
        if (carried.first === undefined || encoded < carried.first) carried.first = encoded;
      }
      summaries?.adopt(url, this.prevSummaries);
    }
    return carried;
  }

  /** Every repository some current store file names (as far as this build knows). */
  private repositoriesNamed(): Set<string> {
    const urls = new Set<string>();
    for (const [, f] of this.nextFiles()) for (const u of f.repositories) urls.add(u);
    return urls;
  }

  /** The store files the next state holds, in listing order (made as they are asked for, not kept). */
  private *nextFiles(): Generator<[string, FileState]> {
    const { names } = this.listing;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (this.unstable.size > 0 && this.unstable.has(name)) continue;
      const read = this.listing.readAt(i);
      if (read) {
        yield [name, read];
        continue;
      }
      const prev = this.prev?.files.get(name);
      if (prev && prev.version === this.listing.versionAt(i)) yield [name, prev];
    }
  }

  /** Each repository of the next state once, in the order the files first name it. */
  private *nextRepositories(): Generator<[string, RepositoryState]> {
    const seen = new Set<string>();
    for (const [, f] of this.nextFiles()) {
      for (const url of f.repositories) {
        if (seen.has(url)) continue;
        // Seen either way: a URL with nothing to keep is asked about once, not once a file.
        seen.add(url);
        const r = this.recorded.get(url) ?? this.clean(url);
        if (r) yield [url, r];
      }
    }
  }

  /**
   * The state after this build: only what it published or left untouched and still holds. Its
   * files and repositories are made as the lines are written, not held beside the build's own.
   */
  private nextLines(): StateLinesInput {
    const gone = this.goneNext ?? this.goneByState();
    return {
      code: this.opts.code,
      config: this.opts.config.global,
      parts: this.opts.config.parts,
      headers: this.opts.config.headers,
      files: { [Symbol.iterator]: () => this.nextFiles() },
      repositories: { [Symbol.iterator]: () => this.nextRepositories() },
      ...(gone ? { gone: [...gone].sort() } : {}),
    };
  }

  /**
   * Every repository some store file may still hold: those named by the files read now, and
   * for a file listed but not read (unchanged, or unreadable this time) those the last state
   * names. undefined when a listed file is neither read nor known: its repositories are unknown.
   */
  presentRepositories(): Set<string> | undefined {
    const urls = new Set<string>();
    const { names } = this.listing;
    for (let i = 0; i < names.length; i++) {
      const repositories =
        (this.unstable.has(names[i]!) ? undefined : this.listing.repositoriesReadAt(i)) ??
        this.last?.files.repositoriesOf(names[i]!);
      if (!repositories) return undefined;
      for (const u of repositories) urls.add(u);
    }
    if (this.last)
      for (const name of this.unstable)
        for (const u of this.last.files.repositoriesOf(name) ?? []) urls.add(u);
    return urls;
  }

  /** From the state: repositories the last builds published that no store file names now (undefined: the state cannot tell). */
  goneByState(): Set<string> | undefined {
    if (!this.last?.gone) return undefined;
    const present = this.presentRepositories();
    if (!present) return undefined;
    const pending = this.pending && 'repositories' in this.pending ? this.pending.repositories : [];
    return new Set(
      [...this.last.repositories.keys(), ...this.last.gone, ...pending].filter(
        (u) => !present.has(u),
      ),
    );
  }

  /** What the state after this build says left the store but may still be published (removed ones excluded). */
  noteGone(stillPublished: Iterable<string>): void {
    this.goneNext = new Set(stillPublished);
  }

  /**
   * Before anything is published: states of other shard layouts describe repositories this
   * build may change, so they go (a later build of that layout starts afresh).
   */
  async retireOtherLayouts(): Promise<void> {
    if (this.opts.readOnly) return;
    const others = async () => {
      // The listing made when the build began, once; a second attempt lists again.
      const keys = this.stateKeys ?? (await this.opts.state.list());
      this.stateKeys = undefined;
      return keys.filter(
        (k) =>
          k.startsWith(STATE_PREFIX) && !k.startsWith(`${STATE_PREFIX}${this.opts.shard.count}/`),
      );
    };
    // n shards of a new layout start together and retire the same old states at once; a store
    // may refuse one of two concurrent deletes of a key (s3rver answers 500). What is left
    // after a refusal is listed and deleted again: a stale state must never outlive this.
    try {
      await this.opts.state.remove(await others());
    } catch {
      await this.opts.state.remove(await others());
    }
  }

  /**
   * Before this build publishes or removes anything (once; later calls wait for the first):
   * what it may publish is marked pending, so that if it never finishes the next build redoes
   * it even where a store file returns to the version the old state records. Nothing is marked
   * when nothing is redone (an unchanged rebuild writes nothing).
   */
  beginPublishing(): Promise<void> {
    this.begun ??= (async () => {
      if (this.opts.readOnly) return;
      let mark: Pending;
      if (!this.prev || this.changed.size > 0) mark = { all: true };
      else if (this.dirty.size > 0) mark = { repositories: [...this.dirty].sort() };
      else return;
      // A first build over an output without any state has nothing a stale state could hide.
      if (!this.opts.force && !this.last && !this.pending) return;
      await this.opts.state.write(pendingKey(this.opts.shard), [pendingText(mark)]);
      this.marked = true;
    })();
    return this.begun;
  }

  /** After everything is published; a state of the same bytes as the last is not written again. */
  async commit(): Promise<void> {
    if (this.opts.readOnly) return;
    await this.opts.state.write(
      this.key,
      stateLines(this.nextLines(), this.summaries),
      this.readDigest,
    );
    // Only now: a build that stops between the two leaves a mark that merely redoes some work.
    if (this.marked || this.pending) await this.opts.state.remove([pendingKey(this.opts.shard)]);
  }

  /** Releases the summaries' file (after the last use of `summaries`). */
  close(): void {
    this.summaries.file.close();
  }
}

/** The `headers` of a state's first line (undefined when it has none or is not a state). */
async function headersOf(lines: AsyncIterable<string> | undefined): Promise<string | undefined> {
  if (!lines) return undefined;
  for await (const line of lines) {
    try {
      const headers = (JSON.parse(line) as { headers?: unknown } | null)?.headers;
      return typeof headers === 'string' ? headers : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
