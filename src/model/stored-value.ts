// A value as the store holds it, whoever wrote it (badgepress scan, another tool) and whoever
// reads it (the load stage): a number, a yes/no, nothing measured, or the times of events.

export type EventsValue = { events: number[] };
export type StoredValue = number | boolean | null | EventsValue;

/** The commit a scan measured: what its values and evidence speak of. */
export interface Revision {
  /** The full object name (40 or 64 hex digits). */
  commit: string;
  /** The commit's committer time, Unix s: how old the measured data is. */
  committedAt: number;
  /** The branch it was the tip of, as of the scan time (the default branch). */
  branch?: string;
}

/** The values and evidence of one scan time, as a scan record holds them. */
export interface Measurement {
  values: Record<string, StoredValue>;
  evidence: Record<string, string>;
  revision?: Revision;
  /**
   * Rule ids whose measurement failed for a cause of ours, not the repository's (a forge that
   * did not answer, a rate limit, a timeout): the next scan measures them again.
   */
  failed?: string[];
}
