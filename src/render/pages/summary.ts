// The compact per-repository summary the site-wide pages are written from, and its storage
// under .badgepress/summaries/ (a prefix the resolver never serves). A sharded build writes
// one file per shard; `badgepress site` reads the n files and writes the site-wide pages
// without reading any per-repository file. A build keeps each summary as the JSON line the
// file holds, not as the object it encodes: at 100,000 repositories the objects alone would
// take the build's whole memory budget, the lines a fraction of it; an incremental build
// carries a skipped repository's line forward unchanged in its state.
import { NDJSON_TYPE } from '../../model/http.ts';
import type { RepositoryHistory } from '../../load/types.ts';
import type { PublishFile } from '../../model/publish-file.ts';
import type { RepositoryEvaluations } from './context.ts';
import { statusChanges, type StatusChange } from './evaluate.ts';

export interface RepositorySummary {
  url: string;
  /** The key segment (encodeURIComponent of the canonical URL). */
  enc: string;
  scans: number;
  /** Unix seconds of the last scan. */
  last: number;
  /** Latest status per badge id (Shape B: fail when no level is granted). */
  badges: Record<string, string>;
  /** Latest status per rule id: Shape A its band's status, Shape B pass, fail or open. */
  rules: Record<string, string>;
  /** The newest status changes, oldest first; at most RECENT_CHANGES. */
  changes: StatusChange[];
}

const RECENT_CHANGES = 5;
export const SUMMARIES_PREFIX = '.badgepress/summaries/';

/** A summary as one line of JSON (without the newline). */
export type SummaryLine = string;

/**
 * The summaries of a site, sorted by URL: the order of every list the site-wide pages show.
 * `lines()` yields them in that order, each read only when it is reached.
 */
export interface SortedSummaries {
  urls: readonly string[];
  lines(): Iterable<SummaryLine>;
}

export function summaryLine(
  h: RepositoryHistory,
  ev: RepositoryEvaluations,
  changes: readonly StatusChange[] = statusChanges(ev),
): SummaryLine {
  return JSON.stringify(summarizeRepository(h, ev, changes));
}

function summarizeRepository(
  h: RepositoryHistory,
  ev: RepositoryEvaluations,
  changes: readonly StatusChange[] = statusChanges(ev),
): RepositorySummary {
  const badges: Record<string, string> = {};
  for (const b of ev.latest.badges) badges[b.def.id] = b.status;
  const rules: Record<string, string> = {};
  if (ev.shape === 'A') for (const c of ev.latest.criteria) rules[c.rule.id] = c.status;
  else for (const e of ev.latest.entries) for (const c of e.criteria) rules[c.rule.id] ??= c.status;
  return {
    url: h.repositoryUrl,
    enc: h.encoded,
    scans: h.scans.length,
    last: h.scans[h.scans.length - 1]!.timestamp,
    badges,
    rules,
    changes: changes.slice(-RECENT_CHANGES),
  };
}

/**
 * Lines per summaries file: past that a shard's summaries continue in numbered parts, so no
 * file's body (held whole while it is published, with its lines) grows with the catalogue
 * (the part size was chosen by measurement: docs/performance.md, "The whole scale run").
 */
export const SUMMARY_PART_LINES = 2_000;

/**
 * Where shard i of n keeps its summaries (an unsharded build is shard 0 of 1): part 1 is
 * `i-of-n.ndjson`, part k > 1 `i-of-n.k.ndjson`.
 */
export function summariesKey(index: number, count: number, part = 1): string {
  return `${SUMMARIES_PREFIX}${index}-of-${count}${part === 1 ? '' : `.${part}`}.ndjson`;
}

/** Order by UTF-16 code units, as the summaries are sorted everywhere. */
export const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Summary lines by repository URL, sorted by URL. */
export function sortSummaries(byUrl: ReadonlyMap<string, SummaryLine>): SortedSummaries {
  const urls = [...byUrl.keys()].sort(byCodeUnits);
  const lines = urls.map((u) => byUrl.get(u)!);
  return { urls, lines: () => lines };
}

/**
 * One summary per line, sorted by URL, so the files' bytes depend on the repositories alone:
 * one file of up to SUMMARY_PART_LINES lines (empty for no repository), then further parts.
 */
export function* summariesFiles(
  sorted: SortedSummaries,
  index: number,
  count: number,
): Generator<PublishFile> {
  const file = (part: number, lines: string[]): PublishFile => ({
    key: summariesKey(index, count, part),
    body: lines.length > 0 ? `${lines.join('\n')}\n` : '',
    contentType: NDJSON_TYPE,
    cacheControl: 'no-store',
    phase: 'latest',
  });
  let part = 1;
  let lines: string[] = [];
  for (const line of sorted.lines()) {
    lines.push(line);
    if (lines.length === SUMMARY_PART_LINES) {
      yield file(part++, lines);
      lines = [];
    }
  }
  if (lines.length > 0 || part === 1) yield file(part, lines);
}

/** The parts of shard i of n's summaries beyond `parts` among listed keys (left by a larger build). */
export function staleSummaryParts(
  keys: readonly string[],
  index: number,
  count: number,
  parts: number,
): string[] {
  const own = new RegExp(
    `^${SUMMARIES_PREFIX.replace(/\./g, '\\.')}${index}-of-${count}\\.(\\d+)\\.ndjson$`,
  );
  return keys.filter((k) => {
    const m = own.exec(k);
    return m !== null && Number(m[1]) > parts;
  });
}
