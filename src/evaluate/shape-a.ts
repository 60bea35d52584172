// Shape A evaluation: value → band → status; a value nobody measured is unknown, never a
// band. Badge status: fail if any criterion fails, else unknown if any is unknown, else the
// worst band. Pure functions.
import type { BadgeDefA, BadgeStatus, Band, RuleA, ThresholdsA } from '../config/types.ts';
import type { RuleCatalog, ScanRecord } from '../load/types.ts';
import { measuredProvenance, notMeasured, partial, type Provenance } from './evidence.ts';
import { numericValue } from './count-window.ts';
import { isoDate } from '../model/calendar.ts';
import { counted } from '../model/plural.ts';
import { STATUS_RANK, UNKNOWN, type ContractStatusA, type StatusA } from '../model/status.ts';
import { expiredAt } from '../model/expiry.ts';
import type { Revision } from '../model/stored-value.ts';

export interface CriterionA {
  rule: RuleA;
  /** The evaluated value; null when it was not measured. */
  value: number | boolean | null;
  /** A band's status; `unknown` without a value (or what `unknownAs` publishes it as). */
  status: BadgeStatus;
  /** Without a value: why, in words ("not measured: GitHub API did not answer"). */
  cause?: string;
  /** The band that holds the value (numeric rules with a value only). */
  range?: { min: number; max: number | null };
  /** A rule is met when its value falls in a band other than fail; unknown is not met. */
  met: boolean;
  /** "Issue reaction time is 3 days"; "Issue reaction time is unknown (not measured: …)" */
  description: string;
  /** "Issue reaction time is 3 days: silver (2..7 days)." */
  message: string;
  /** The evidence beside the value and the commit measured. */
  provenance: Provenance;
}

export interface BadgeA {
  def: BadgeDefA;
  status: BadgeStatus;
  criteria: CriterionA[];
  conclusion: string;
}

export interface EvaluationA {
  timestamp: number;
  /** The commit the scan measured, when its record names it. */
  revision?: Revision;
  /** One per rule, in the order of the thresholds file. */
  criteria: CriterionA[];
  badges: BadgeA[];
}

export function catalogA(t: ThresholdsA): RuleCatalog {
  const kinds = new Map(
    t.rules.map((r) => [r.id, r.type === 'boolean' ? ('boolean' as const) : ('numeric' as const)]),
  );
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
    if (typeof stored !== 'boolean') return unmeasured(rule, scan);
    const status = stored ? rule.positiveStatus : rule.negativeStatus;
    if (status === 'fail' && partial(rule.id, scan)) return unmeasured(rule, scan);
    const description = `${rule.name} is ${stored ? 'present' : 'absent'}`;
    const provenance = measuredProvenance(
      rule.id,
      scan,
      { value: stored },
      stored ? 'it present' : 'it absent',
    );
    return {
      rule,
      value: stored,
      status,
      met: status !== 'fail',
      description,
      message: `${description}: ${status}.`,
      provenance,
    };
  }
  const shown = numericValue(stored, scan.timestamp, rule.timeRangeInMonths);
  const { value, window } = shown;
  if (value === null) return unmeasured(rule, scan);
  const band = bandFor(rule.thresholds, value);
  if (band.status === 'fail' && partial(rule.id, scan)) return unmeasured(rule, scan);
  const unit = rule.unit ? ` ${rule.unit}` : '';
  const inWindow = window ? ` between ${isoDate(window.from)} and ${isoDate(window.to)}` : '';
  const description = `${rule.name} is ${counted(value, rule.unit)}${inWindow}`;
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
    provenance: measuredProvenance(rule.id, scan, shown, counted(value, rule.unit)),
  };
}

function unmeasured(rule: RuleA, scan: ScanRecord): CriterionA {
  const cause = notMeasured(rule.id, scan);
  const description = `${rule.name} is unknown (${cause})`;
  const provenance = measuredProvenance(rule.id, scan, { value: null }, '');
  return {
    rule,
    value: null,
    status: UNKNOWN,
    cause,
    met: false,
    description,
    message: `${description}.`,
    provenance,
  };
}

/**
 * The badge status of its criteria: any fail fails it (a measured failure stands whatever is
 * unknown beside it); else any unknown makes it unknown; else the worst band.
 */
function badgeStatusOf(cs: readonly CriterionA[]): BadgeStatus {
  let worst: StatusA = 'gold';
  // unknown, or `unknownAs: expired` standing for it: not a band, so not ranked.
  let unranked: BadgeStatus | undefined;
  for (const c of cs) {
    if (c.status === 'fail') return 'fail';
    if (c.status === UNKNOWN || c.status === 'expired') unranked = c.status;
    else if (STATUS_RANK[c.status] < STATUS_RANK[worst]) worst = c.status;
  }
  return unranked ?? worst;
}

/** A criterion's summary in a conclusion: an unknown one says why in its description. */
function summaryOf(cs: readonly CriterionA[]): string {
  return cs
    .map((c) => (c.status === UNKNOWN ? c.description : `${c.description} (${c.status})`))
    .join('; ');
}

/**
 * `unknownAs`: a deployment whose clients accept only the contract's five statuses publishes
 * unknown as one of them. The description still says the value is unknown and why.
 */
function publishUnknownAs(c: CriterionA, as: ContractStatusA): CriterionA {
  if (c.status !== UNKNOWN) return c;
  return { ...c, status: as, met: as !== 'fail', message: `${c.description}: ${as}.` };
}

interface AsOf {
  /** The moment the answer is for: build time for latest files, a requested time otherwise. */
  at: number;
  expireAfterDays: number | null;
}

export interface OptionsA {
  /** Publish `unknown` as this contract status (config `unknownAs`); null: as unknown. */
  unknownAs?: ContractStatusA | null;
}

export function evaluateScanA(
  t: ThresholdsA,
  scan: ScanRecord,
  asOf?: AsOf,
  options: OptionsA = {},
): EvaluationA {
  const unknownAs = options.unknownAs ?? null;
  const judged = t.rules.map((r) => evaluateRuleA(r, scan));
  const criteria = unknownAs === null ? judged : judged.map((c) => publishUnknownAs(c, unknownAs));
  const byId = new Map(criteria.map((c) => [c.rule.id, c]));
  const expired = asOf !== undefined && isExpired(scan.timestamp, asOf);
  const badges = t.badges.map((def): BadgeA => {
    const cs = def.criteria.map((id) => byId.get(id)!);
    const worst = badgeStatusOf(cs);
    const summary = summaryOf(cs);
    if (expired) {
      return {
        def,
        status: 'expired',
        criteria: cs,
        conclusion: `${def.id} has expired: its scan of ${isoDate(scan.timestamp)} is more than ${counted(asOf!.expireAfterDays!, 'day', 'days')} old. It was ${worst}: ${summary}.`,
      };
    }
    return { def, status: worst, criteria: cs, conclusion: `${def.id} is ${worst}: ${summary}.` };
  });
  return {
    timestamp: scan.timestamp,
    ...(scan.revision ? { revision: scan.revision } : {}),
    criteria,
    badges,
  };
}

/** Expired when the moment asked about lies more than expireAfterDays after the scan. */
export function isExpired(scanTime: number, asOf: AsOf): boolean {
  return expiredAt(scanTime, asOf.expireAfterDays, asOf.at);
}
