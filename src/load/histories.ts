// Streams the store one repository history at a time. Memory stays bounded by the largest
// group of files that share a repository (one file per repository: by the largest history),
// not by the store: a first pass only notes which files mention which repository.
import { isMeasuredRule } from '../model/measured-rules.ts';
import { isLineFile, parseStoreFile, type ParsedItem } from './parse-file.ts';
import { Spill, SPILL_FILE_BYTES, WHOLE_FILE_LIMIT, bucketCount, bucketOf } from './spill.ts';
import { checkRecord } from './validate-record.ts';
import { canonicalRepositoryUrl, type CanonicalResult } from '../model/repository-url.ts';
import { StoreFileChangedError, UnreadableStoreFile, recentDigest, sameVersion, type StoreEntry, type StoreSource } from './store.ts';
import type { GrantRecord, IssueOwner, LoadIssue, RepositoryHistory, RuleCatalog, ScanRecord } from './types.ts';

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
   * Each file as first read: the version read and every repository it names. A build keeps
   * these to learn from the next listing which repositories a changed file touches.
   */
  onFileRead?: (name: string, version: string, repositories: string[]) => void;
  /** Files whose repositories were not handed out because a file changed while being read. */
  onUnstable?: (names: string[]) => void;
}

export function loadHistories(source: StoreSource, options: LoadOptions): AsyncGenerator<RepositoryHistory> {
  // Pass 2 needs none of the listing (at 100,000 store files, megabytes): the generator is
  // handed it apart from the other options (a suspended generator holds its arguments) and
  // lets go of it after pass 1.
  const { entries, files, ...opts } = options;
  return historiesOf(source, opts, { entries, files });
}

