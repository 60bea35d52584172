// What a measurement may put in a record, rule by rule: one value the record schema refuses (a
// forge's date that does not read, a time past 9999) would otherwise make the whole record
// unwritable, git's rules and the other forge rules with it. Here an unusable event is left
// out and an unusable number becomes null ("could not be determined"), each saying so in its
// rule's evidence; every other rule is kept as measured.
import { counted } from '../model/plural.ts';
import type { Measurement } from '../model/stored-value.ts';

/** The largest time a record holds (record.schema.json): 9999-12-31T23:59:59Z. */
const LAST_TIME = 253_402_300_799;

const isTime = (t: unknown): t is number =>
  typeof t === 'number' && Number.isInteger(t) && t >= 0 && t <= LAST_TIME;

export function usableMeasurement(m: Measurement): Measurement {
  const values = { ...m.values };
  const evidence = { ...m.evidence };
  const note = (rule: string, what: string) => {
    evidence[rule] = [m.evidence[rule], what].filter(Boolean).join('; ');
  };
  for (const [rule, value] of Object.entries(m.values)) {
    if (typeof value === 'number' && !(Number.isFinite(value) && value >= 0)) {
      values[rule] = null;
      note(
        rule,
        `could not be determined: the value measured (${value}) is not a number of 0 or more`,
      );
    } else if (typeof value === 'object' && value !== null) {
      const events = Array.isArray(value.events) ? value.events : [];
      const usable = events.filter(isTime);
      if (usable.length === events.length) continue;
      values[rule] = { events: usable };
      const left = events.length - usable.length;
      note(
        rule,
        `${counted(left, 'event', 'events')} with a time that does not read as one left out`,
      );
    }
  }
  return { ...m, values, evidence };
}
