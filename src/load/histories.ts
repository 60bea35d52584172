// Streams the store one repository history at a time. Memory stays bounded by the largest
// group of files that share a repository (one file per repository: by the largest history),
// not by the store: a first pass only notes which files mention which repository.
import { parseStoreFile } from './parse-file.ts';
import { checkRecord } from './validate-record.ts';
import { canonicalRepositoryUrl } from '../model/repository-url.ts';
import { StoreFileChangedError, type StoreSource } from './store.ts';
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
  /** Read only these store files (incremental builds); default: every listed file. */
  files?: string[];
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

export async function* loadHistories(source: StoreSource, opts: LoadOptions): AsyncGenerator<RepositoryHistory> {
  const files = [...(opts.files ?? (await source.list()))];
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
  const reportUnassignable = opts.reportUnassignable ?? true;
  const unstable = (names: string[], message: string) => {
    if (reportUnassignable) opts.report({ severity: 'error', where: source.display(names[0]!), message }, { file: names[0]! });
    opts.onUnstable?.(names);
  };
  for (let i = 0; i < files.length || (opts.moreFiles && files.push(...opts.moreFiles()) > i); i++) {
    parent[i] = i;
    let read;
    try {
      read = await source.readVersioned(files[i]!);
    } catch (err) {
      if (!(err instanceof StoreFileChangedError)) throw err;
      unstable([files[i]!], err.message);
      continue;
    }
    versions[i] = read.version;
    const bytes = read.bytes;
    if (cached + bytes.length <= budget) {
      cache.set(i, bytes);
      cached += bytes.length;
    }
    const named = new Set<string>();
    for (const item of parseStoreFile(files[i]!, bytes)) {
      if (!('value' in item)) continue;
      const url = canonicalRepositoryUrl((item.value as { repositoryUrl?: unknown } | null)?.repositoryUrl);
      if (!url.ok) continue;
      named.add(url.url);
      const first = firstFileOf.get(url.url);
      if (first === undefined) firstFileOf.set(url.url, i);
      else parent[find(i)] = find(first);
    }
    opts.onFileRead?.(files[i]!, read.version, [...named]);
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < files.length; i++) {
    if (versions[i] === undefined) continue;
    const root = find(i);
    const g = groups.get(root);
    if (g) g.push(i);
    else groups.set(root, [i]);
  }

  // Pass 2: per group of files, validate every record and hand out complete histories.
  const warnedRules = new Set<string>();
  nextGroup: for (const group of [...groups.values()].sort((a, b) => a[0]! - b[0]!)) {
    // Every file of the group in the version pass 1 saw, before any record is looked at.
    const contents: Array<[number, Uint8Array]> = [];
    for (const i of group) {
      const kept = cache.get(i);
      cache.delete(i);
      if (kept) {
        contents.push([i, kept]);
        continue;
      }
      const again = await source.readVersioned(files[i]!).catch((err: unknown) => {
        if (err instanceof StoreFileChangedError) return undefined;
        throw err;
      });
      if (again === undefined || again.version !== versions[i]) {
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
    const byRepo = new Map<string, { scans: ScanRecord[]; grants: GrantRecord[] }>();
    for (const [i, bytes] of contents) {
      const name = files[i]!;
      for (const item of parseStoreFile(name, bytes)) {
        const where = `${source.display(name)}:${item.line}`;
        if ('error' in item) {
          if (reportUnassignable) opts.report({ severity: 'error', where, message: `${item.error}; record skipped` }, { file: name });
          continue;
        }
        // The shard filter comes before the checks: a record is judged by the shard its URL
        // belongs to, and one without a valid URL by the shard that reports the unassignable.
        const url = canonicalRepositoryUrl((item.value as { repositoryUrl?: unknown } | null)?.repositoryUrl);
        if (url.ok ? opts.include && !opts.include(url.url) : !reportUnassignable) continue;
        const owner: IssueOwner = url.ok ? { repositoryUrl: url.url } : { file: name };
        const checked = checkRecordSafely(item.value, where, opts.catalog);
        if (!checked.ok) {
          opts.report({ severity: 'error', where, message: `${checked.reason}; record skipped` }, owner);
          continue;
        }
        for (const ruleId of checked.unknownRules) {
          if (warnedRules.has(ruleId)) continue;
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
    }
    for (const url of [...byRepo.keys()].sort()) {
      const h = byRepo.get(url)!;
      const scans = dropDuplicateScans(h.scans, opts.report);
      const grants = dropDuplicateGrants(h.grants, opts.report);
      const encoded = encodeURIComponent(url);
      yield { repositoryUrl: url, encoded, scans, grants };
    }
  }
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
function checkRecordSafely(value: unknown, where: string, catalog: RuleCatalog): ReturnType<typeof checkRecord> {
  try {
    return checkRecord(value, where, catalog);
  } catch (err) {
    return { ok: false, reason: `the record could not be checked (${(err as Error).message}); write it as plain JSON of the documented shape` };
  }
}
