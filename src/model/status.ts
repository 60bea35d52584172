// The statuses a Shape A badge or criterion has, and their order: what evaluation ranks by,
// and the levels the pages draw, lowest first.

export type StatusA = 'gold' | 'silver' | 'bronze' | 'fail';

/** The levels people read, lowest first (Shape B shows its levels by the same words). */
export const STATUS_LEVELS = ['fail', 'bronze', 'silver', 'gold'] as const satisfies readonly StatusA[];

/** A status's place in STATUS_LEVELS: higher is better. */
export const STATUS_RANK: Readonly<Record<StatusA, number>> = { fail: 0, bronze: 1, silver: 2, gold: 3 };
