// An issue's reaction findings kept between scans (issue 33, "Budget"): on a forge whose API
// answers no conditional request (the adapters that call it), the per-issue lists a scan reads to
// find an issue's reactions are its cost. The issues list, read every scan, says when each
// issue last changed; an issue unchanged since the last scan takes what its lists yielded then
// (each qualifying reactor's earliest reaction, and how many reactions had no readable time),
// and its lists are not asked. Correct only because every reaction the adapters count bumps
// the issue's `updated_at` (docs/reference/scan.md, "Reactions kept between scans", cites each
// forge's source); a deletion, which does not, changes the comment count the state also holds.
import { createHash } from 'node:crypto';
import type { KeptFindings } from '../../http/conditional-answers.ts';
import type { IssueReaction } from './rules.ts';

/**
 * Seconds an issue must have been unchanged before its finding is kept: a forge may skip
 * touching an issue updated less than a minute before (docs/reference/scan.md, "Reactions
 * kept between scans", names which), so a reaction in that minute leaves `updated_at` as it
 * was. Measured by the forge's own clock (its Date header), so a scanning machine's clock off
 * the forge's does not matter; with no forge clock, nothing is kept (ours may run minutes
 * ahead of the forge's, past the throttled minute).
 */
const SETTLED_SECONDS = 300;

/**
 * One issue's kept finding: `r`, [time, login] of each qualifying reactor's earliest reaction;
 * `u`, how many reactions had a time that does not read.
 */
interface Finding {
  r: Array<[number, string]>;
  u: number;
}

interface IssueFindings {
  /**
   * The reactions the last scan found on issue `id` when its state is the same (kept again for
   * the next scan), else undefined.
   */
  reuse(id: number, state: IssueState): IssueReaction[] | undefined;
  /** Keeps what issue `id`'s lists yielded, when it has been unchanged long enough to trust. */
  keep(id: number, state: IssueState, reactions: readonly IssueReaction[]): void;
}

/**
 * What the issues list says of an issue's state: when it last changed, and its count of
 * comments (a deleted comment lowers it without changing `updated_at`).
 */
interface IssueState {
  updatedAt: string | undefined;
  comments: number | undefined;
}

/**
 * The findings of one repository's scan. `qualifying`: the logins whose reactions count (the
 * maintainers that are no bot); a finding holds only theirs, so it is kept under a hash of
 * them: a change of membership or of the bot patterns that touches one of them reads every
 * issue again. `forgeNowMs`: the forge's clock (the Date header of its latest answer that sent a
 * valid one) before the per-issue lists are read, for SETTLED_SECONDS; undefined when no answer
 * sent one: no finding is kept (those kept before are still used). An earlier answer's Date is
 * earlier than the forge's now, so an issue can only look changed more recently than it was.
 */
export function issueFindings(
  kept: KeptFindings | undefined,
  qualifying: Iterable<string>,
  forgeNowMs: number | undefined,
): IssueFindings {
  const context = createHash('sha256')
    .update([...new Set(qualifying)].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
  const keyOf = (id: number, s: IssueState): string | undefined =>
    typeof s.updatedAt === 'string' && Number.isInteger(s.comments)
      ? `reactions ${context} ${id} ${s.updatedAt} ${s.comments}`
      : undefined;
  return {
    reuse(id, state) {
      const key = keyOf(id, state);
      const f = key === undefined ? undefined : kept?.finding(key);
      if (key === undefined || !isFinding(f)) return undefined;
      // Kept again for the scan after this one: the issue is as unchanged then as now.
      kept?.keepFinding(key, f);
      const reactions: IssueReaction[] = f.r.map(([at, login]) => ({
        at,
        actor: { login, bot: false, maintainer: true },
      }));
      for (let i = 0; i < f.u; i++)
        reactions.push({ at: NaN, actor: { login: '', bot: true, maintainer: false } });
      return reactions;
    },
    keep(id, state, reactions) {
      const key = keyOf(id, state);
      const updated = Date.parse(state.updatedAt ?? '');
      if (key === undefined || !kept || forgeNowMs === undefined) return;
      if (!(updated <= forgeNowMs - SETTLED_SECONDS * 1000)) return;
      const earliest = new Map<string, number>();
      let u = 0;
      for (const r of reactions) {
        if (!Number.isFinite(r.at)) u++;
        else if (!r.actor.bot && r.actor.maintainer)
          earliest.set(r.actor.login, Math.min(r.at, earliest.get(r.actor.login) ?? Infinity));
      }
      kept.keepFinding(key, {
        r: [...earliest].map(([login, at]) => [at, login]),
        u,
      } satisfies Finding);
    },
  };
}

function isFinding(f: unknown): f is Finding {
  if (!f || typeof f !== 'object') return false;
  const { r, u } = f as Partial<Finding>;
  return (
    Number.isInteger(u) &&
    (u as number) >= 0 &&
    Array.isArray(r) &&
    r.every(
      (x) =>
        Array.isArray(x) && x.length === 2 && Number.isFinite(x[0]) && typeof x[1] === 'string',
    )
  );
}