async function* historiesOf(source: StoreSource, opts: Omit<LoadOptions, 'entries' | 'files'>, given: { entries: StoreEntry[] | undefined; files: string[] | undefined }): AsyncGenerator<RepositoryHistory> {
  let listing: StoreEntry[] | undefined = given.entries ?? (await source.entries());
  const files = [...(given.files ?? listing.map((e) => e.name))];
  given.entries = undefined;
  given.files = undefined;
  // Each file as listed: its size, and its version string (shared with what keeps it later).
  const listed = new Map(listing.map((e) => [e.name, e]));
  const sizeOf = (name: string) => listed.get(name)?.size ?? 0;
  // Line files too large to hold are streamed into buckets on disk (memory follows a bucket).
  const spillAbove = opts.spillAboveBytes ?? SPILL_FILE_BYTES;
  const large = (name: string) => isLineFile(name) && sizeOf(name) > spillAbove;
  const largest = Math.max(0, ...listing.filter((e) => large(e.name)).map((e) => e.size ?? 0));
  let spill: Spill | undefined;
  const spilled = new Set<number>();
  const reportUnassignable = opts.reportUnassignable ?? true;
  const warnedRules = new Set<string>();
  // The URL strings pass 1 handed to onFileRead, per file (one as itself): pass 2 hands out
  // the same strings, so what keeps them for the build (its state) and the histories share
  // one string a repository instead of holding two. Only kept when a caller keeps them.
  const namedIn: Array<string | string[] | undefined> = [];
  try {
    const cache = new Map<number, Uint8Array>();
    let cached = 0;
    const budget = source.keepBetweenPassesBytes;

    // Pass 1: which files mention which repository; union files that share one.
    const parent: number[] = [];
    const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
    const firstFileOf = new Map<string, number>();
    // The version each file was first read at: a second read must see the same bytes, or a
    // repository could be handed out twice, once per version (and its two publishes prune
    // each other's files).
    const versions: Array<string | undefined> = [];
    // Files read just after a write (rare): a digest of the bytes pass 1 saw (store.ts: sameVersion).
    const recentDigests = new Map<number, string>();
    const handOut = (i: number, named: Set<string>) => {
      const urls = [...named];
      if (opts.onFileRead) namedIn[i] = urls.length === 1 ? urls[0]! : urls;
      opts.onFileRead?.(files[i]!, versions[i]!, urls);
    };
    // A file that alone is at fault (not a regular file, too large, no permission, gone) is a
    // bad file: named once (by the shard that reports the unassignable), the others built.
    const unreadable = (err: UnreadableStoreFile, name: string) => {
      if (reportUnassignable) opts.report({ severity: 'error', where: err.where, message: `${err.reason}; file skipped, the other files are built` }, { file: name });
    };
    const unstable = (names: string[], message: string) => {
      if (reportUnassignable) opts.report({ severity: 'error', where: source.display(names[0]!), message }, { file: names[0]! });
      opts.onUnstable?.(names);
    };
    /** A file pass 1 could not take: reported and skipped if it alone is at fault, else rethrown. */
    const fileSkipped = (err: unknown, name: string) => {
      if (err instanceof UnreadableStoreFile) return unreadable(err, name);
      if (err instanceof StoreFileChangedError) return unstable([name], err.message);
      throw err;
    };
    for (let i = 0; i < files.length || (opts.moreFiles && files.push(...opts.moreFiles()) > i); i++) {
      parent[i] = i;
      const named = new Set<string>();
      const note = (url: string) => {
        named.add(url);
        const first = firstFileOf.get(url);
        if (first === undefined) firstFileOf.set(url, i);
        else parent[find(i)] = find(first);
      };
      const size = sizeOf(files[i]!);
      if (!isLineFile(files[i]!) && size > WHOLE_FILE_LIMIT) {
        if (reportUnassignable) {
          const message = `file too large to parse as a whole (${Math.round(size / 1048576)} MiB; the limit is ${WHOLE_FILE_LIMIT / 1048576} MiB); write it as .ndjson, one record per line, which is read in bounded memory; file skipped`;
          opts.report({ severity: 'error', where: source.display(files[i]!), message }, { file: files[i]! });
        }
        continue;
      }
      if (large(files[i]!)) {
        spill ??= new Spill(bucketCount(largest, spillAbove));
        try {
          versions[i] = await spill.spill(source, files[i]!, i, note);
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
      // The listing's string when it is the same version (one string per file, not two).
      const listedVersion = listed.get(files[i]!)?.version;
      versions[i] = listedVersion === read.version ? listedVersion : read.version;
      const bytes = read.bytes;
      if (cached + bytes.length <= budget) {
        cache.set(i, bytes);
        cached += bytes.length;
      } else {
        // Read again in pass 2: a file read just after a write is recognised by its bytes then.
        const digest = recentDigest(read);
        if (digest !== undefined) recentDigests.set(i, digest);
      }
      for (const item of parseStoreFile(files[i]!, bytes)) {
        if (!('value' in item)) continue;
        const url = canonicalRepositoryUrl((item.value as { repositoryUrl?: unknown } | null)?.repositoryUrl);
        if (url.ok) note(url.url);
      }
      handOut(i, named);
    }
    // Groups as index links, not a map of arrays (at 100,000 files, 12 bytes a file instead of
    // about 100): each group's files in store order from its first, groups by their first.
    const n = files.length;
    const headOf = new Int32Array(n).fill(-1);
    const nextIn = new Int32Array(n).fill(-1);
    const tailOf = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      if (versions[i] === undefined) continue;
      const root = find(i);
      if (headOf[root] === -1) headOf[root] = i;
      else nextIn[tailOf[root]!] = i;
      tailOf[root] = i;
    }
    function* groupsInOrder(): Generator<number[]> {
      for (let i = 0; i < n; i++) {
        if (versions[i] === undefined || headOf[find(i)] !== i) continue;
        const group: number[] = [];
        for (let j = i; j !== -1; j = nextIn[j]!) group.push(j);
        yield group;
      }
    }
    // Pass 1's index of repositories is done with: it holds a string per repository for the
    // rest of the build otherwise (megabytes at 100,000 repositories).
    firstFileOf.clear();
    listed.clear();
    listing = undefined;

    // Pass 2: per group of files, validate every record and hand out complete histories.
    nextGroup: for (const group of groupsInOrder()) {
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
          if (err instanceof StoreFileChangedError || err instanceof UnreadableStoreFile) return undefined;
          throw err;
        });
        if (again === undefined || !sameVersion(versions[i]!, recentDigests.get(i), again)) {
          const names = group.map((g) => files[g]!);
          unstable(
            [files[i]!, ...names.filter((n) => n !== files[i])],
            `the file changed while the build read it; the repositories of ${names.length === 1 ? 'this file' : `this file and ${names.length - 1} other file(s) sharing them`} were left as they were (the next build reads them again)`,
          );
          for (const g of group) cache.delete(g);
          continue nextGroup;
        }
        contents.push([i, again.bytes]);
      }
      // Small groups are built at once; a group with a spilled file, bucket by bucket, each
      // file's records of that bucket in store order.
      const parsed = contents.map(([i, bytes]): [number, ParsedItem[]] => [i, parseStoreFile(files[i]!, bytes)]);
      const buckets = group.some((i) => spilled.has(i)) ? spill!.buckets : 1;
      const inBucket = (item: ParsedItem, b: number) => buckets === 1 || bucketOf(urlOf(item), buckets) === b;
      for (let b = 0; b < buckets; b++) {
        const byRepo = new Map<string, { scans: ScanRecord[]; grants: GrantRecord[] }>();
        for (const i of group) {
          const items = spilled.has(i) ? spill!.items(i, b) : (parsed.find(([j]) => j === i)?.[1] ?? []).filter((item) => inBucket(item, b));
          for (const item of items) take(files[i]!, item, byRepo);
        }
        yield* emit(byRepo, passOneStrings(group));
      }
    }
  } finally {
    spill?.dispose();
  }

  function take(name: string, item: ParsedItem, byRepo: Map<string, { scans: ScanRecord[]; grants: GrantRecord[] }>): void {
    const where = `${source.display(name)}:${item.line}`;
    if ('error' in item) {
      if (reportUnassignable) opts.report({ severity: 'error', where, message: `${item.error}; record skipped` }, { file: name });
      return;
    }
    // The shard filter comes before the checks: a record is judged by the shard its URL
    // belongs to, and one without a valid URL by the shard that reports the unassignable.
    const url = canonicalRepositoryUrl((item.value as { repositoryUrl?: unknown } | null)?.repositoryUrl);
    if (url.ok ? opts.include && !opts.include(url.url) : !reportUnassignable) return;
    const owner: IssueOwner = url.ok ? { repositoryUrl: url.url } : { file: name };
    const checked = checkRecordSafely(item.value, where, opts.catalog, url, opts.schemes);
    if (!checked.ok) {
      opts.report({ severity: 'error', where, message: `${checked.reason}; record skipped` }, owner);
      return;
    }
    for (const ruleId of checked.unknownRules) {
      // badgepress scan measures these whatever the thresholds judge: no surprise to report.
      if (warnedRules.has(ruleId) || isMeasuredRule(ruleId)) continue;
      warnedRules.add(ruleId);
      opts.report({
        severity: 'warning',
        where,
        message: `rule ${JSON.stringify(ruleId)} is not defined by the active thresholds; its values are ignored (reported once)`,
      }, owner);
    }
    const rec = checked.record;
    let h = byRepo.get(rec.repositoryUrl);
    if (!h) byRepo.set(rec.repositoryUrl, (h = { scans: [], grants: [] }));
    if (rec.kind === 'scan') h.scans.push(rec);
    else h.grants.push(rec);
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

  function* emit(byRepo: Map<string, { scans: ScanRecord[]; grants: GrantRecord[] }>, passOne: (url: string) => string): Generator<RepositoryHistory> {
    for (const read of [...byRepo.keys()].sort()) {
      const h = byRepo.get(read)!;
      const url = passOne(read);
      const scans = dropDuplicateScans(h.scans, opts.report);
      const grants = dropDuplicateGrants(h.grants, opts.report);
      const encoded = encodeURIComponent(url);
      yield { repositoryUrl: url, encoded, scans, grants };
    }
  }
}

