// The rules badgepress measures itself (`badgepress scan`), one entry each: the only place a
// measured rule's id is written (test/measured-rules.test.ts keeps it so; the config schema
// may name one whose setting it describes). Everything else reads this table: the horizon,
// --rules, the merge of git's and a forge's values, which rules a stored record lacks, the
// summary, and the measurements (measure/), which refer to a rule by its handle (RULE.commits).
// Like OpenSSF Scorecard's probes/<name>/def.yml beside its impl.go: adding a rule is one
// entry here and its measurement in measure/. A store holding these ids is no surprise to a
// build whose thresholds judge fewer: they wait there for a rule added later.

/** Who measures a rule: git (every host), a forge's API (`hosts:`) or a dependency index (`dependents:`). */
export type RuleSource = 'git' | 'forge' | 'dependency index';

/** What a rule's value is: events (Unix times, each a commit, release, run…), a number, or yes/no. */
export type ValueKind = 'events' | 'number' | 'boolean';

export interface MeasuredRule {
  readonly id: string;
  /**
   * Who measures it. A rule of git and a forge gets both values merged: the events united,
   * the evidence joined (the forge's part, when it failed, named by `forgePart`).
   */
  readonly sources: readonly RuleSource[];
  readonly kind: ValueKind;
  /**
   * The months its value covers. Events: every event of the horizon (the scan's
   * `horizonMonths`, at least the thresholds' timeRangeInMonths of each event rule). Others:
   * the thresholds' timeRangeInMonths, else `defaultMonths`; or the scan setting named.
   */
  readonly window?: { readonly defaultMonths: number } | { readonly setting: 'busFactorMonths' };
  /** Measured at the scan time E alone (an index knows today's count only), never for earlier times. */
  readonly latestOnly?: boolean;
  /** The config section without which it is not measured. */
  readonly needs?: 'dependents';
  /** What the forge's part of a merged rule is called in evidence ("forge releases not read: …"). */
  readonly forgePart?: string;
}

// In the order each measurer lists its rules (a forge's: reaction time, CI, releases, packages).
const TABLE = {
  busFactor: { id: 'BUS_FACTOR', sources: ['git'], kind: 'number', window: { setting: 'busFactorMonths' } },
  commits: { id: 'COMMITS', sources: ['git'], kind: 'events' },
  issueReactionTime: { id: 'ISSUE_REACTION_TIME', sources: ['forge'], kind: 'number', window: { defaultMonths: 3 } },
  ciPipeline: { id: 'CI_PIPELINE', sources: ['forge'], kind: 'events' },
  releases: { id: 'RELEASES', sources: ['git', 'forge'], kind: 'events', forgePart: 'releases' },
  packages: { id: 'PACKAGES', sources: ['forge'], kind: 'events' },
  securityPolicy: { id: 'SECURITY_POLICY', sources: ['git'], kind: 'boolean' },
  dependents: {
    id: 'DEPENDENTS',
    sources: ['dependency index'],
    kind: 'number',
    latestOnly: true,
    needs: 'dependents',
  },
} as const satisfies Record<string, MeasuredRule>;

/** Each measured rule by its handle: `RULE.commits.id` is the id a record stores. */
export const RULE: { readonly [handle in keyof typeof TABLE]: MeasuredRule } = TABLE;

/** Every measured rule, ordered by id. */
export const MEASURED_RULES: readonly MeasuredRule[] = Object.values(RULE).sort((a, b) => (a.id < b.id ? -1 : 1));

const BY_ID = new Map(MEASURED_RULES.map((r) => [r.id, r]));

/** The measured rule of this id, or undefined (a rule another scanner writes, or no rule). */
export function measuredRule(ruleId: string): MeasuredRule | undefined {
  return BY_ID.get(ruleId);
}

/** The ids of the rules `source` measures (a rule git and a forge both measure is each one's), in the table's order. */
export function ruleIdsOf(source: RuleSource): string[] {
  return Object.values(RULE)
    .filter((r) => r.sources.includes(source))
    .map((r) => r.id);
}

/** The ids of the rules whose values are events: the horizon covers each one's window. */
export function eventRuleIds(): string[] {
  return MEASURED_RULES.filter((r) => r.kind === 'events').map((r) => r.id);
}

/**
 * A rule's window in months where the thresholds set it: their timeRangeInMonths, else its
 * default; undefined for a rule whose window is the horizon or a scan setting.
 */
export function windowMonths(rule: MeasuredRule, judged: Readonly<Record<string, number>>): number | undefined {
  const w = rule.window;
  return w && 'defaultMonths' in w ? (judged[rule.id] ?? w.defaultMonths) : undefined;
}

/** Measured from git alone, on every host. */
export const GIT_RULE_IDS: readonly string[] = ruleIdsOf('git').sort();

/** Measured through a forge's API or a dependency index (`hosts:`, `dependents:`); git's and a forge's merged are git's. */
export const FORGE_RULE_IDS: readonly string[] = MEASURED_RULES.filter((r) => !r.sources.includes('git')).map(
  (r) => r.id,
);

/**
 * Every rule id badgepress scan can measure, git's first: `--rules` accepts these, and a scan
 * without --rules measures them all. A rule that needs a config section (the dependents rule
 * needs `dependents:`) is left out without it.
 */
export function measuredRuleIds(opts: { dependents: boolean }): string[] {
  return [
    ...GIT_RULE_IDS,
    ...FORGE_RULE_IDS.filter((id) => measuredRule(id)?.needs !== 'dependents' || opts.dependents),
  ];
}

export function isMeasuredRule(ruleId: string): boolean {
  return BY_ID.has(ruleId);
}
