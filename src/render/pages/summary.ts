// The compact per-repository summary the site-wide pages are written from, and its storage
// under .badgepress/summaries/ (a prefix the resolver never serves). A sharded build writes
// one file per shard; `badgepress site` reads the n files and writes the site-wide pages
// without reading any per-repository file. A build keeps each summary as the JSON line the
// file holds, not as the object it encodes: at 100,000 repositories the objects alone would
// take the build's whole memory budget, the lines a fraction of it; an incremental build
// carries a skipped repository's line forward unchanged in its state.
import type { RepositoryHistory } from '../../load/types.ts';
import type { SiteFile } from '../site-files.ts';
import type { Sink } from '../../publish/sink.ts';
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

export const RECENT_CHANGES = 5;
export const SUMMARIES_PREFIX = '.badgepress/summaries/';

/** A summary as one line of JSON (without the newline). */
export type SummaryLine = string;

/** The summaries of a site, sorted by URL: the order of every list the site-wide pages show. */
export interface SortedSummaries {
  urls: readonly string[];
  lines: readonly SummaryLine[];
}

export function summaryLine(h: RepositoryHistory, ev: RepositoryEvaluations, changes: readonly StatusChange[] = statusChanges(ev)): SummaryLine {
  return JSON.stringify(summarizeRepository(h, ev, changes));
}

export function summarizeRepository(h: RepositoryHistory, ev: RepositoryEvaluations, changes: readonly StatusChange[] = statusChanges(ev)): RepositorySummary {
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

/** Where shard i of n keeps its summaries (an unsharded build is shard 0 of 1). */
export function summariesKey(index: number, count: number): string {
  return `${SUMMARIES_PREFIX}${index}-of-${count}.ndjson`;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Summary lines by repository URL, sorted by URL. */
export function sortSummaries(byUrl: ReadonlyMap<string, SummaryLine>): SortedSummaries {
  const urls = [...byUrl.keys()].sort(byCodeUnits);
  return { urls, lines: urls.map((u) => byUrl.get(u)!) };
}

/** One summary per line, sorted by URL, so the file's bytes depend on the repositories alone. */
export function summariesFile(sorted: SortedSummaries, index: number, count: number): SiteFile {
  const body = sorted.lines.length > 0 ? `${sorted.lines.join('\n')}\n` : '';
  return { key: summariesKey(index, count), body, contentType: 'application/x-ndjson', cacheControl: 'no-store', phase: 'latest' };
}

export class MissingSummariesError extends Error {}

/** The summaries of shards 0..count-1, merged and sorted by URL. */
export async function readSummaries(sink: Sink, count: number): Promise<SortedSummaries> {
  const all = new Map<string, SummaryLine>();
  const missing: number[] = [];
  for (let i = 0; i < count; i++) {
    const bytes = await sink.read(summariesKey(i, count));
    if (!bytes) {
      missing.push(i);
      continue;
    }
    const lines = new TextDecoder().decode(bytes).split('\n');
    lines.forEach((line, n) => {
      if (line.trim() === '') return;
      try {
        const url = (JSON.parse(line) as RepositorySummary).url;
        if (typeof url !== 'string') throw new Error('no url');
        all.set(url, line);
      } catch {
        throw new MissingSummariesError(`${sink.location}/${summariesKey(i, count)}:${n + 1}: not a JSON summary; run "badgepress build --shard ${i}/${count}" again`);
      }
    });
  }
  if (missing.length > 0) {
    throw new MissingSummariesError(
      `no summaries of shard${missing.length === 1 ? '' : 's'} ${missing.map((i) => `${i}/${count}`).join(', ')} in ${sink.location}/${SUMMARIES_PREFIX}; ` +
        `run "badgepress build --shard i/${count}" for each shard first`,
    );
  }
  return sortSummaries(all);
}
