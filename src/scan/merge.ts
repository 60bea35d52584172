// A forge adapter's measurement merged into git's: for a rule both answer with events (the
// table's rules of git and a forge: a forge release whose tag git lacks), the events are
// united, sorted, each time once, and the evidence joined with "; "; when the adapter's part
// failed (null), git's events stand with the cause added to the evidence; for any other rule
// the adapter's value is taken. A rule whose forge part failed for one of the causes the
// adapter reports (not the repository's answer, e.g. "Issues are disabled") is listed in
// `failed`: the next scan measures it again, and `completeRecord` merges that new measurement
// into the stored one.
import { forgePartNotRead } from '../model/measured-rules.ts';
import type { StoredValue, Measurement } from '../model/stored-value.ts';

const isEvents = (v: StoredValue | undefined): v is { events: number[] } =>
  typeof v === 'object' && v !== null;

/** `failures`: the causes the adapter reported; a rule it nulled with one of them failed. */
export function mergeForge(
  git: Measurement,
  forge: Measurement | undefined,
  forgeRules: ReadonlySet<string>,
  failures: readonly string[] = [],
): Measurement {
  if (!forge) return git;
  const values = { ...git.values };
  const evidence = { ...git.evidence };
  const failed = new Set(git.failed ?? []);
  for (const rule of forgeRules) {
    if (!Object.hasOwn(forge.values, rule)) continue;
    const ours = values[rule];
    const theirs = forge.values[rule];
    if (theirs === null && failures.includes(forge.evidence[rule] ?? '')) failed.add(rule);
    if (isEvents(ours) && isEvents(theirs)) {
      values[rule] = {
        events: [...new Set([...ours.events, ...theirs.events])].sort((a, b) => a - b),
      };
      evidence[rule] = [git.evidence[rule], forge.evidence[rule]].filter(Boolean).join('; ');
    } else if (isEvents(ours) && theirs === null) {
      // The forge's part failed (it says why): git's own events stand, and the evidence says
      // what is missing. A failure nulls only the rules that had nothing but the API.
      evidence[rule] = [git.evidence[rule], forgePartNotRead(rule, forge.evidence[rule])]
        .filter(Boolean)
        .join('; ');
    } else {
      values[rule] = theirs!;
      if (forge.evidence[rule] !== undefined) evidence[rule] = forge.evidence[rule];
      else delete evidence[rule];
    }
  }
  return {
    ...(git.revision ? { revision: git.revision } : {}),
    values,
    evidence,
    ...(failed.size > 0 ? { failed: [...failed].sort() } : {}),
  };
}

/**
 * The record that completes `stored` (a record with failed rules) from `fresh`, a new
 * measurement at the same time: every rule takes the fresh value unless the fresh one failed
 * where the stored one had not (nothing measured is lost), or the fresh one lacks the rule. A
 * rule stays failed only when both failed. undefined when it would fail as many rules as
 * `stored` does: nothing to write (a build would not prefer it).
 */
export function completeRecord(stored: Measurement, fresh: Measurement): Measurement | undefined {
  const before = new Set(stored.failed ?? []);
  const now = new Set(fresh.failed ?? []);
  const values = { ...stored.values };
  const evidence = { ...stored.evidence };
  for (const [rule, value] of Object.entries(fresh.values)) {
    if (now.has(rule) && Object.hasOwn(stored.values, rule) && !before.has(rule)) continue;
    values[rule] = value;
    if (fresh.evidence[rule] !== undefined) evidence[rule] = fresh.evidence[rule];
    else delete evidence[rule];
  }
  const failed = [...before].filter((r) => now.has(r) || !Object.hasOwn(fresh.values, r)).sort();
  if (failed.length >= before.size) return undefined;
  const revision = fresh.revision ?? stored.revision;
  return {
    ...(revision ? { revision } : {}),
    values,
    evidence,
    ...(failed.length > 0 ? { failed } : {}),
  };
}
