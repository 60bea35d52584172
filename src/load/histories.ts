// Streams the store one repository history at a time. Memory stays bounded by the largest
// group of files that share a repository (one file per repository: by the largest history),
// not by the store: a first pass only notes which files mention which repository.
import { parseStoreFile } from './parse-file.ts';
import { checkRecord } from './validate-record.ts';
import { canonicalRepositoryUrl, type CanonicalResult } from '../model/repository-url.ts';
import { UnreadableStoreFile, type StoreSource } from './store.ts';
import type { GrantRecord, LoadIssue, RepositoryHistory, RuleCatalog, ScanRecord } from './types.ts';

export interface LoadOptions {
  catalog: RuleCatalog;
  report: (issue: LoadIssue) => void;
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
}

export async function* loadHistories(source: StoreSource, opts: LoadOptions): AsyncGenerator<RepositoryHistory> {
  const files = await source.list();
  const cache = new Map<number, Uint8Array>();
  let cached = 0;
  const budget = source.keepBetweenPassesBytes;

  // Pass 1: which files mention which repository; union files that share one.
  const parent = files.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const firstFileOf = new Map<string, number>();
  const unreadable = new Set<number>();
  for (let i = 0; i < files.length; i++) {
    const bytes = await readOrReport(source, files[i]!, opts.report);
    if (bytes === undefined) {
      unreadable.add(i);
      continue;
    }
    if (cached + bytes.length <= budget) {
      cache.set(i, bytes);
      cached += bytes.length;
    }
    for (const item of parseStoreFile(files[i]!, bytes)) {
      if (!('value' in item)) continue;
      const url = canonicalRepositoryUrl((item.value as { repositoryUrl?: unknown } | null)?.repositoryUrl);
      if (!url.ok) continue;
      const first = firstFileOf.get(url.url);
      if (first === undefined) firstFileOf.set(url.url, i);
      else parent[find(i)] = find(first);
    }
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < files.length; i++) {
    const root = find(i);
    const g = groups.get(root);
    if (g) g.push(i);
    else groups.set(root, [i]);
  }

  // Pass 2: per group of files, validate every record and hand out complete histories.
  const warnedRules = new Set<string>();
  const reportUnassignable = opts.reportUnassignable ?? true;
  for (const group of [...groups.values()].sort((a, b) => a[0]! - b[0]!)) {
    const byRepo = new Map<string, { scans: ScanRecord[]; grants: GrantRecord[] }>();
    for (const i of group) {
      const name = files[i]!;
      if (unreadable.has(i)) continue;
      const bytes = cache.get(i) ?? (await readOrReport(source, name, opts.report));
      cache.delete(i);
      if (bytes === undefined) continue;
      for (const item of parseStoreFile(name, bytes)) {
        const where = `${source.display(name)}:${item.line}`;
        if ('error' in item) {
          if (reportUnassignable) opts.report({ severity: 'error', where, message: `${item.error}; record skipped` });
          continue;
        }
        // The shard filter comes before the checks: a record is judged by the shard its URL
        // belongs to, and one without a valid URL by the shard that reports the unassignable.
        const url = canonicalRepositoryUrl((item.value as { repositoryUrl?: unknown } | null)?.repositoryUrl);
        if (url.ok ? opts.include && !opts.include(url.url) : !reportUnassignable) continue;
        const checked = checkRecordSafely(item.value, where, opts.catalog, url, opts.schemes);
        if (!checked.ok) {
          opts.report({ severity: 'error', where, message: `${checked.reason}; record skipped` });
          continue;
        }
        for (const ruleId of checked.unknownRules) {
          if (warnedRules.has(ruleId)) continue;
          warnedRules.add(ruleId);
          opts.report({
            severity: 'warning',
            where,
            message: `rule ${JSON.stringify(ruleId)} is not defined by the active thresholds; its values are ignored (reported once)`,
          });
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

function dropDuplicateScans(scans: ScanRecord[], report: (i: LoadIssue) => void): ScanRecord[] {
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
      });
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
function dropDuplicateGrants(grants: GrantRecord[], report: (i: LoadIssue) => void): GrantRecord[] {
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
      });
      continue;
    }
    first.set(key, g);
    out.push(g);
  }
  return out;
}

/**
 * A store file that alone cannot be read (not a regular file, too large, no permission) is a
 * bad file: reported by name, in every shard (each shard's output lacks its records), and the
 * other files are built. Any other failure (a store that cannot be reached) ends the build.
 */
async function readOrReport(source: StoreSource, name: string, report: (i: LoadIssue) => void): Promise<Uint8Array | undefined> {
  try {
    return await source.read(name);
  } catch (err) {
    if (!(err instanceof UnreadableStoreFile)) throw err;
    report({ severity: 'error', where: err.where, message: `${err.reason}; file skipped, the other files are built` });
    return undefined;
  }
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
