// Streams the store one repository history at a time. Memory stays bounded by the largest
// group of files that share a repository (one file per repository: by the largest history),
// not by the store: a first pass only notes which files mention which repository.
import { isLineFile, parseStoreFile, type ParsedItem } from './parse-file.ts';
import { Spill, SPILL_FILE_BYTES, WHOLE_FILE_LIMIT, bucketCount, bucketOf } from './spill.ts';
import { FileGroups } from './file-groups.ts';
import { RecordTaker, urlOf, type ByRepository } from './take-records.ts';
import { counted } from '../model/plural.ts';
import { canonicalRepositoryUrl } from '../model/repository-url.ts';
import {
  StoreFileChangedError,
  UnreadableStoreFile,
  keptVersion,
  sameVersion,
  storeFileDigest,
  type StoreEntry,
  type StoreSource,
} from './store.ts';
import type { IssueOwner, LoadIssue, RepositoryHistory, RuleCatalog } from './types.ts';

export interface LoadOptions {
  catalog: RuleCatalog;
  report: (issue: LoadIssue, owner?: IssueOwner) => void;
  /**
   * Only repositories for which this returns true are loaded (sharding). Records of other
   * repositories are not checked either, so a bad record is reported by its own shard only.
   */
  include?: (repositoryUrl: string) => boolean;
  /**
   * Whether to report records that belong to no repository (no valid repository URL, a broken
   * line, a file that is not UTF-8). Default true; with `--shard i/n` only shard 0 should, so
   * that n shards report each bad record exactly once.
   */
  reportUnassignable?: boolean;
  /** Repository URL schemes accepted (the site's repositoryUrlSchemes; default http, https). */
  schemes?: readonly string[];
  /** Read only these store files (incremental builds); default: every listed file. */
  files?: string[];
  /** The store's listing, when the caller has it (sizes decide which files are streamed). */
  entries?: StoreEntry[];
  /** Line files larger than this are streamed into buckets on disk (default SPILL_FILE_BYTES). */
  spillAboveBytes?: number;
  /** Asked once the files so far are read: further files to read (none: the list is complete). */
  moreFiles?: () => string[];
  /**
   * Each file as first read: the version read (store.ts: keptVersion), every repository it
   * names, and a digest of the bytes read (undefined for a file streamed, not held). A build
   * keeps these to learn from the next listing which repositories a changed file touches.
   */
  onFileRead?: (
    name: string,
    version: string,
    repositories: string[],
    digest: () => string | undefined,
  ) => void;
  /** Files whose repositories were not handed out because a file changed while being read. */
  onUnstable?: (names: string[]) => void;
}

export function loadHistories(
  source: StoreSource,
  options: LoadOptions,
): AsyncGenerator<RepositoryHistory> {
  // Pass 2 needs none of the listing (at 100,000 store files, megabytes): the generator is
  // handed it apart from the other options (a suspended generator holds its arguments) and
  // lets go of it after pass 1.
  const { entries, files, ...opts } = options;
  return historiesOf(source, opts, { entries, files });
}

/** What the grouping pass leaves the reading pass: which files to read, in what version, and how. */
interface FirstPass {
  /** The store files read, by index (incremental builds may add some as they go). */
  files: string[];
  /** Files that share a repository, unioned. */
  groups: FileGroups;
  /**
   * The version each file was first read at (undefined: skipped): a second read must see the
   * same bytes, or a repository could be handed out twice, once per version (and its two
   * publishes prune each other's files).
   */
  versions: Array<string | undefined>;
  /** Bytes kept between the passes, within the store's budget. */
  cache: Map<number, Uint8Array>;
  /** Files streamed into buckets on disk instead of held. */
  spilled: Set<number>;
  spill: Spill | undefined;
  /** The URL strings handed to onFileRead, per file (one as itself). */
  namedIn: Array<string | string[] | undefined>;
}

