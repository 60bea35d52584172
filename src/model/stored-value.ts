// A value as the store holds it, whoever wrote it (badgepress scan, another tool) and whoever
// reads it (the load stage): a number, a yes/no, nothing measured, or the times of events.

export type EventsValue = { events: number[] };
export type StoredValue = number | boolean | null | EventsValue;

/** The values and evidence of one scan time, as a scan record holds them. */
export interface Measurement {
  values: Record<string, StoredValue>;
  evidence: Record<string, string>;
}
