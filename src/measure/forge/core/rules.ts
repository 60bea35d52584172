// The forge rules, once for every forge: the adapters hand in issues, runs, releases and
// package versions in one shape, and these functions turn them into each scan time's value.
import { windowStart } from '../../../model/calendar.ts';

export interface Actor {
  login: string;
  bot: boolean;
  /** As the forge defines it (see each adapter): owner, member, collaborator, Reporter or above. */
  maintainer: boolean;
}

/** A comment or triage action (label, assignment, milestone, close) on an issue. */
export interface IssueReaction {
  at: number;
  actor: Actor;
}

export interface ForgeIssue {
  createdAt: number;
  author: Actor;
  reactions: IssueReaction[];
}

interface ReactionTime {
  /** Mean days from opening to the first maintainer reaction, two decimals. */
  days: number;
  issues: number;
  /** Issues with no reaction by the scan time, counted with their age then. */
  unanswered: number;
  /** Issues and reactions left out because the forge sent a date that does not read as one. */
  unreadable: number;
}

/**
 * The issue reaction time (RULE.issueReactionTime) at `end`: issues opened in the window (S, end] by someone neither a bot
 * nor a maintainer; each reacts at the earliest comment or triage action by a non-bot
 * maintainer other than its author, or counts with its age at `end` (an ignored issue must hurt).
 */
export function reactionTime(
  issues: readonly ForgeIssue[],
  end: number,
  months: number,
): ReactionTime | null {
  const start = windowStart(end, months);
  let seconds = 0;
  let count = 0;
  let unanswered = 0;
  // An item whose date does not read (NaN) is left out and counted; the others still count.
  let unreadable = 0;
  for (const issue of issues) {
    if (!Number.isFinite(issue.createdAt)) {
      unreadable++;
      continue;
    }
    if (issue.createdAt <= start || issue.createdAt > end) continue;
    if (issue.author.bot || issue.author.maintainer) continue;
    let first = Infinity;
    for (const r of issue.reactions) {
      if (!Number.isFinite(r.at)) {
        unreadable++;
        continue;
      }
      if (r.at > end || r.actor.bot || !r.actor.maintainer || r.actor.login === issue.author.login)
        continue;
      first = Math.min(first, r.at);
    }
    if (first === Infinity) {
      unanswered++;
      first = end;
    }
    seconds += Math.max(0, first - issue.createdAt);
    count++;
  }
  if (count === 0) return null;
  return {
    days: Math.round((seconds / count / 86400) * 100) / 100,
    issues: count,
    unanswered,
    unreadable,
  };
}

/** The events an event rule stores at `end`: those in (end − horizon, end], ascending. */
export function eventsAt(times: readonly number[], end: number, horizonMonths: number): number[] {
  const start = windowStart(end, horizonMonths);
  return times.filter((t) => t > start && t <= end).sort((a, b) => a - b);
}

/** Unix seconds of an ISO 8601 time from an API; NaN when absent or unreadable. */
export function unixOf(iso: string | null | undefined): number {
  return iso ? Math.floor(Date.parse(iso) / 1000) : NaN;
}