async function* historiesOf(
  source: StoreSource,
  opts: Omit<LoadOptions, 'entries' | 'files'>,
  given: { entries: StoreEntry[] | undefined; files: string[] | undefined },
): AsyncGenerator<RepositoryHistory> {
  const reportUnassignable = opts.reportUnassignable ?? true;
  const pass: FirstPass = {
    files: [],
    groups: new FileGroups(),
    versions: [],
    cache: new Map(),
    spilled: new Set(),
    spill: undefined,
    namedIn: [],
  };
  /** Files whose repositories are not handed out: named once (by the shard that reports the unassignable). */
  const unstable = (names: string[], message: string) => {
    if (reportUnassignable)
      opts.report(
        { severity: 'error', where: source.display(names[0]!), message },
        { file: names[0]! },
      );
    opts.onUnstable?.(names);
  };
  try {
    await groupFiles(source, opts, given, pass, unstable);
    yield* readGroups(source, opts, pass, unstable);
  } finally {
    pass.spill?.dispose();
  }
}

/**
 * Pass 1: which files mention which repository; files that share one are unioned. The listing
 * is used here only, and let go when this returns (at 100,000 store files it is megabytes).
 */
async function groupFiles(
  source: StoreSource,
  opts: Omit<LoadOptions, 'entries' | 'files'>,
  given: { entries: StoreEntry[] | undefined; files: string[] | undefined },
  pass: FirstPass,
  unstable: (names: string[], message: string) => void,
): Promise<void> {
  const listing: StoreEntry[] = given.entries ?? (await source.entries());
  pass.files = [...(given.files ?? listing.map((e) => e.name))];
  const files = pass.files;
  given.entries = undefined;
  given.files = undefined;
  // Each file as listed: its size, and its version string (shared with what keeps it later).
  const listed = new Map(listing.map((e) => [e.name, e]));
  const sizeOf = (name: string) => listed.get(name)?.size ?? 0;
  // Line files too large to hold are streamed into buckets on disk (memory follows a bucket).
  const spillAbove = opts.spillAboveBytes ?? SPILL_FILE_BYTES;
  const large = (name: string) => isLineFile(name) && sizeOf(name) > spillAbove;
  const largest = Math.max(0, ...listing.filter((e) => large(e.name)).map((e) => e.size ?? 0));
  const reportUnassignable = opts.reportUnassignable ?? true;
  const { groups, versions, cache, spilled, namedIn } = pass;
  let cached = 0;
  const budget = source.keepBetweenPassesBytes;
  const handOut = (i: number, named: Set<string>, bytes?: Uint8Array) => {
    const urls = [...named];
    // The URL strings handed to onFileRead: pass 2 hands out the same strings, so what keeps
    // them for the build (its state) and the histories share one string a repository instead
    // of holding two. Only kept when a caller keeps them.
    if (opts.onFileRead) namedIn[i] = urls.length === 1 ? urls[0]! : urls;
    opts.onFileRead?.(files[i]!, versions[i]!, urls, () =>
      bytes ? storeFileDigest(bytes) : undefined,
    );
  };
  // A file that alone is at fault (not a regular file, too large, no permission, gone) is a
  // bad file: named once (by the shard that reports the unassignable), the others built.
  const unreadable = (err: UnreadableStoreFile, name: string) => {
    if (reportUnassignable)
      opts.report(
        {
          severity: 'error',
          where: err.where,
          message: `${err.reason}; file skipped, the other files are built`,
        },
        { file: name },
      );
  };
  /** A file pass 1 could not take: reported and skipped if it alone is at fault, else rethrown. */
  const fileSkipped = (err: unknown, name: string) => {
    if (err instanceof UnreadableStoreFile) return unreadable(err, name);
    if (err instanceof StoreFileChangedError) return unstable([name], err.message);
    throw err;
  };
  for (
    let i = 0;
    i < files.length || (opts.moreFiles && files.push(...opts.moreFiles()) > i);
    i++
  ) {
    groups.add(i);
    const named = new Set<string>();
    const note = (url: string) => {
      named.add(url);
      groups.names(i, url);
    };
    const size = sizeOf(files[i]!);
    if (!isLineFile(files[i]!) && size > WHOLE_FILE_LIMIT) {
      if (reportUnassignable) {
        const message = `file too large to parse as a whole (${Math.round(size / 1048576)} MiB; the limit is ${WHOLE_FILE_LIMIT / 1048576} MiB); write it as .ndjson, one record per line, which is read in bounded memory; file skipped`;
        opts.report(
          { severity: 'error', where: source.display(files[i]!), message },
          { file: files[i]! },
        );
      }
      continue;
    }
    if (large(files[i]!)) {
      pass.spill ??= new Spill(bucketCount(largest, spillAbove));
      try {
        versions[i] = await pass.spill.spill(source, files[i]!, i, note);
      } catch (err) {
        fileSkipped(err, files[i]!);
        continue;
      }
      spilled.add(i);
      handOut(i, named);
      continue;
    }
    let read;
    try {
      read = await source.readVersioned(files[i]!);
    } catch (err) {
      fileSkipped(err, files[i]!);
      continue;
    }
    // The listing's string when it is the same version (one string per file, not two); a
    // file read just after a write carries a digest, to know its bytes by in pass 2 and later.
    const listedVersion = listed.get(files[i]!)?.version;
    versions[i] = listedVersion === read.version ? listedVersion : keptVersion(read);
    const bytes = read.bytes;
    if (cached + bytes.length <= budget) {
      cache.set(i, bytes);
      cached += bytes.length;
    }
    for (const item of parseStoreFile(files[i]!, bytes)) {
      if (!('value' in item)) continue;
      const url = canonicalRepositoryUrl(
        (item.value as { repositoryUrl?: unknown } | null)?.repositoryUrl,
      );
      if (url.ok) note(url.url);
    }
    handOut(i, named, bytes);
  }
}