/** The canonical URL a record names, or '' (bucket 0) when it names none. */
function urlOf(item: ParsedItem): string {
  if ('error' in item) return '';
  const url = canonicalRepositoryUrl((item.value as { repositoryUrl?: unknown } | null)?.repositoryUrl);
  return url.ok ? url.url : '';
}

function dropDuplicateScans(scans: ScanRecord[], report: LoadOptions['report']): ScanRecord[] {
  // Stable sort keeps store order among equal times, so "first" means first in the store.
  scans.sort((a, b) => a.timestamp - b.timestamp);
  const out: ScanRecord[] = [];
  for (const s of scans) {
    const prev = out[out.length - 1];
    if (prev && prev.timestamp === s.timestamp) {
      report({
        severity: 'error',
        where: s.source,
        message: `duplicate scan of ${s.repositoryUrl} at ${s.timestamp} (first at ${prev.source}); record skipped`,
      }, { repositoryUrl: s.repositoryUrl });
      continue;
    }
    out.push(s);
  }
  return out;
}

/**
 * Two grant records for the same rule at the same time would be decided by store order alone,
 * so the later one in the store is a bad record, as a duplicate scan is.
 */
function dropDuplicateGrants(grants: GrantRecord[], report: LoadOptions['report']): GrantRecord[] {
  grants.sort((a, b) => a.timestamp - b.timestamp);
  const first = new Map<string, GrantRecord>();
  const out: GrantRecord[] = [];
  for (const g of grants) {
    const key = `${g.timestamp}\u0000${g.ruleId}`;
    const prev = first.get(key);
    if (prev) {
      report({
        severity: 'error',
        where: g.source,
        message: `duplicate grant record for ${JSON.stringify(g.ruleId)} of ${g.repositoryUrl} at ${g.timestamp} (first at ${prev.source}); record skipped`,
      }, { repositoryUrl: g.repositoryUrl });
      continue;
    }
    first.set(key, g);
    out.push(g);
  }
  return out;
}

/**
 * A record whose checking throws (a hostile shape no check foresaw) is a bad record like any
 * other: reported with its file:line and skipped, never the end of the build.
 */
function checkRecordSafely(value: unknown, where: string, catalog: RuleCatalog, url: CanonicalResult, schemes: readonly string[] | undefined): ReturnType<typeof checkRecord> {
  try {
    return checkRecord(value, where, catalog, url, schemes);
  } catch (err) {
    return { ok: false, reason: `the record could not be checked (${(err as Error).message}); write it as plain JSON of the documented shape` };
  }
}
