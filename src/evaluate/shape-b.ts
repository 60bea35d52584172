// Shape B evaluation: one entry per badge id and level, higher levels repeating the checks of
// lower ones; a level is granted when every criterion passes. Manual checks come from grant
// records and decision files. Pure functions: same inputs, same evaluation.
import type {
  BadgeDefB,
  DecisionFileB,
  LevelB,
  RuleB,
  ThresholdB,
  ThresholdsB,
} from '../config/types.ts';
import type { GrantRecord, RuleCatalog, ScanRecord } from '../load/types.ts';
import { measuredProvenance, partial, type Provenance } from './evidence.ts';
import { counted, lastMonths, numberText } from '../model/plural.ts';
import { numericValue } from './count-window.ts';
import { isoDate } from '../model/calendar.ts';
import type { Revision } from '../model/stored-value.ts';

type StatusB = 'pass' | 'fail' | 'open';
/** The badge's status: the highest granted level in lower case, or fail (pages show "none"). */
type BadgeStatusB = 'gold' | 'silver' | 'bronze' | 'fail';
/**
 * The explanation's badgeStatus: as BadgeStatusB, except that a badge whose lowest level fails
 * no check, only waits on values nobody has (open), is `unknown`: never fail for what was not
 * measured or decided (Shape A's extension, docs/reference/api.md).
 */
type ExplainedStatusB = BadgeStatusB | 'unknown';

const NIL = '<nil>';

/** What one rule comes to for one scan, before it is judged per badge level. */
interface RuleOutcome {
  /** null: could not be determined (not measured, no decision on a manual check). */
  value: number | null;
  /** What was found, or why there is no value. */
  provenance: Provenance;
}

export interface CriterionB {
  rule: RuleB;
  /** The rule's position in the thresholds file, which is tool.driver.rules. */
  ruleIndex: number;
  badgeId: string;
  badgeLevel: LevelB;
  value: number | null;
  /** The number as text, or `<nil>`. */
  valueText: string;
  status: StatusB;
  /** "Commits: at least 5 commits in the last 6 months (12)" */
  description: string;
  /** Absent on open criteria (the contract's field). */
  evidence?: string;
  /** The evidence (on open criteria too: why there is no value) and the commit measured. */
  provenance: Provenance;
}

export interface BadgeEntryB {
  def: BadgeDefB;
  level: LevelB;
  /** The checks of this level and of every level below it, each carrying its own level. */
  criteria: CriterionB[];
  granted: boolean;
  isHighestGranted: boolean;
}

export interface BadgeB {
  def: BadgeDefB;
  entries: BadgeEntryB[];
  status: BadgeStatusB;
  /** What the explanation publishes: `unknown` where `status` is fail only for open checks. */
  explainedStatus: ExplainedStatusB;
  /** The entry the explanation shows: the highest level the badge defines, granted or not. */
  explained: BadgeEntryB;
  conclusion: string;
}

export interface EvaluationB {
  timestamp: number;
  /** The commit the scan measured, when its record names it. */
  revision?: Revision;
  repositoryUrl: string;
  /** Every entry of every badge, in the order of the thresholds file. */
  entries: BadgeEntryB[];
  badges: BadgeB[];
}

export function catalogB(t: ThresholdsB): RuleCatalog {
  const kinds = new Map(
    t.rules.map((r) => [r.id, r.manual ? ('manual' as const) : ('numeric' as const)]),
  );
  return (id) => kinds.get(id);
}

function passes(threshold: ThresholdB, value: number): boolean {
  return (
    (threshold.min === undefined || value >= threshold.min) &&
    (threshold.max === undefined || value <= threshold.max)
  );
}

/**
 * A manual check at time `at`. Precedence: the newest grant record at or before `at` decides
 * (granted:false revokes), because it is dated and names this repository; without one, the
 * rule's decision file grants when it lists the URL or a pattern matches; else undecided.
 */
function manualOutcome(
  ruleId: string,
  repositoryUrl: string,
  at: number,
  grants: readonly GrantRecord[],
  decision: DecisionFileB | undefined,
): RuleOutcome {
  const decided = manualDecision(ruleId, repositoryUrl, at, grants, decision);
  const evidence =
    decided.evidence ?? 'Not decided: no grant record by the scan and no decision file grants it.';
  return { value: decided.value, provenance: { evidence, scannedAt: at } };
}

function manualDecision(
  ruleId: string,
  repositoryUrl: string,
  at: number,
  grants: readonly GrantRecord[],
  decision: DecisionFileB | undefined,
): { value: number | null; evidence?: string } {
  let record: GrantRecord | undefined;
  for (const g of grants)
    if (g.ruleId === ruleId && g.timestamp <= at && (!record || g.timestamp >= record.timestamp))
      record = g;
  if (record) {
    const who = `${record.by !== undefined ? ` by ${record.by}` : ''} on ${isoDate(record.timestamp)}`;
    const note = record.note !== undefined ? `: ${record.note}` : '';
    return record.granted
      ? { value: 1, evidence: `Granted manually${who}${note}.` }
      : { value: 0, evidence: `Not granted: revoked${who}${note}.` };
  }
  if (decision) {
    const by = decision.by !== undefined ? ` by ${decision.by}` : '';
    if (decision.granted.includes(repositoryUrl)) {
      return {
        value: 1,
        evidence: `Granted manually${by} (decision file ${decision.name} lists the repository).`,
      };
    }
    const pattern = decision.grantedRegex.find((re) => re.test(repositoryUrl));
    if (pattern) {
      return {
        value: 1,
        evidence: `Granted manually${by} (decision file ${decision.name}: the repository matches ${pattern.source}).`,
      };
    }
  }
  return { value: null };
}

