// The evaluate step: one repository's history judged by the active shape, for every moment
// the site answers (each scan's own time, each scan once expired, and the build's `now`).
// Render turns this result into files; anything else that shows badges (pages, summaries)
// reads the same result rather than evaluating again.
import type { DecisionFileB, ThresholdsA, ThresholdsB } from '../config/types.ts';
import type { RepositoryHistory, RuleCatalog } from '../load/types.ts';
import { catalogA, evaluateScanA, isExpired, type EvaluationA, type OptionsA } from './shape-a.ts';
import { catalogB, evaluateScanB, type EvaluationB } from './shape-b.ts';
import { DAY_SECONDS, expiresAt } from '../model/expiry.ts';

export interface RepositoryEvaluationOf<S extends 'A' | 'B', E> {
  shape: S;
  history: RepositoryHistory;
  /** The badge ids the site serves for this repository, in the order of the thresholds file. */
  badgeIds: readonly string[];
  /** scans[i] judges history.scans[i] at its own time (ascending by timestamp). */
  scans: E[];
  /**
   * Shape A with `expireAfterDays` only: expired[i] judges history.scans[i] at a moment after
   * it expired (every badge `expired`); what `?timestamp=T` answers once T is past
   * `expireAfterSeconds`. Absent otherwise.
   */
  expired?: E[];
  /** Present exactly when `expired` is: how long after its scan a badge expires. */
  expireAfterSeconds?: number;
  /** The build's `--now` (Unix s): the moment `latest` answers for. */
  now: number;
  /** The answer for `now`: the newest scan's evaluation (the same object as scans[last]) unless
   *  the answer at `now` differs from the one at the scan's time (Shape A expiry). */
  latest: E;
}

type RepositoryEvaluationA = RepositoryEvaluationOf<'A', EvaluationA>;
type RepositoryEvaluationB = RepositoryEvaluationOf<'B', EvaluationB>;
export type RepositoryEvaluation = RepositoryEvaluationA | RepositoryEvaluationB;

export interface Evaluator<R extends RepositoryEvaluation = RepositoryEvaluation> {
  readonly shape: 'A' | 'B';
  /** How the active thresholds judge each rule id: what load validates stored values against. */
  readonly catalog: RuleCatalog;
  readonly badgeIds: readonly string[];
  /** Judges a history with at least one scan. */
  evaluate(history: RepositoryHistory, now: number): R;
}

export function evaluatorA(
  t: ThresholdsA,
  expireAfterDays: number | null,
  options: OptionsA = {},
): Evaluator<RepositoryEvaluationA> {
  const badgeIds = t.badges.map((b) => b.id);
  const at = (h: RepositoryHistory, i: number, moment: number): EvaluationA =>
    evaluateScanA(t, h.scans[i]!, { at: moment, expireAfterDays }, options);
  return {
    shape: 'A',
    catalog: catalogA(t),
    badgeIds,
    evaluate(history, now) {
      const last = history.scans.length - 1;
      const scans = history.scans.map((s, i) => at(history, i, s.timestamp));
      const newest = history.scans[last]!.timestamp;
      const latest = isExpired(newest, { at: now, expireAfterDays })
        ? at(history, last, now)
        : scans[last]!;
      if (expireAfterDays === null) return { shape: 'A', history, badgeIds, scans, now, latest };
      // One second past the limit: the first moment `?timestamp=` answers with the expired files.
      const expired = history.scans.map((s, i) =>
        at(history, i, expiresAt(s.timestamp, expireAfterDays) + 1),
      );
      return {
        shape: 'A',
        history,
        badgeIds,
        scans,
        expired,
        expireAfterSeconds: expireAfterDays * DAY_SECONDS,
        now,
        latest,
      };
    },
  };
}

export function evaluatorB(
  t: ThresholdsB,
  decisions: ReadonlyMap<string, DecisionFileB>,
): Evaluator<RepositoryEvaluationB> {
  const badgeIds = t.badges.map((b) => b.id);
  return {
    shape: 'B',
    catalog: catalogB(t),
    badgeIds,
    evaluate(history, now) {
      // Grants apply as of the scan's own time, so the answer never depends on the build's --now.
      const scans = history.scans.map((s) => evaluateScanB(t, decisions, s, history.grants));
      return { shape: 'B', history, badgeIds, scans, now, latest: scans[scans.length - 1]! };
    },
  };
}