/** Pass 2: per group of files, validate every record and hand out complete histories. */
async function* readGroups(
  source: StoreSource,
  opts: Omit<LoadOptions, 'entries' | 'files'>,
  pass: FirstPass,
  unstable: (names: string[], message: string) => void,
): AsyncGenerator<RepositoryHistory> {
  const { files, groups, versions, cache, spilled, namedIn } = pass;
  const taker = new RecordTaker(source, opts, opts.reportUnassignable ?? true);
  nextGroup: for (const group of groups.inOrder(files, (i) => versions[i] !== undefined)) {
    // Every file of the group in the version pass 1 saw, before any record is looked at.
    const contents: Array<[number, Uint8Array]> = [];
    for (const i of group) {
      if (spilled.has(i)) continue;
      const kept = cache.get(i);
      cache.delete(i);
      if (kept) {
        contents.push([i, kept]);
        continue;
      }
      const again = await source.readVersioned(files[i]!).catch((err: unknown) => {
        // Changed, or gone unreadable, since pass 1: either way not the version pass 1 saw.
        if (err instanceof StoreFileChangedError || err instanceof UnreadableStoreFile)
          return undefined;
        throw err;
      });
      if (again === undefined || !sameVersion(versions[i]!, again)) {
        const names = group.map((g) => files[g]!);
        unstable(
          [files[i]!, ...names.filter((n) => n !== files[i])],
          `the file changed while the build read it; the repositories of ${names.length === 1 ? 'this file' : `this file and ${counted(names.length - 1, 'other file', 'other files')} sharing them`} were left as they were (the next build reads them again)`,
        );
        for (const g of group) cache.delete(g);
        continue nextGroup;
      }
      contents.push([i, again.bytes]);
    }
    // Small groups are built at once; a group with a spilled file, bucket by bucket, each
    // file's records of that bucket in store order.
    const parsed = contents.map(([i, bytes]): [number, ParsedItem[]] => [
      i,
      parseStoreFile(files[i]!, bytes),
    ]);
    const buckets = group.some((i) => spilled.has(i)) ? pass.spill!.buckets : 1;
    const inBucket = (item: ParsedItem, b: number) =>
      buckets === 1 || bucketOf(urlOf(item), buckets) === b;
    for (let b = 0; b < buckets; b++) {
      const byRepo: ByRepository = new Map();
      for (const i of group) {
        const items = spilled.has(i)
          ? pass.spill!.items(i, b)
          : (parsed.find(([j]) => j === i)?.[1] ?? []).filter((item) => inBucket(item, b));
        for (const item of items) taker.take(files[i]!, item, byRepo);
      }
      yield* taker.histories(byRepo, passOneStrings(group));
    }
  }

  /** For a group of files: the string pass 1 kept for a URL (equal to it), or the URL itself. */
  function passOneStrings(group: number[]): (url: string) => string {
    const only = group.length === 1 ? namedIn[group[0]!] : undefined;
    if (typeof only === 'string') return (url) => (url === only ? only : url);
    const kept = new Map<string, string>();
    for (const i of group) {
      const named = namedIn[i];
      if (typeof named === 'string') kept.set(named, named);
      else for (const u of named ?? []) kept.set(u, u);
    }
    return (url) => kept.get(url) ?? url;
  }
}
