// Shape A evaluation: value → band → status, badge status = worst criterion. Pure functions.
import type { BadgeDefA, BadgeStatus, Band, RuleA, StatusA, ThresholdsA } from '../config/types.ts';
import type { RuleCatalog, ScanRecord } from '../load/types.ts';
import { isoDate, numericValue } from './count-window.ts';
import { STATUS_RANK } from '../model/status.ts';
import { expiredAt } from '../model/expiry.ts';

export interface CriterionA {
  rule: RuleA;
  /** The evaluated value; null when it could not be determined. */
  value: number | boolean | null;
  status: StatusA;
  /** The band that holds the value (numeric rules with a value only). */
  range?: { min: number; max: number | null };
  /** A rule is met unless its status is fail. */
  met: boolean;
  /** "Issue reaction time is 3 days" */
  description: string;
  /** "Issue reaction time is 3 days: silver (2..7 days)." */
  message: string;
}

export interface BadgeA {
  def: BadgeDefA;
  status: BadgeStatus;
  criteria: CriterionA[];
  conclusion: string;
}

export interface EvaluationA {
  timestamp: number;
  /** One per rule, in the order of the thresholds file. */
  criteria: CriterionA[];
  badges: BadgeA[];
}

export function catalogA(t: ThresholdsA): RuleCatalog {
  const kinds = new Map(t.rules.map((r) => [r.id, r.type === 'boolean' ? ('boolean' as const) : ('numeric' as const)]));
  return (id) => kinds.get(id);
}

/** The band holding v: bands cover 0..∞ in integer steps, so a fraction belongs with its floor. */
function bandFor(bands: Band[], v: number): Band {
  let best: Band | undefined;
  for (const b of bands) if (b.min <= v && (!best || b.min > best.min)) best = b;
  return best ?? bands.reduce((a, b) => (b.min < a.min ? b : a));
}

function evaluateRuleA(rule: RuleA, scan: ScanRecord): CriterionA {
  const stored = scan.values[rule.id];
  if (rule.type === 'boolean') {
    if (typeof stored !== 'boolean') return undetermined(rule);
    const status = stored ? rule.positiveStatus : rule.negativeStatus;
    const description = `${rule.name} is ${stored ? 'present' : 'absent'}`;
    return { rule, value: stored, status, met: status !== 'fail', description, message: `${description}: ${status}.` };
  }
  const { value, window } = numericValue(stored, scan.timestamp, rule.timeRangeInMonths);
  if (value === null) return undetermined(rule);
  const band = bandFor(rule.thresholds, value);
  const unit = rule.unit ? ` ${rule.unit}` : '';
  const counted = window ? ` between ${isoDate(window.from)} and ${isoDate(window.to)}` : '';
  const description = `${rule.name} is ${value}${unit}${counted}`;
  const range = { min: band.min, max: band.max };
  const bandText = `${band.min}..${band.max ?? 'unbounded'}${unit}`;
  return {
    rule,
    value,
    status: band.status,
    range,
    met: band.status !== 'fail',
    description,
    message: `${description}: ${band.status} (${bandText}).`,
  };
}

function undetermined(rule: RuleA): CriterionA {
  const description = `${rule.name} could not be determined`;
  return { rule, value: null, status: 'fail', met: false, description, message: `${description}: fail.` };
}

export interface AsOf {
  /** The moment the answer is for: build time for latest files, a requested time otherwise. */
  at: number;
  expireAfterDays: number | null;
}

export function evaluateScanA(t: ThresholdsA, scan: ScanRecord, asOf?: AsOf): EvaluationA {
  const criteria = t.rules.map((r) => evaluateRuleA(r, scan));
  const byId = new Map(criteria.map((c) => [c.rule.id, c]));
  const expired = asOf !== undefined && isExpired(scan.timestamp, asOf);
  const badges = t.badges.map((def): BadgeA => {
    const cs = def.criteria.map((id) => byId.get(id)!);
    const worst = cs.reduce<StatusA>((w, c) => (STATUS_RANK[c.status] < STATUS_RANK[w] ? c.status : w), 'gold');
    const summary = cs.map((c) => `${c.description} (${c.status})`).join('; ');
    if (expired) {
      return {
        def,
        status: 'expired',
        criteria: cs,
        conclusion: `${def.id} has expired: its scan of ${isoDate(scan.timestamp)} is more than ${asOf!.expireAfterDays} days old. It was ${worst}: ${summary}.`,
      };
    }
    return { def, status: worst, criteria: cs, conclusion: `${def.id} is ${worst}: ${summary}.` };
  });
  return { timestamp: scan.timestamp, criteria, badges };
}

/** Expired when the moment asked about lies more than expireAfterDays after the scan. */
export function isExpired(scanTime: number, asOf: AsOf): boolean {
  return expiredAt(scanTime, asOf.expireAfterDays, asOf.at);
}
