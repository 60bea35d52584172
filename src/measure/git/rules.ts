// The git rules (model/measured-rules.ts lists them) as pure functions of what git showed: for each scan time E, the default
// branch's first-parent tip as of E (T), the commits reachable from T, the tags by their
// dates and the tree of T. Windows are the evaluator's own (S < t <= E, calendar months, UTC).
import { windowStart } from '../../model/calendar.ts';
import { type GitPlace, RULE } from '../../model/measured-rules.ts';
import type { EventsValue, StoredValue, Measurement } from '../../model/stored-value.ts';
import type { BotTest } from '../bots.ts';
import type { CommitTable, GitHistory } from './history.ts';
import type { Mailmap } from './mailmap.ts';
import type { Snapshot } from './snapshot.ts';

export interface GitRuleOptions {
  /** The git rules to measure (others are left out). */
  rules: ReadonlySet<string>;
  /** Event rules keep every event within this many months before each time. */
  horizonMonths: number;
  busFactorMonths: number;
  isBot: BotTest;
  /**
   * E, the scan time (default: the latest of the times). A default branch without commits has
   * no first commit, so no history: it gets a record at E alone.
   */
  asOf?: number;
}

/**
 * The default branch's first-parent chain from its tip to its root, each commit with the time
 * the branch held it from: its committer time, but never before its parent's (a commit whose
 * clock was behind cannot predate its parent); a commit dated later than every commit after it
 * on the chain, while those are not earlier than its parent's time, is taken at the earliest of
 * them instead (its clock was ahead: it must not hold back the commits that follow it). The
 * root's own time stands. The times never decrease from the root to the tip.
 */
function branchTimes(commits: CommitTable, tip: number): { chain: number[]; times: number[] } {
  const chain: number[] = [];
  for (let c = tip; c >= 0; c = commits.firstParent[c]!) chain.push(c);
  const n = chain.length;
  // after[k]: the earliest committer time among chain[0..k-1], the commits after chain[k].
  const after = new Array<number>(n);
  let least = Number.POSITIVE_INFINITY;
  for (let k = 0; k < n; k++) {
    after[k] = least;
    least = Math.min(least, commits.time[chain[k]!]!);
  }
  const times = new Array<number>(n);
  let parentTime = Number.NEGATIVE_INFINITY;
  for (let k = n - 1; k >= 0; k--) {
    let own = commits.time[chain[k]!]!;
    if (k < n - 1 && own > after[k]! && after[k]! >= parentTime) own = after[k]!;
    parentTime = times[k] = Math.max(own, parentTime);
  }
  return { chain, times };
}

/**
 * For each time: the index of the newest commit on the default branch's first-parent chain
 * that the branch held by then (`branchTimes`), or undefined when there is none.
 */
export function tipsAt(
  commits: CommitTable,
  tip: number | undefined,
  times: readonly number[],
): Array<number | undefined> {
  const out: Array<number | undefined> = times.map(() => undefined);
  if (tip === undefined) return out;
  const branch = branchTimes(commits, tip);
  // Later times first: the tip as of an earlier time is never nearer the branch's head.
  const order = times.map((t, i) => ({ t, i })).sort((a, b) => b.t - a.t);
  let k = 0;
  for (const { t, i } of order) {
    while (k < branch.chain.length && branch.times[k]! > t) k++;
    if (k >= branch.chain.length) break;
    out[i] = branch.chain[k]!;
  }
  return out;
}

/**
 * For each commit, the index of the first time (ascending `tips` order by time) whose tip
 * reaches it, or -1. The tips of ascending times are ancestors of one another, so one walk
 * that stops at commits already reached visits each commit once.
 */
function firstReach(
  commits: CommitTable,
  tips: ReadonlyArray<number | undefined>,
  timeOrder: readonly number[],
): Int32Array {
  const reach = new Int32Array(commits.oids.length).fill(-1);
  const stack: number[] = [];
  for (const i of timeOrder) {
    const t = tips[i];
    if (t === undefined) continue;
    stack.push(t);
    while (stack.length > 0) {
      const c = stack.pop()!;
      if (reach[c]! >= 0) continue;
      reach[c] = i;
      const p = commits.firstParent[c]!;
      if (p >= 0 && reach[p]! < 0) stack.push(p);
      for (const q of commits.moreParents.get(c) ?? []) if (reach[q]! < 0) stack.push(q);
    }
  }
  return reach;
}

interface Person {
  /** The mailmapped e-mail, lower-cased (or the name when there is no e-mail). */
  key: string;
  bot: boolean;
}

/** The rules measured here, by the table's handles: their ids and evidence wording. */
const { busFactor: bus, commits: commitsRule, releases, securityPolicy: security } = RULE;

/**
 * One measurement per time, in the order of `times`; undefined for a time before the default
 * branch's first commit (the repository had no history yet), and, when the branch has no
 * commit, for every time but E.
 */
