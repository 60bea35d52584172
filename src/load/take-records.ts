// One group's records taken into repository histories: each record checked (a bad one
// reported with its file:line and skipped), then per repository its scans and grant records
// in time order, a duplicate of either reported and skipped.
import { isMeasuredRule } from '../model/measured-rules.ts';
import { canonicalRepositoryUrl, type CanonicalResult } from '../model/repository-url.ts';
import type { ParsedItem } from './parse-file.ts';
import type { StoreSource } from './store.ts';
import type {
  GrantRecord,
  IssueOwner,
  LoadIssue,
  RepositoryHistory,
  RuleCatalog,
  ScanRecord,
} from './types.ts';
import { checkRecord } from './validate-record.ts';

/** A group's records by repository URL, as read. */
export type ByRepository = Map<string, { scans: ScanRecord[]; grants: GrantRecord[] }>;

interface TakeOptions {
  catalog: RuleCatalog;
  report: (issue: LoadIssue, owner?: IssueOwner) => void;
  include?: (repositoryUrl: string) => boolean;
  schemes?: readonly string[];
}

export class RecordTaker {
  /** Rules no threshold defines, warned about once a load. */
  private readonly warnedRules = new Set<string>();
  private readonly source: Pick<StoreSource, 'display'>;
  private readonly opts: TakeOptions;
  private readonly reportUnassignable: boolean;
  constructor(
    source: Pick<StoreSource, 'display'>,
    opts: TakeOptions,
    reportUnassignable: boolean,
  ) {
    this.source = source;
    this.opts = opts;
    this.reportUnassignable = reportUnassignable;
  }

  take(name: string, item: ParsedItem, byRepo: ByRepository): void {
    const where = `${this.source.display(name)}:${item.line}`;
    if ('error' in item) {
      if (this.reportUnassignable)
        this.opts.report(
          { severity: 'error', where, message: `${item.error}; record skipped` },
          { file: name },
        );
      return;
    }
    // The shard filter comes before the checks: a record is judged by the shard its URL
    // belongs to, and one without a valid URL by the shard that reports the unassignable.
    const url = canonicalRepositoryUrl(
      (item.value as { repositoryUrl?: unknown } | null)?.repositoryUrl,
    );
    if (url.ok ? this.opts.include && !this.opts.include(url.url) : !this.reportUnassignable)
      return;
    const owner: IssueOwner = url.ok ? { repositoryUrl: url.url } : { file: name };
    const checked = checkRecordSafely(item.value, where, this.opts.catalog, url, this.opts.schemes);
    if (!checked.ok) {
      this.opts.report(
        { severity: 'error', where, message: `${checked.reason}; record skipped` },
        owner,
      );
      return;
    }
    for (const ruleId of checked.unknownRules) {
      // badgepress scan measures these whatever the thresholds judge: no surprise to report.
      if (this.warnedRules.has(ruleId) || isMeasuredRule(ruleId)) continue;
      this.warnedRules.add(ruleId);
      this.opts.report(
        {
          severity: 'warning',
          where,
          message: `rule ${JSON.stringify(ruleId)} is not defined by the active thresholds; its values are ignored (reported once)`,
        },
        owner,
      );
    }
    const rec = checked.record;
    let h = byRepo.get(rec.repositoryUrl);
    if (!h) byRepo.set(rec.repositoryUrl, (h = { scans: [], grants: [] }));
    if (rec.kind === 'scan') h.scans.push(rec);
    else h.grants.push(rec);
  }

  *histories(byRepo: ByRepository, passOne: (url: string) => string): Generator<RepositoryHistory> {
    for (const read of [...byRepo.keys()].sort()) {
      const h = byRepo.get(read)!;
      const url = passOne(read);
      const scans = dropDuplicateScans(h.scans, this.opts.report);
      const grants = dropDuplicateGrants(h.grants, this.opts.report);
      const encoded = encodeURIComponent(url);
      yield { repositoryUrl: url, encoded, scans, grants };
    }
  }
}

/** The canonical URL a record names, or '' (bucket 0) when it names none. */
export function urlOf(item: ParsedItem): string {
  if ('error' in item) return '';
  const url = canonicalRepositoryUrl(
    (item.value as { repositoryUrl?: unknown } | null)?.repositoryUrl,
  );
  return url.ok ? url.url : '';
}

/**
 * One record per time. A record listing failed rules is completed by a record at the same time
 * that fails fewer of them (a later scan measured them again): of the records at one time the
 * one with the fewest failed rules is used, the first in the store of those, and a record it
 * completes (one failing every rule it fails, and more) is set aside without a word. Any other
 * record at that time is a duplicate, reported and skipped.
 */
function dropDuplicateScans(scans: ScanRecord[], report: TakeOptions['report']): ScanRecord[] {
  // Stable sort keeps store order among equal times, so "first" means first in the store.
  scans.sort((a, b) => a.timestamp - b.timestamp);
  const out: ScanRecord[] = [];
  for (let i = 0; i < scans.length; ) {
    let j = i + 1;
    while (j < scans.length && scans[j]!.timestamp === scans[i]!.timestamp) j++;
    const group = scans.slice(i, j);
    i = j;
    const failedOf = (s: ScanRecord) => s.failed?.length ?? 0;
    const used = group.reduce((best, s) => (failedOf(s) < failedOf(best) ? s : best));
    out.push(used);
    for (const s of group) {
      if (s === used) continue;
      const completed =
        failedOf(s) > failedOf(used) && (used.failed ?? []).every((r) => s.failed!.includes(r));
      if (completed) continue;
      report(
        {
          severity: 'error',
          where: s.source,
          message: `duplicate scan of ${s.repositoryUrl} at ${s.timestamp} (first at ${used.source}); record skipped`,
        },
        { repositoryUrl: s.repositoryUrl },
      );
    }
  }
  return out;
}

/**
 * Two grant records for the same rule at the same time would be decided by store order alone,
 * so the later one in the store is a bad record, as a duplicate scan is.
 */
function dropDuplicateGrants(grants: GrantRecord[], report: TakeOptions['report']): GrantRecord[] {
  grants.sort((a, b) => a.timestamp - b.timestamp);
  const first = new Map<string, GrantRecord>();
  const out: GrantRecord[] = [];
  for (const g of grants) {
    const key = `${g.timestamp}\u0000${g.ruleId}`;
    const prev = first.get(key);
    if (prev) {
      report(
        {
          severity: 'error',
          where: g.source,
          message: `duplicate grant record for ${JSON.stringify(g.ruleId)} of ${g.repositoryUrl} at ${g.timestamp} (first at ${prev.source}); record skipped`,
        },
        { repositoryUrl: g.repositoryUrl },
      );
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
function checkRecordSafely(
  value: unknown,
  where: string,
  catalog: RuleCatalog,
  url: CanonicalResult,
  schemes: readonly string[] | undefined,
): ReturnType<typeof checkRecord> {
  try {
    return checkRecord(value, where, catalog, url, schemes);
  } catch (err) {
    return {
      ok: false,
      reason: `the record could not be checked (${(err as Error).message}); write it as plain JSON of the documented shape`,
    };
  }
}
