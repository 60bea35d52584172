// How the site and the command line write numbers and counts: one place, so every count reads
// the same (grouped digits, the noun in the right number).

/** The locale pages are written in (<html lang="en">): it groups digits with commas. */
const NUMBERS = new Intl.NumberFormat('en', { maximumFractionDigits: 20, useGrouping: true });

/** A number as people read it in the pages' locale: "10,000", "0.5". */
export function numberText(n: number): string {
  return Number.isFinite(n) ? NUMBERS.format(n) : String(n);
}

/**
 * The singular of a unit written in the plural ("commits" → "commit", "dependencies" →
 * "dependency"); a unit that is not a plural English word ("%", "ms", "class") is kept.
 */
function singularOf(unit: string): string {
  if (/[a-z]ies$/i.test(unit)) return `${unit.slice(0, -3)}y`;
  if (/(?:ss|x|ch|sh|zz)es$/i.test(unit)) return unit.slice(0, -2);
  if (/[a-z][^s]s$/i.test(unit) && !/(?:us|is)$/i.test(unit)) return unit.slice(0, -1);
  return unit;
}

/**
 * "1 repository", "10,000 repositories": a count with its noun in the right number. Without
 * `many`, `one` is a unit written in the plural (a config's "commits") and its singular is
 * made from it.
 */
export function counted(n: number, one: string, many?: string): string {
  const noun = many === undefined ? (n === 1 ? singularOf(one) : one) : n === 1 ? one : many;
  return noun === '' ? numberText(n) : `${numberText(n)} ${noun}`;
}

/** "the last month", "the last 12 months": the window of `months` calendar months before a time. */
export function lastMonths(months: number): string {
  return months === 1 ? 'the last month' : `the last ${counted(months, 'months')}`;
}
