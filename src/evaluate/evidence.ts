// What a criterion rests on, for both shapes: the evidence beside its value and the commit the
// scan measured. Evidence never contradicts the value it stands beside: a count the build
// re-windows (a rule's timeRangeInMonths, not the scanner's horizon) is worded from the count
// itself, the scanner's own note following with its own window; a value not measured says why
// ("not measured: GitHub API: 503 (2026-11-27)"), never `<nil>`.
import type { ScanRecord } from '../load/types.ts';
import { lastMonths } from '../model/plural.ts';
import type { NumericValue } from './count-window.ts';
import { isoDate } from '../model/calendar.ts';
import type { Revision } from '../model/stored-value.ts';

export interface Provenance {
  /** What was found, in words that agree with the value shown. */
  evidence: string;
  /** The commit measured, when the record names it (not for manual checks). */
  revision?: Revision;
  /** The scan's time, Unix s. */
  scannedAt: number;
}

const DAY = 86_400;

/** Whole days from the measured commit's committer time to the scan (0 when it is later). */
export function dataAgeDays(revision: Revision, scannedAt: number): number {
  return Math.max(0, Math.floor((scannedAt - revision.committedAt) / DAY));
}

/**
 * Why a rule has no value, as people read it: the record's own words for a null (a scanner
 * writes its cause as the rule's evidence), else what the record lacks.
 */
export function notMeasured(ruleId: string, scan: ScanRecord): string {
  const said = scan.evidence[ruleId]?.trim().replace(/\.+$/, '');
  // The scanner's "not asked: --forge never (git alone)" already says it was not measured.
  if (said) return /^not (asked|measured)\b/i.test(said) ? said : `not measured: ${said}`;
  return scan.values[ruleId] === null
    ? 'not measured: the scan could not determine it'
    : 'not measured: the scan did not measure this rule';
}

/**
 * The provenance of a measured rule's value as a criterion shows it. `shown`: the value the
 * criterion judges (and the window it was counted in); `amount`: that value in words
 * ("12 commits", "present").
 */
export function measuredProvenance(
  ruleId: string,
  scan: ScanRecord,
  shown: NumericValue | { value: boolean | null },
  amount: string,
): Provenance {
  const base = { ...(scan.revision ? { revision: scan.revision } : {}), scannedAt: scan.timestamp };
  // The same words as the criterion's cause (scannedAt dates it).
  if (shown.value === null) return { ...base, evidence: notMeasured(ruleId, scan) };
  const stored = scan.evidence[ruleId];
  const window = 'window' in shown ? shown.window : undefined;
  if (window) {
    const counted = `${amount} counted between ${isoDate(window.from)} and ${isoDate(window.to)} (${lastMonths(window.months)} before the scan)`;
    // The scanner's words speak of its own window: they follow, named as its.
    return {
      ...base,
      evidence: stored
        ? `${counted}. The scan's own note, over its window: ${stored}`
        : `${counted}.`,
    };
  }
  return { ...base, evidence: stored ?? `The scan reported ${amount}.` };
}

/**
 * A value the scan kept although the rule's forge call failed (a rule of git and a forge
 * keeps git's part): it may undercount, so a failure on it proves nothing and is not
 * published as one.
 */
export function partial(ruleId: string, scan: ScanRecord): boolean {
  return scan.failed?.includes(ruleId) ?? false;
}
