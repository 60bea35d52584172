// The rules badgepress measures itself (`badgepress scan`), one entry each: the only place a
// measured rule's id is written (test/measured-rules.test.ts keeps it so; the config schema
// may name one whose setting it describes). Per rule: its id, source, value kind, window and
// evidence wording. Everything else reads this table: the horizon, --rules, the merge of
// git's and a forge's values, which rules a stored record lacks, the summary, and the
// measurements (measure/), which refer to a rule by its handle (RULE.commits) and hand what
// they found to its wording (RULE.commits.evidence.measured). Like OpenSSF Scorecard's
// probes/<name>/def.yml beside its impl.go: adding a rule is one entry here and its
// measurement in measure/ (docs/development.md walks through one). A store holding these ids
// is no surprise to a build whose thresholds judge fewer: they wait there for a rule added
// later.
import { isoDate } from './calendar.ts';
import { counted, numberText } from './plural.ts';

/** Who measures a rule: git (every host), a forge's API (`hosts:`) or a dependency index (`dependents:`). */
export type RuleSource = 'git' | 'forge' | 'dependency index';

/** What a rule's value is: events (Unix times, each a commit, release, run…), a number, or yes/no. */
export type ValueKind = 'events' | 'number' | 'boolean';

/** The scan settings a rule's window may be (`scan.busFactorMonths`). */
export interface WindowSettings {
  readonly busFactorMonths: number;
}

/**
 * A rule's evidence wording: each function words one outcome from what the measurement found
 * (counts, times as Unix seconds, names), so a measurement hands in data and the sentence is
 * the table's.
 */
export type EvidenceWording = { readonly [outcome: string]: (found: never) => string };

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
  readonly window?: { readonly defaultMonths: number } | { readonly setting: keyof WindowSettings };
  /** Measured at the scan time E alone (an index knows today's count only), never for earlier times. */
  readonly latestOnly?: boolean;
  /** The config section without which it is not measured. */
  readonly needs?: 'dependents';
  /** What the forge's part of a merged rule is called in evidence ("forge releases not read: …"). */
  readonly forgePart?: string;
  /** How its evidence reads, outcome by outcome. */
  readonly evidence: EvidenceWording;
}

/** Where git read a rule's value: the default branch (its name, when git tells it) at a commit. */
export interface GitPlace {
  readonly branch?: string;
  readonly commit: string;
  /** The commit's committer time, Unix s. */
  readonly committedAt: number;
  /** The .mailmap blob the commit's tree names and the mirror lacks: authors are taken as recorded. */
  readonly mailmapMissing?: string;
}

/** A name (branch, tag, file) as evidence shows it: at most 60 characters. */
const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);
const shortOid = (oid: string) => oid.slice(0, 12);
const branchName = (branch: string | undefined) =>
  branch === undefined ? 'the default branch' : clip(branch);
/** "main at 0123456789ab (2026-11-25)". */
const at = (p: GitPlace) =>
  `${branchName(p.branch)} at ${shortOid(p.commit)} (${isoDate(p.committedAt)})`;
const unmapped = (p: GitPlace) =>
  p.mailmapMissing
    ? `; .mailmap (blob ${shortOid(p.mailmapMissing)}) not in the mirror, authors taken as recorded`
    : '';

/**
 * A git rule's evidence when the default branch held no commit at the time (`by`, absent when
 * it has none at all): there is no history to measure.
 */
const noHistory = (found: { branch?: string; by?: number }) =>
  found.by === undefined
    ? `${branchName(found.branch)} has no commits`
    : `${branchName(found.branch)} had no commits by ${isoDate(found.by)}`;

/** The window a count covers, "in the 12 months to 2026-11-25": the `months` to the scan time `to`. */
interface Span {
  readonly months: number;
  /** The scan time, Unix s. */
  readonly to: number;
}
const span = (s: Span) => `in the ${counted(s.months, 'month', 'months')} to ${isoDate(s.to)}`;

/** A package registry that holds no version, as the forge says (PACKAGES' evidence). */
export type RegistryOff =
  | 'package registry'
  | 'container registry'
  | 'instance packages'
  | 'instance containers';