function measuredOutcome(rule: RuleB, scan: ScanRecord): RuleOutcome {
  const shown = numericValue(
    scan.values[rule.id],
    scan.timestamp,
    rule.threshold.timeRangeInMonths,
  );
  // A partial count below the threshold proves nothing: open, as a value nobody measured.
  if (shown.value !== null && !passes(rule.threshold, shown.value) && partial(rule.id, scan)) {
    return { value: null, provenance: measuredProvenance(rule.id, scan, { value: null }, '') };
  }
  return {
    value: shown.value,
    provenance: measuredProvenance(
      rule.id,
      scan,
      shown,
      shown.value === null ? '' : counted(shown.value, rule.unit),
    ),
  };
}

function ruleOutcome(
  rule: RuleB,
  scan: ScanRecord,
  grants: readonly GrantRecord[],
  decisions: ReadonlyMap<string, DecisionFileB>,
): RuleOutcome {
  return rule.manual
    ? manualOutcome(rule.id, scan.repositoryUrl, scan.timestamp, grants, decisions.get(rule.id))
    : measuredOutcome(rule, scan);
}

/** "at least 5 commits in the last 6 months"; manual: "granted manually". */
export function thresholdText(rule: RuleB): string {
  if (rule.manual) return 'granted manually';
  const { min, max, timeRangeInMonths } = rule.threshold;
  const bound =
    min !== undefined && max !== undefined
      ? `between ${numberText(min)} and ${counted(max, rule.unit)}`
      : min !== undefined
        ? `at least ${counted(min, rule.unit)}`
        : `at most ${counted(max!, rule.unit)}`;
  return timeRangeInMonths !== undefined ? `${bound} in ${lastMonths(timeRangeInMonths)}` : bound;
}

function criterion(
  rule: RuleB,
  ruleIndex: number,
  outcome: RuleOutcome,
  badgeId: string,
  badgeLevel: LevelB,
): CriterionB {
  const valueText = outcome.value === null ? NIL : String(outcome.value);
  const status: StatusB =
    outcome.value === null ? 'open' : passes(rule.threshold, outcome.value) ? 'pass' : 'fail';
  return {
    rule,
    ruleIndex,
    badgeId,
    badgeLevel,
    value: outcome.value,
    valueText,
    status,
    description: `${rule.name}: ${thresholdText(rule)} (${valueText})`,
    ...(status !== 'open' ? { evidence: outcome.provenance.evidence } : {}),
    provenance: outcome.provenance,
  };
}

export function evaluateScanB(
  t: ThresholdsB,
  decisions: ReadonlyMap<string, DecisionFileB>,
  scan: ScanRecord,
  grants: readonly GrantRecord[],
): EvaluationB {
  const indexOf = new Map(t.rules.map((r, i) => [r.id, i]));
  const outcomes = t.rules.map((r) => ruleOutcome(r, scan, grants, decisions));
  const badges = t.badges.map((def): BadgeB => {
    const entries: BadgeEntryB[] = [];
    const inherited: Array<{ ruleId: string; level: LevelB }> = [];
    for (const level of def.levels) {
      inherited.push(...level.checks.map((ruleId) => ({ ruleId, level: level.level })));
      const criteria = inherited.map(({ ruleId, level: own }) => {
        const i = indexOf.get(ruleId)!;
        return criterion(t.rules[i]!, i, outcomes[i]!, def.id, own);
      });
      entries.push({
        def,
        level: level.level,
        criteria,
        granted: criteria.every((c) => c.status === 'pass'),
        isHighestGranted: false,
      });
    }
    const highest = entries.findLast((e) => e.granted);
    if (highest) highest.isHighestGranted = true;
    const status: BadgeStatusB = highest ? (highest.level.toLowerCase() as BadgeStatusB) : 'fail';
    const explained = entries[entries.length - 1]!;
    // Higher levels repeat the lowest's checks: when none of those fails, no level failed on a value.
    const explainedStatus: ExplainedStatusB =
      highest || entries[0]!.criteria.some((c) => c.status === 'fail') ? status : 'unknown';
    return {
      def,
      entries,
      status,
      explainedStatus,
      explained,
      conclusion: conclusion(def, entries, highest, explained),
    };
  });
  return {
    timestamp: scan.timestamp,
    ...(scan.revision ? { revision: scan.revision } : {}),
    repositoryUrl: scan.repositoryUrl,
    entries: badges.flatMap((b) => b.entries),
    badges,
  };
}

/** A check that does not pass, in the conclusion people read: an open one says why, never `<nil>`. */
function notPassing(c: CriterionB): string {
  if (c.status !== 'open') return `${c.description} is ${c.status}`;
  return `${c.rule.name}: ${thresholdText(c.rule)} is open (${c.provenance.evidence.replace(/\.+$/, '')})`;
}

function conclusion(
  def: BadgeDefB,
  entries: BadgeEntryB[],
  highest: BadgeEntryB | undefined,
  explained: BadgeEntryB,
): string {
  const head = highest
    ? `${def.id} is granted at ${highest.level}`
    : `${def.id} is not granted at any level`;
  const levels = entries
    .map((e) => `${e.level} ${e.granted ? 'granted' : 'not granted'}`)
    .join(', ');
  const missing = explained.criteria.filter((c) => c.status !== 'pass').map(notPassing);
  const why = missing.length > 0 ? `; not passing: ${missing.join('; ')}` : '';
  return `${head} (${levels})${why}. The criteria shown are those of ${explained.level}, the highest level the badge defines.`;
}