export function measureGit(
  history: GitHistory,
  snapshots: (commitOid: string) => Snapshot,
  times: readonly number[],
  options: GitRuleOptions,
): Array<Measurement | undefined> {
  const { commits } = history;
  const tips = tipsAt(commits, history.tip, times);
  const timeOrder = times.map((_, i) => i).sort((a, b) => times[a]! - times[b]! || a - b);
  const rank = new Int32Array(times.length);
  timeOrder.forEach((i, r) => (rank[i] = r));
  const reachRaw = firstReach(commits, tips, timeOrder);
  const people = new Map<Mailmap, Array<Person | undefined>>();
  const personOf = (mailmap: Mailmap, author: number): Person => {
    let list = people.get(mailmap);
    if (!list) people.set(mailmap, (list = []));
    let p = list[author];
    if (!p) {
      const id = mailmap.map(commits.authors[author]!);
      p = list[author] = { key: (id.email || id.name).toLowerCase(), bot: options.isBot(id) };
    }
    return p;
  };
  const want = (rule: string) => options.rules.has(rule);
  const branch = history.defaultBranch;

  const asOf = options.asOf ?? Math.max(...times);
  return times.map((E, i) => {
    const T = tips[i];
    if (T === undefined && (history.tip !== undefined || E !== asOf)) return undefined;
    const values: Record<string, StoredValue> = {};
    const evidence: Record<string, string> = {};
    const horizonFrom = windowStart(E, options.horizonMonths);
    const horizon = { months: options.horizonMonths, to: E };
    if (want(releases.id)) {
      const events: number[] = [];
      let undated = 0;
      let newest: { name: string; time: number } | undefined;
      for (const tag of history.tags) {
        if (tag.time === undefined) undated++;
        else if (tag.time > horizonFrom && tag.time <= E) {
          events.push(tag.time);
          if (
            !newest ||
            tag.time > newest.time ||
            (tag.time === newest.time && tag.name > newest.name)
          )
            newest = { name: tag.name, time: tag.time };
        }
      }
      values[releases.id] = sorted(events);
      evidence[releases.id] = releases.evidence.git({
        ...horizon,
        tags: events.length,
        undated,
        newest,
      });
    }
    if (T === undefined) {
      const none = { branch, ...(history.tip === undefined ? {} : { by: E }) };
      if (want(commitsRule.id))
        [values[commitsRule.id], evidence[commitsRule.id]] = [
          { events: [] },
          commitsRule.evidence.noHistory(none),
        ];
      if (want(bus.id)) [values[bus.id], evidence[bus.id]] = [0, bus.evidence.noHistory(none)];
      if (want(security.id))
        [values[security.id], evidence[security.id]] = [false, security.evidence.noHistory(none)];
      return { values, evidence };
    }
    // The commit measured, with its committer time (not the branch time): its age is the data's.
    const revision = {
      commit: commits.oids[T]!,
      committedAt: commits.time[T]!,
      ...(branch === undefined ? {} : { branch }),
    };
    const snapshot = snapshots(commits.oids[T]!);
    // Identities are mailmapped: the evidence says so when T's .mailmap could not be read.
    const place: GitPlace = {
      ...revision,
      ...(snapshot.mailmapMissing ? { mailmapMissing: snapshot.mailmapMissing } : {}),
    };
    if (want(commitsRule.id) || want(bus.id)) {
      const busFrom = windowStart(E, options.busFactorMonths);
      const events: number[] = [];
      let bots = 0;
      const perPerson = new Map<string, number>();
      let busTotal = 0;
      const r = rank[i]!;
      for (let c = 0; c < reachRaw.length; c++) {
        const reached = reachRaw[c]!;
        if (reached < 0 || rank[reached]! > r || commits.parentCount[c]! > 1) continue;
        const t = commits.time[c]!;
        if (t > E) continue;
        const inHorizon = t > horizonFrom;
        const inBus = t > busFrom;
        if (!inHorizon && !inBus) continue;
        const person = personOf(snapshot.mailmap, commits.author[c]!);
        if (person.bot) {
          if (inHorizon) bots++;
          continue;
        }
        if (inHorizon) events.push(t);
        if (inBus) {
          perPerson.set(person.key, (perPerson.get(person.key) ?? 0) + 1);
          busTotal++;
        }
      }
      if (want(commitsRule.id)) {
        values[commitsRule.id] = sorted(events);
        evidence[commitsRule.id] = commitsRule.evidence.measured({
          ...horizon,
          commits: events.length,
          byBots: bots,
          place,
        });
      }
      if (want(bus.id)) {
        const k = absenceFactor([...perPerson.values()]);
        values[bus.id] = k;
        evidence[bus.id] = bus.evidence.measured({
          months: options.busFactorMonths,
          to: E,
          contributors: k,
          people: perPerson.size,
          commits: busTotal,
          place,
        });
      }
    }
    if (want(security.id)) {
      values[security.id] = snapshot.securityPolicy !== undefined;
      evidence[security.id] = security.evidence.measured({ file: snapshot.securityPolicy, place });
    }
    return { values, evidence, revision };
  });
}

/** CHAOSS contributor absence factor: the fewest people whose commits make at least half of all. */
export function absenceFactor(counts: readonly number[]): number {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return 0;
  const desc = [...counts].sort((a, b) => b - a);
  let sum = 0;
  for (let k = 0; k < desc.length; k++) {
    sum += desc[k]!;
    if (sum * 2 >= total) return k + 1;
  }
  return desc.length;
}

function sorted(events: number[]): EventsValue {
  return { events: events.sort((a, b) => a - b) };
}