const registriesOff = (off: readonly RegistryOff[]): string => {
  const disabled = off.filter((r) => !r.startsWith('instance ')).map((r) => `the ${r}`);
  const absent = [
    ...(off.includes('instance packages') ? ['package registry'] : []),
    ...(off.includes('instance containers') ? ['container registry'] : []),
  ];
  return `${
    disabled.length === 0
      ? ''
      : `; ${disabled.join(' and ')} ${disabled.length === 1 ? 'is' : 'are'} disabled on this repository`
  }${absent.length === 0 ? '' : `; this forge instance has no ${absent.join(' and no ')}`}`;
};

// In the order each measurer lists its rules (a forge's: reaction time, CI, releases, packages).
const TABLE = {
  busFactor: {
    id: 'BUS_FACTOR',
    sources: ['git'],
    kind: 'number',
    window: { setting: 'busFactorMonths' },
    evidence: {
      noHistory,
      /** `contributors` of `people` made half of `commits` (none: no commits by people). */
      measured: (
        f: Span & { contributors: number; people: number; commits: number; place: GitPlace },
      ) =>
        f.commits === 0
          ? `no non-merge commits by people ${span(f)} (${at(f.place)})${unmapped(f.place)}`
          : `${counted(f.contributors, 'contributor', 'contributors')} of ${numberText(f.people)} made at least half of ${counted(f.commits, 'non-merge commit', 'non-merge commits')} ${span(f)} (${at(f.place)})${unmapped(f.place)}`,
    },
  },
  commits: {
    id: 'COMMITS',
    sources: ['git'],
    kind: 'events',
    evidence: {
      noHistory,
      measured: (f: Span & { commits: number; byBots: number; place: GitPlace }) =>
        `${counted(f.commits, 'non-merge commit', 'non-merge commits')} ${span(f)}, reachable from ${at(f.place)}${
          f.byBots > 0 ? `; ${counted(f.byBots, 'commit', 'commits')} by bots left out` : ''
        }${unmapped(f.place)}`,
    },
  },
  issueReactionTime: {
    id: 'ISSUE_REACTION_TIME',
    sources: ['forge'],
    kind: 'number',
    window: { defaultMonths: 3 },
    evidence: {
      disabled: () => 'Issues are disabled on this repository',
      noIssue: (f: Span) => `No issue opened by someone other than a maintainer or bot ${span(f)}`,
      measured: (f: Span & { issues: number; unanswered: number; unreadable: number }) =>
        `Mean first maintainer reaction over ${counted(f.issues, 'issue', 'issues')} opened ${span(f)}${
          f.unanswered
            ? `; ${numberText(f.unanswered)} without a maintainer's reaction, counted with their age`
            : ''
        }${f.unreadable ? `; ${counted(f.unreadable, 'issue or reaction', 'issues or reactions')} with a date that does not read left out` : ''}`,
    },
  },
  ciPipeline: {
    id: 'CI_PIPELINE',
    sources: ['forge'],
    kind: 'events',
    evidence: {
      measured: (f: Span & { system: string; runs: number }) =>
        `${f.system}: ${counted(f.runs, 'run', 'runs')} that succeeded or failed ${span(f)}`,
    },
  },
  releases: {
    id: 'RELEASES',
    sources: ['git', 'forge'],
    kind: 'events',
    forgePart: 'releases',
    evidence: {
      /** git's part: its dated tags (`undated`: those of a tree or blob, left out). */
      git: (f: Span & { tags: number; undated: number; newest?: { name: string; time: number } }) =>
        `${counted(f.tags, 'tag', 'tags')} dated ${span(f)}${
          f.newest ? ` (newest ${clip(f.newest.name)}, ${isoDate(f.newest.time)})` : ''
        }${f.undated > 0 ? `; ${counted(f.undated, 'tag', 'tags')} of a tree or blob left out` : ''}`,
      /** The forge's part: its releases whose tag git does not hold. */
      forge: (f: Span & { releases: number }) =>
        `${counted(f.releases, 'forge release', 'forge releases')} whose tag git does not hold, ${span(f)}`,
    },
  },
  packages: {
    id: 'PACKAGES',
    sources: ['forge'],
    kind: 'events',
    evidence: {
      /**
       * `off`: registries that hold none, as the forge says: `package registry`, `container
       * registry` turned off on the repository; `instance packages`, `instance containers`:
       * the forge instance has no such registry.
       */
      measured: (f: Span & { versions: number; off?: readonly RegistryOff[] }) =>
        `${counted(f.versions, 'package version', 'package versions')} first published ${span(f)}${registriesOff(f.off ?? [])}`,
    },
  },
  securityPolicy: {
    id: 'SECURITY_POLICY',
    sources: ['git'],
    kind: 'boolean',
    evidence: {
      noHistory,
      /** `file`: the policy found, undefined when none is. */
      measured: (f: { file: string | undefined; place: GitPlace }) =>
        f.file
          ? `${clip(f.file)} in ${at(f.place)}`
          : `no non-empty SECURITY.md (.markdown, .adoc, .rst) in the root, .github/ or docs/, nor doc/security.rst, in ${at(f.place)}`,
    },
  },
  dependents: {
    id: 'DEPENDENTS',
    sources: ['dependency index'],
    kind: 'number',
    latestOnly: true,
    needs: 'dependents',
    evidence: {
      measured: (f: { index: string; dependents: number; packages: number }) =>
        `${f.index}: ${counted(f.dependents, 'dependent', 'dependents')} of ${counted(f.packages, 'package', 'packages')} published from this repository`,
      noPackage: (f: { index: string }) =>
        `${f.index} knows no package published from this repository`,
    },
  },
} as const satisfies Record<string, MeasuredRule>;

/** Each measured rule by its handle: `RULE.commits.id` is the id a record stores. */
export const RULE: typeof TABLE = TABLE;

/** Every measured rule, ordered by id. */
export const MEASURED_RULES: readonly MeasuredRule[] = tableOrder().sort((a, b) =>
  a.id < b.id ? -1 : 1,
);

/** Every measured rule in the table's order. */
function tableOrder(): MeasuredRule[] {
  return Object.values(RULE);
}

const BY_ID = new Map(MEASURED_RULES.map((r) => [r.id, r]));

/** The measured rule of this id, or undefined (a rule another scanner writes, or no rule). */
function measuredRule(ruleId: string): MeasuredRule | undefined {
  return BY_ID.get(ruleId);
}

/** The ids of the rules `source` measures (a rule git and a forge both measure is each one's), in the table's order. */
export function ruleIdsOf(source: RuleSource): string[] {
  return tableOrder()
    .filter((r) => r.sources.includes(source))
    .map((r) => r.id);
}

/** The ids of the rules whose values are events: the horizon covers each one's window. */
export function eventRuleIds(): string[] {
  return MEASURED_RULES.filter((r) => r.kind === 'events').map((r) => r.id);
}

/**
 * A rule's window in months: the thresholds' timeRangeInMonths, else its default; or the scan
 * setting it names (given `settings`). Undefined for a rule whose window is the horizon.
 */
export function windowMonths(
  rule: MeasuredRule,
  judged: Readonly<Record<string, number>>,
  settings?: WindowSettings,
): number | undefined {
  const w = rule.window;
  if (!w) return undefined;
  return 'defaultMonths' in w ? (judged[rule.id] ?? w.defaultMonths) : settings?.[w.setting];
}

/** The scan times a rule gets a value at: every one, or E (the last) alone for a latest-only rule. */
export function measuredAt(ruleId: string, time: number, asOf: number): boolean {
  return time === asOf || !measuredRule(ruleId)?.latestOnly;
}

/**
 * The evidence a rule of git and a forge adds when the forge's part failed: what was not read
 * and why (the forge's evidence, its cause).
 */
export function forgePartNotRead(ruleId: string, cause = 'no answer'): string {
  return `forge ${measuredRule(ruleId)?.forgePart ?? 'events'} not read: ${cause}`;
}

/** Measured from git alone, on every host. */
export const GIT_RULE_IDS: readonly string[] = ruleIdsOf('git').sort();

/** Measured through a forge's API or a dependency index (`hosts:`, `dependents:`); git's and a forge's merged are git's. */
export const FORGE_RULE_IDS: readonly string[] = MEASURED_RULES.filter(
  (r) => !r.sources.includes('git'),
).map((r) => r.id);

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
