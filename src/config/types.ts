// The configuration every stage reads: site settings plus the active shape's thresholds.
import type { CacheAges } from '../model/http.ts';
import type { S3Settings } from '../s3/client.ts';

export type Shape = 'A' | 'B';
import type { BadgeStyleName } from '../model/layout.ts';

import type { ContractStatusA, StatusA } from '../model/status.ts';

/** A Shape A badge's (and criterion's) status: a band's, unknown (no value), or expired. */
export type BadgeStatus = StatusA | 'unknown' | 'expired';

export interface Band {
  min: number;
  max: number | null;
  status: StatusA;
}

interface RuleText {
  id: string;
  name: string;
  description: string;
  help: string;
  /** Repository-relative file the rule concerns (GitHub code scanning shows findings on it). */
  location?: string;
}

export interface NumericRuleA extends RuleText {
  type: 'numeric';
  unit: string;
  thresholds: Band[];
  /** Count rules with events: the window the events are counted in. */
  timeRangeInMonths?: number;
}

export interface BooleanRuleA extends RuleText {
  type: 'boolean';
  positiveStatus: StatusA;
  negativeStatus: StatusA;
}

export type RuleA = NumericRuleA | BooleanRuleA;

export interface BadgeDefA {
  id: string;
  /** Absent: the site's own badge page, {baseUrl}/badges/<ID>/ (badgeInformationUri). */
  informationUri?: string;
  criteria: string[];
}

export interface ThresholdsA {
  shape: 'A';
  rules: RuleA[];
  badges: BadgeDefA[];
}

/** Shape B levels, lowest first. */
export type LevelB = 'BRONZE' | 'SILVER' | 'GOLD';

/** Shape B bounds: pass when min <= value <= max for the bounds that exist. */
export interface ThresholdB {
  min?: number;
  max?: number;
  /** Count rules: the calendar months (UTC) ending at the scan time that events are counted in. */
  timeRangeInMonths?: number;
}

export interface RuleB extends RuleText {
  /** Empty for manual checks. */
  unit: string;
  threshold: ThresholdB;
  /** Ids starting with MANUAL/: decided by people (grant records, decision files), not scanned. */
  manual: boolean;
}

export interface LevelDefB {
  level: LevelB;
  /** The checks this level adds; a level also repeats every check of the levels below it. */
  checks: string[];
}

export interface BadgeDefB {
  id: string;
  /** May be an empty string; absent: the site's own badge page (badgeInformationUri). */
  informationUri?: string;
  /** Ascending: BRONZE before SILVER before GOLD. */
  levels: LevelDefB[];
}

export interface ThresholdsB {
  shape: 'B';
  rules: RuleB[];
  badges: BadgeDefB[];
}

/** One decision file of `decisions:`: the repositories a manual check is granted to. */
export interface DecisionFileB {
  ruleId: string;
  /** The file's name inside the decisions directory (shown in evidence; never a local path). */
  name: string;
  /** Who decided, when the file says so. */
  by?: string;
  /** Canonical repository URLs. */
  granted: string[];
  grantedRegex: UrlPattern[];
}

/** A compiled `grantedRegex` entry: the pattern as written, and an unanchored test. */
export interface UrlPattern {
  readonly source: string;
  test(url: string): boolean;
}

/** One entry of `hosts:`: the forge API a repository host speaks (the scan's forge rules). */
export interface HostConfig {
  /**
   * The API the host speaks: a kind the forge adapter registry lists (measure/forge/registry.ts,
   * below this layer); the config schema's enum lists the same kinds and checks it.
   */
  kind: string;
  /** The API's base URL, without a trailing slash. */
  apiUrl: string;
  /** The environment variable holding the token or a comma-separated pool; never the token. */
  tokenEnv?: string;
  /** The variables holding an app's id and private key (PEM), where the forge has apps; never the values. */
  appIdEnv?: string;
  appKeyEnv?: string;
  requestsPerSecond?: number;
  timeoutSeconds?: number;
  maxWaitSeconds?: number;
  /** false: the scan never asks this host's API (git alone); the default, true, asks it. */
  api?: true;
  /** Bounds on one repository's work on this host (defaults in measure/http/client.ts API_BOUNDS). */
  maxPagesPerList?: number;
  maxRequestsPerRepository?: number;
  maxSecondsPerRepository?: number;
  maxAnswerBytes?: number;
}

