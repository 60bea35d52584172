// What the load stage hands to evaluation: one repository's whole history at a time.

import type { Revision, StoredValue } from '../model/stored-value.ts';

export interface ScanRecord {
  kind: 'scan';
  repositoryUrl: string;
  timestamp: number;
  values: Record<string, StoredValue>;
  evidence: Record<string, string>;
  /** The commit the values were measured at, when the scanner wrote it. */
  revision?: Revision;
  /** Rule ids whose measurement failed for a cause of ours; absent when none did. */
  failed?: string[];
  /** file:line the record came from, for messages. */
  source: string;
}

export interface GrantRecord {
  kind: 'grant';
  repositoryUrl: string;
  ruleId: string;
  granted: boolean;
  timestamp: number;
  by?: string;
  note?: string;
  source: string;
}

export interface RepositoryHistory {
  repositoryUrl: string;
  /** encodeURIComponent of the canonical URL: the key segment. */
  encoded: string;
  /** Ascending by timestamp, no two with the same timestamp. */
  scans: ScanRecord[];
  /** Ascending by timestamp. */
  grants: GrantRecord[];
}

export type Severity = 'error' | 'warning';

/** What a load problem belongs to: a repository (a bad record naming a valid one) or else a
 *  store file. Build state keeps problems with their owner to report them again unread. */
export type IssueOwner = { repositoryUrl: string } | { file: string };

export interface LoadIssue {
  severity: Severity;
  /** file:line, or file alone when the whole file is at fault. */
  where: string;
  message: string;
}

/** How the active thresholds judge a rule id's stored value; undefined: the rule is not judged. */
export type ValueKind = 'numeric' | 'boolean' | 'manual';
export type RuleCatalog = (ruleId: string) => ValueKind | undefined;

/**
 * The latest time a record may carry (timestamps and event times): 9999-12-31T23:59:59Z.
 * Dates print as YYYY-MM-DD, and every later stage can turn such a time into a date.
 * record.schema.json holds the same number.
 */
export const MAX_UNIX_SECONDS = 253_402_300_799;
