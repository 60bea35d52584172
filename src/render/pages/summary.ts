// The compact per-repository summary the site-wide pages are written from, and its storage
// under .badgepress/summaries/ (a prefix the resolver never serves). A sharded build writes
// one file per shard; `badgepress site` reads the n files and writes the site-wide pages
// without reading any per-repository file. A summary is a plain JSON object, so an
// incremental build can carry a skipped repository's summary forward unchanged.
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

export function compareUrls(a: RepositorySummary, b: RepositorySummary): number {
  return a.url < b.url ? -1 : a.url > b.url ? 1 : 0;
}

/** One summary per line, sorted by URL, so the file's bytes depend on the repositories alone. */
export function summariesFile(summaries: readonly RepositorySummary[], index: number, count: number): SiteFile {
  const body = [...summaries].sort(compareUrls).map((s) => `${JSON.stringify(s)}\n`).join('');
  return { key: summariesKey(index, count), body, contentType: 'application/x-ndjson', cacheControl: 'no-store', phase: 'latest' };
}

export class MissingSummariesError extends Error {}

/** The summaries of shards 0..count-1, merged and sorted by URL. */
export async function readSummaries(sink: Sink, count: number): Promise<RepositorySummary[]> {
  const all: RepositorySummary[] = [];
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
        all.push(JSON.parse(line) as RepositorySummary);
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
  return all.sort(compareUrls);
}
