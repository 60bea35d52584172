// Natural order for the lists people read: runs of digits compare as numbers, so tool2 comes
// before tool10, and letters compare without case. Ties (tool02 and tool2, Acme and acme)
// fall back to code units, so the order is total and the same on every machine.
import { byCodeUnits } from './summary.ts';

const DIGITS = /\d+/g;

/**
 * A string whose code-unit order is the natural order of `s`: each digit run (leading zeros
 * dropped) becomes "0", its length as one character, then its digits. Where one string has a
 * run and the other a non-digit, "0" compares with that character as the run's first digit
 * would (no non-digit lies between "0" and "9").
 */
export function naturalKey(s: string): string {
  return s.toLowerCase().replace(DIGITS, (d) => {
    const n = d.replace(/^0+(?=\d)/, '');
    return `0${String.fromCharCode(0x100 + n.length)}${n}`;
  });
}

/** The indexes of `items` in natural order of `name(item)`. */
export function naturalOrder<T>(items: readonly T[], name: (item: T) => string): number[] {
  const keys = items.map((x) => naturalKey(name(x)));
  return items
    .map((_, i) => i)
    .sort(
      (a, b) => byCodeUnits(keys[a]!, keys[b]!) || byCodeUnits(name(items[a]!), name(items[b]!)),
    );
}

/** Sorted copy of names, in natural order. */
export function naturalSort(names: readonly string[]): string[] {
  return naturalOrder(names, (n) => n).map((i) => names[i]!);
}
