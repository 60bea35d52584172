// A repository's evaluations as the pages need them: every scan at its own time, and the
// latest answer at the build's --now (Shape A expiry).
import { evaluateScanA } from '../../evaluate/shape-a.ts';
import { evaluateScanB } from '../../evaluate/shape-b.ts';
import type { RepositoryHistory } from '../../load/types.ts';
import type { PagesContext, RepositoryEvaluations } from './context.ts';

export function evaluateForPages(ctx: PagesContext, h: RepositoryHistory, now: number): RepositoryEvaluations {
  const th = ctx.thresholds;
  const last = h.scans[h.scans.length - 1]!;
  if (th.shape === 'A') {
    const expireAfterDays = ctx.site.expireAfterDays;
    const scans = h.scans.map((s) => evaluateScanA(th.t, s, { at: s.timestamp, expireAfterDays }));
    return { shape: 'A', scans, latest: evaluateScanA(th.t, last, { at: now, expireAfterDays }) };
  }
  const scans = h.scans.map((s) => evaluateScanB(th.t, th.decisions, s, h.grants));
  return { shape: 'B', scans, latest: scans[scans.length - 1]! };
}

/** Status per badge per scan (at scan time), and the latest statuses, as plain strings. */
export function statusHistory(ev: RepositoryEvaluations): { badgeIds: string[]; perScan: Array<{ t: number; statuses: string[] }>; latest: string[] } {
  const badgeIds = ev.latest.badges.map((b) => b.def.id);
  const perScan = ev.scans.map((s) => ({ t: s.timestamp, statuses: s.badges.map((b) => b.status as string) }));
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