/** A `hosts:` entry with `api: false`: the host's repositories are measured by git alone. */
export interface GitOnlyHost {
  api: false;
  kind?: HostConfig['kind'];
  apiUrl?: string;
  tokenEnv?: string;
}

export type HostEntry = HostConfig | GitOnlyHost;

/** How a repository is seen on its forge: by anyone, by the instance's signed-in users, by members. */
export type RepositoryVisibility = 'public' | 'internal' | 'private';

/** Which repositories a source keeps (measure/forge/core/discover.ts applies them). */
export interface SourceFilters {
  archived: boolean;
  forks: boolean;
  mirrors: boolean;
  visibility: readonly RepositoryVisibility[];
  /** Keep a repository carrying at least one of these (none: every repository). */
  topics: readonly string[];
  /** RE2 patterns searched in the path below the host (group/sub/name); none: every path. */
  include: readonly UrlPattern[];
  exclude: readonly UrlPattern[];
}

/** One entry of `sources:` (or one `--source URL`): where repositories come from, and which are kept. */
export interface SourceSetting extends SourceFilters {
  /** The web address of an organisation, user, group or instance, as a person would paste it. */
  url: string;
  /** Where it was named, for messages: FILE:line, or --source. */
  where: string;
}

/** `dependents:`: where the dependents rule (RULE.dependents) is read; absent, the rule is not measured. */
export interface DependentsConfig {
  source: 'deps.dev' | 'ecosyste.ms';
  apiUrl?: string;
  timeoutSeconds?: number;
}

/** `scan:`: how `badgepress scan` measures repositories. */
export interface ScanSettings {
  /** Where mirrors of the scanned repositories are kept (absolute). */
  mirrors: string;
  /** Repositories measured at once, and at most this many of one host. */
  concurrency: number;
  /**
   * 'auto': as many as the host's API rate limit allows now (measure/http/client.ts
   * hostConcurrency; a host without a forge API: AUTO_GIT_HOST); a number fixes it.
   */
  perHost: number | 'auto';
  /** Event rules keep every event within this many months (at least each rule's window). */
  horizonMonths: number;
  busFactorMonths: number;
  /** Extra bot patterns (regular expressions, case-insensitive) on the mailmapped name and e-mail. */
  botPatterns: string[];
  /** Host (lower case, with :port when not the default) → the environment variable holding its token. */
  tokens: Record<string, string>;
  /** A git process running longer is killed (a stalled server). */
  timeoutSeconds: number;
  /** Fetches that fail for a transient cause are tried again this many times, with backoff. */
  retries: number;
}

export interface SiteLook {
  /** The pages' header and home page title; default tool.name. */
  title: string;
  /** An SVG logo beside the title: the file named in the config and its markup, read once. */
  logo?: { file: string; svg: string };
}

export interface Settings {
  shape: Shape;
  baseUrl: string;
  store: string;
  out: string;
  thresholds: { A: string; B: string };
  decisions?: string;
  tool: { name: string; version: string; informationUri: string };
  /** The human site's own name and logo, apart from the SARIF tool's name. */
  site: SiteLook;
  cache: CacheAges;
  expireAfterDays: number | null;
  /**
   * Shape A: the contract status `unknown` is published as, for clients that accept only the
   * contract's five; null (the default) publishes `unknown` itself.
   */
  unknownAs: ContractStatusA | null;
  strictSarif: boolean;
  /** Write api/v1/openapi.json. */
  openapi: boolean;
  /** Write …/badges/<ID>.json (shields.io endpoint JSON) beside each latest badge. */
  shieldsEndpoint: boolean;
  /** Write …/code-scanning.sarif (GitHub code scanning) for each repository's latest scan. */
  codeScanning: boolean;
  /** Badge styles rendered for latest badges; flat is always among them (the plain .svg). */
  styles: BadgeStyleName[];
  /** Repository URL schemes a record may use (lower case); default http and https. */
  repositoryUrlSchemes: string[];
  /** The human site (index.html, repository, badge and rule pages); default true. */
  pages: boolean;
  scan: ScanSettings;
  colors: Record<BadgeStatus | 'none', string>;
  /** Forge APIs by host as configured (the known hosts are added by the scan, not here). */
  hosts: Record<string, HostEntry>;
  dependents?: DependentsConfig;
  /** `sources:`: organisations, groups and instances whose repositories a scan lists itself. */
  sources: SourceSetting[];
  s3: S3Settings;
}
