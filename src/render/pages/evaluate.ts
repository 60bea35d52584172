// Status histories and changes derived from a repository's evaluations (the build's evaluate
// step), for the pages, the feed and the summaries.
import { UNKNOWN } from '../../model/status.ts';
import type { RepositoryEvaluations } from './context.ts';

/** Status per badge per scan (at scan time), and the latest statuses, as plain strings. */
function statusHistory(ev: RepositoryEvaluations): {
  badgeIds: string[];
  perScan: Array<{ t: number; statuses: string[] }>;
  latest: string[];
} {
  const badgeIds = ev.latest.badges.map((b) => b.def.id);
  const perScan = ev.scans.map((s) => ({
    t: s.timestamp,
    statuses: s.badges.map((b) => b.status as string),
  }));
  return { badgeIds, perScan, latest: ev.latest.badges.map((b) => b.status as string) };
}

export interface StatusChange {
  t: number;
  badge: string;
  /** null: the first scan. */
  from: string | null;
  to: string;
}

/** Every change of a badge's status from one scan to the next, oldest first (the first scan counts). */
export function statusChanges(ev: RepositoryEvaluations): StatusChange[] {
  const { badgeIds, perScan } = statusHistory(ev);
  const out: StatusChange[] = [];
  perScan.forEach((s, i) => {
    badgeIds.forEach((badge, j) => {
      const from = i === 0 ? null : perScan[i - 1]!.statuses[j]!;
      const to = s.statuses[j]!;
      if (from !== to) out.push({ t: s.t, badge, from, to });
    });
  });
  return out;
}

/**
 * Why a badge had no measured status at scan time `t`: "Issue reaction time has no value (not
 * measured: …)" per criterion that kept it unknown (Shape A), or kept its lowest level from
 * being decided (Shape B, open); none when measured values decided it.
 */
export function unknownCauses(ev: RepositoryEvaluations, t: number, badgeId: string): string[] {
  const has = (rule: string, why: string) => `${rule} has no value (${why.replace(/\.+$/, '')})`;
  if (ev.shape === 'A') {
    const badge = ev.scans.find((s) => s.timestamp === t)?.badges.find((b) => b.def.id === badgeId);
    if (badge?.status !== UNKNOWN) return [];
    return badge.criteria
      .filter((c) => c.status === UNKNOWN)
      .map((c) => has(c.rule.name, c.cause ?? 'not measured'));
  }
  const badge = ev.scans.find((s) => s.timestamp === t)?.badges.find((b) => b.def.id === badgeId);
  if (badge?.explainedStatus !== UNKNOWN) return [];
  return badge.entries[0]!.criteria.filter((c) => c.status === 'open').map((c) =>
    has(c.rule.name, c.provenance.evidence),
  );
}
