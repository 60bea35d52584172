/** "1 repository", "2 repositories": a count with its noun in the right number. */
export const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
