// The statuses a Shape A badge or criterion has, and their order: what evaluation ranks by,
// and the levels the pages draw, lowest first.

/** The statuses a threshold band (or a boolean rule's answer) gives a measured value. */
export type StatusA = 'gold' | 'silver' | 'bronze' | 'fail';

/**
 * A criterion without a value (null in the record, a rule the record lacks) is `unknown`: no
 * band is ever chosen for a value nobody measured (docs/reference/api.md, "unknown").
 */
export const UNKNOWN = 'unknown';

/** The contract's five badge statuses: what `unknownAs` may map `unknown` to. */
export type ContractStatusA = StatusA | 'expired';

/** The levels people read, lowest first (Shape B shows its levels by the same words). */
export const STATUS_LEVELS = [
  'fail',
  'bronze',
  'silver',
  'gold',
] as const satisfies readonly StatusA[];

/** The rungs of a Shape A status chart, lowest first: unknown is a row of its own, beside fail. */
export const CHART_LEVELS_A = [UNKNOWN, ...STATUS_LEVELS] as const;

/** A status's place in STATUS_LEVELS: higher is better. */
export const STATUS_RANK: Readonly<Record<StatusA, number>> = {
  fail: 0,
  bronze: 1,
  silver: 2,
  gold: 3,
};

/** Whether a status is one a band gives (so it has a rank); unknown and expired are not. */
export function isBandStatus(status: string): status is StatusA {
  return Object.hasOwn(STATUS_RANK, status);
}
