// What measuring one repository produces, whatever measured it (git, a forge's API), and the
// one shape of the measurers the scan's orchestrator meets: asked with a request (the target,
// its times, E and what that measurer needs), each keeping its own state (git its mirror, a
// forge its kept answers), answering one measurement per time and notes to print.
import type { Measurement } from '../model/stored-value.ts';
import type { BotTest } from './bots.ts';

/** One repository as the scan list names it. */
export interface ScanTarget {
  /** Canonical repository URL: the store's repositoryUrl. */
  url: string;
  /** Host, lower-cased, without user info; with its port when the URL gives one. */
  host: string;
  /** The path after the host without a trailing `.git` or `/`: owner/name, group/subgroup/name. */
  path: string;
  /** An existing bare repository to read instead of a mirror of ours (`mirror=PATH`). */
  mirror?: string;
  /** Where the list named it, for messages: FILE:line. */
  source: string;
  /**
   * Whether issues are on, as the source that listed it this run said: the forge's lookup of
   * the repository is then not asked (undefined: a repos file's line, or a list without it).
   */
  issuesEnabled?: boolean;
  /** Whether its package registries are on, as the source that listed it this run said. */
  registries?: RegistryStates;
}

/**
 * Whether a repository's package registry is on: `hidden` when it is on for members only and
 * the caller is none (its versions cannot be read); `members` when it is for members only and
 * the forge does not say whether the caller is one (asked: a refusal says it is not);
 * `absent` when the forge instance has no such registry at all.
 */
export type RegistryState = 'on' | 'off' | 'hidden' | 'members' | 'absent';

/**
 * A forge's package registries (GitLab: package_registry_access_level, else packages_enabled;
 * container_registry_access_level and container_registry_image_prefix).
 */
export interface RegistryStates {
  packages: RegistryState;
  containers: RegistryState;
}

/** What every measurer is asked: one repository at the scan times, from one pass. */
export interface MeasureRequest<Target extends ScanTarget = ScanTarget> {
  target: Target;
  /** Scan times (Unix s), ascending. One measurement per time. */
  times: readonly number[];
  /**
   * E, the scan time: a latest-only rule is measured there alone. `times` may lack it: an
   * earlier time measured again (its record had a failed rule) while E's record stands.
   */
  asOf: number;
  signal?: AbortSignal;
}

/** What every measurer answers for a request. */
export interface Measured<M> {
  /** One per time, in the order of `times`. */
  measurements: M[];
  /**
   * What the scan prints for the repository that is no failure of its rules (the forge's
   * answers not kept for the next scan): the values stand.
   */
  notes?: string[];
}

/** A measurer: git's (measure/git/measurer.ts), a forge family's, the dependency index. */
export interface Measurer<Request extends MeasureRequest, Result extends Measured<unknown>> {
  measure(request: Request): Promise<Result>;
}

/** What git showed that forge rules build on (the releases rule adds forge releases whose tag git lacks). */
export interface GitFacts {
  /** Every tag name the mirror holds. */
  tagNames: ReadonlySet<string>;
  /** The default branch's name, when git could tell. */
  defaultBranch?: string;
}

export interface ForgeRequest extends MeasureRequest {
  git: GitFacts;
  /** A rule's window in months (its timeRangeInMonths in the active thresholds) by rule id. */
  windowMonths: Readonly<Record<string, number>>;
  /** Event rules keep every event within this many months before each time. */
  horizonMonths: number;
  /** Who is a bot, git's test (`scan.botPatterns` with it) on a login; default the fixed signs alone. */
  isBot?: BotTest;
}

export interface ForgeResult extends Measured<Measurement> {
  /** One per time, in the order of `times`. A rule whose API failed is null with evidence. */
  measurements: Measurement[];
  /** The rule ids this adapter answers for (its values override nothing but are merged: see below). */
  rules: string[];
  /** Causes to report in the summary, never holding a token; any makes the scan exit 1. */
  failures: string[];
  /** HTTP requests made, for the summary and the bench. */
  requests: number;
  /** Of `requests`, those answered 304 Not Modified (a stored answer reused). */
  notModified?: number;
  /** Of `requests`, those the forge counts against its rate limit (its 304s may be free). */
  counted?: number;
  /**
   * Rules this run chose not to ask a server for (`--forge never`, `--fetch never`, a host's
   * `api: false`), and why: null with the evidence "not asked: <why>", never a failure.
   */
  notAsked?: Array<{ rules: string[]; why: string }>;
}

/**
 * A forge family's adapter (one per kind in measure/forge/registry.ts) or the dependency
 * index. The orchestrator merges its measurement with git's: for a rule both answer with
 * events (a rule of git and a forge in model/measured-rules.ts), the events are united (sorted, duplicates kept once) and the evidence
 * joined with "; "; otherwise the adapter's value is taken.
 */
export interface ForgeMeasurer extends Measurer<ForgeRequest, ForgeResult> {
  /** The rule ids it answers: at every time, or at E alone for a latest-only rule (the table's `latestOnly`). */
  readonly answers: readonly string[];
  /**
   * Rules of `answers` it never asks a server for, only holds null as not asked: a stored
   * record without them lacks nothing this measurer would measure.
   */
  readonly notAsked?: readonly string[];
  /**
   * Repositories of this host to measure at once, at most `ceiling`, from what the API's
   * rate limit allows now; absent, the host states none.
   */
  inFlight?(ceiling: number): number;
}

/**
 * The forge measurer for a target's host (with the dependency index's rule beside it), or
 * undefined for git's rules alone (the scan's own, measurersFor in measure/index.ts, gives
 * every host one: a host with no known forge holds the forge rules not asked).
 */
export type ForgeFor = (target: ScanTarget) => ForgeMeasurer | undefined;
