// A forge adapter's measurement merged into git's: for a rule both answer with events
// (RELEASES: a forge release whose tag git lacks), the events are united, sorted, each time
// once, and the evidence joined with "; "; when the adapter's part failed (null), git's events
// stand with the cause added to the evidence; for any other rule the adapter's value is taken.
import type { StoredValue } from '../load/types.ts';
import type { Measurement } from '../measure/types.ts';

const isEvents = (v: StoredValue | undefined): v is { events: number[] } => typeof v === 'object' && v !== null;

export function mergeForge(git: Measurement, forge: Measurement | undefined, forgeRules: ReadonlySet<string>): Measurement {
  if (!forge) return git;
  const values = { ...git.values };
  const evidence = { ...git.evidence };
  for (const rule of forgeRules) {
    if (!Object.hasOwn(forge.values, rule)) continue;
    const ours = values[rule];
    const theirs = forge.values[rule];
    if (isEvents(ours) && isEvents(theirs)) {
      values[rule] = { events: [...new Set([...ours.events, ...theirs.events])].sort((a, b) => a - b) };
      evidence[rule] = [git.evidence[rule], forge.evidence[rule]].filter(Boolean).join('; ');
    } else if (isEvents(ours) && theirs === null) {
      // The forge's part failed (it says why): git's own events stand, and the evidence says
      // what is missing. A failure nulls only the rules that had nothing but the API.
      evidence[rule] = [git.evidence[rule], `forge ${rule === 'RELEASES' ? 'releases' : 'events'} not read: ${forge.evidence[rule] ?? 'no answer'}`].filter(Boolean).join('; ');
    } else {
      values[rule] = theirs!;
      if (forge.evidence[rule] !== undefined) evidence[rule] = forge.evidence[rule];
      else delete evidence[rule];
    }
  }
  return { values, evidence };
}
