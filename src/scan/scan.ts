// The scan, per listed repository: plan the times (those the store does not hold yet, or holds
// with failed rules) → measure them, git's rules (the git measurer, which owns the mirror) and
// a forge adapter's when there is one, each from one pass → merge → append one record per
// time. One repository that fails is reported and the others go on; a store that fails stops
// the scan.
import pLimit from 'p-limit';
import type { ScanSettings } from '../config/types.ts';
import { type BotTest, botTest } from '../measure/bots.ts';
import { type GitMeasurer, gitMeasurer, type GitRequest } from '../measure/git/measurer.ts';
import type { ListedTarget } from '../measure/targets.ts';
import type { ForgeFor, ForgeMeasurer, GitFacts } from '../measure/types.ts';
import { isoTime } from '../model/calendar.ts';
import { eventRuleIds, GIT_RULE_IDS, measuredAt } from '../model/measured-rules.ts';
import { counted } from '../model/plural.ts';
import type { Measurement } from '../model/stored-value.ts';
import { scanRecordLine, storeFileName, type StoredScan } from '../store/record-line.ts';
import { StoreConflictError, StoreWriteError, type StoreWriter } from '../store/writer.ts';
import { completeRecord, mergeForge } from './merge.ts';
import { usableMeasurement } from './usable-values.ts';

interface ScanOptions {
  targets: readonly ListedTarget[];
  writer: StoreWriter;
  /** E: the scan time, Unix s. */
  asOf: number;
  /** Earlier times to write too (month starts), ascending, all before E. */
  historyTimes?: readonly number[];
  fetch: 'always' | 'never';
  /** The rule ids to measure (git's and forge adapters'). */
  rules: ReadonlySet<string>;
  settings: ScanSettings;
  /** More bot patterns (--bot-pattern) beside the config's. */
  botPatterns?: readonly string[];
  /** A rule's window in months by rule id (the active thresholds' timeRangeInMonths). */
  windowMonths: Readonly<Record<string, number>>;
  forgeFor?: ForgeFor;
  env?: NodeJS.ProcessEnv;
  /** Milliseconds before fetch try n (1-based); default 5 s, then 25 s. */
  backoffMs?: (n: number) => number;
  /** Each repository's problem, once, as it happens. */
  report: (line: string) => void;
  onProgress?: (done: number, total: number) => void;
}

export interface ScanSummary {
  repositories: number;
  /** Measured and written. */
  measured: number;
  /** Nothing to write: the store held every time already. */
  upToDate: number;
  records: number;
  failed: number;
  /**
   * Repositories whose stored record at a scan time lacks rules this scan measures (written by a
   * narrower --rules scan): reported, never completed by a second record at that time.
   */
  incomplete: number;
  /** Mirrors git could not read, moved aside and fetched again. */
  movedAside: number;
  /** Rule ids asked for that nothing here could measure. */
  unmeasured: string[];
  /** Rules this run chose not to ask a server for, by why (`--forge never`, a host's `api: false`, a host without a forge API). */
  notAsked: Array<{ rules: string[]; why: string }>;
  forgeRequests: number;
  /** Of forgeRequests, those the forges count against their rate limits (a free 304 is not). */
  forgeRequestsCounted: number;
}

/** What the repositories of one scan share while each is measured. */
interface ScanContext {
  o: ScanOptions;
  summary: ScanSummary;
  git: GitMeasurer;
  isBot: BotTest;
  /** The git rules asked for. */
  gitRules: ReadonlySet<string>;
  horizonMonths: number;
  /** The rules something here measured (or could, for a repository already stored). */
  measuredRules: Set<string>;
  /** Rules not asked for, by why. */
  notAsked: Map<string, Set<string>>;
}

/** A summary before any repository is scanned: every count 0. */
function emptySummary(repositories: number): ScanSummary {
  return {
    repositories,
    measured: 0,
    upToDate: 0,
    records: 0,
    failed: 0,
    incomplete: 0,
    movedAside: 0,
    unmeasured: [],
    notAsked: [],
    forgeRequests: 0,
    forgeRequestsCounted: 0,
  };
}

/** What every repository of a scan shares: its options, the git measurer, the rules and what was found. */
function scanContext(o: ScanOptions, summary: ScanSummary): ScanContext {
  const gitRules = new Set(GIT_RULE_IDS.filter((r) => o.rules.has(r)));
  // Every event rule keeps at least its own window (git's and the forge's alike).
  const horizonMonths = Math.max(
    o.settings.horizonMonths,
    ...eventRuleIds().map((r) => o.windowMonths[r] ?? 0),
  );
  const onMovedAside = (target: ListedTarget, to: string, cause: string) => {
    summary.movedAside++;
    o.report(
      `${target.source} ${target.url}: the mirror could not be read (${cause}); moved aside to ${to} and fetched again`,
    );
  };
  // One test of who is a bot, for git and every forge.
  const isBot = botTest([...o.settings.botPatterns, ...(o.botPatterns ?? [])]);
  const optional = {
    ...(o.env ? { env: o.env } : {}),
    ...(o.backoffMs ? { backoffMs: o.backoffMs } : {}),
  };
  const git = gitMeasurer({
    settings: o.settings,
    fetch: o.fetch,
    rules: gitRules,
    horizonMonths,
    windowMonths: o.windowMonths,
    isBot,
    onMovedAside,
    ...optional,
  });
  return {
    o,
    summary,
    git,
    isBot,
    gitRules,
    horizonMonths,
    measuredRules: new Set(gitRules),
    notAsked: new Map(),
  };
}

export async function scan(o: ScanOptions): Promise<ScanSummary> {
  const summary = emptySummary(o.targets.length);
  const cx = scanContext(o, summary);
  const limit = pLimit(o.settings.concurrency);
  const hostLimit = hostLimits(o);
  let storeFailure: unknown;
  let done = 0;
  const one = async (target: ListedTarget) => {
    try {
      if (storeFailure === undefined) await measureOne(cx, target);
    } catch (err) {
      if (err instanceof StoreWriteError || err instanceof StoreConflictError) {
        storeFailure ??= err;
        return;
      }
      summary.failed++;
      o.report(`${target.source} ${target.url}: ${(err as Error).message}`);
    } finally {
      o.onProgress?.(++done, o.targets.length);
    }
  };
  // The host's queue first: a repository waiting for its host holds no slot another host's could use.
  await Promise.all(o.targets.map((target) => hostLimit(target)(() => limit(() => one(target)))));
  if (storeFailure !== undefined) throw storeFailure;
  summary.unmeasured = [...o.rules].filter((r) => !cx.measuredRules.has(r)).sort();
  summary.notAsked = [...cx.notAsked]
    .filter(([, rules]) => rules.size > 0)
    .map(([why, rules]) => ({ rules: [...rules].sort(), why }))
    .sort((a, b) => (a.why < b.why ? -1 : 1));
  return summary;
}

/** Repositories of a host without a forge API measured at once under `perHost: auto` (git servers state no limit). */
const AUTO_GIT_HOST = 2;

type Limiter = <T>(run: () => Promise<T>) => Promise<T>;

/**
 * Each host's queue: `scan.perHost` at once, or under `auto` as many as its forge's rate limit
 * allows (read again as its answers come), AUTO_GIT_HOST for a host without a forge API.
 */
function hostLimits(o: ScanOptions): (target: ListedTarget) => Limiter {
  const limits = new Map<string, Limiter>();
  return (target) => {
    let l = limits.get(target.host);
    if (!l) {
      const fixed = o.settings.perHost;
      let forge: ForgeMeasurer | undefined;
      try {
        forge = o.forgeFor?.(target);
      } catch {
        // The repository's own problem, reported when it is measured: the host's limit stands.
      }
      const ceiling = o.settings.concurrency;
      limits.set(
        target.host,
        (l = limiter(
          fixed !== 'auto'
            ? () => fixed
            : () => forge?.inFlight?.(ceiling) ?? Math.min(ceiling, AUTO_GIT_HOST),
        )),
      );
    }
    return l;
  };
}

/** Runs at most `capacity()` at once, read again each time one may start (it may change as answers come). */
function limiter(capacity: () => number): Limiter {
  let active = 0;
  const waiting: Array<() => void> = [];
  const next = () => {
    while (waiting.length > 0 && active < Math.max(1, capacity())) {
      active++;
      waiting.shift()!();
    }
  };
  return async (run) => {
    await new Promise<void>((start) => {
      waiting.push(start);
      next();
    });
    try {
      return await run();
    } finally {
      active--;
      next();
    }
  };
}

/** One repository: plan the times → measure (git, then its forge) → merge → append. */
async function measureOne(cx: ScanContext, target: ListedTarget): Promise<void> {
  const plan = await planTimes(cx, target);
  if (!plan) return;
  const measured = await cx.git.measure(plan.request);
  const times = plan.request.times.filter((_, i) => measured.measurements[i] !== undefined);
  const gitMeasurements = measured.measurements.filter((m): m is Measurement => m !== undefined);
  const forged =
    plan.forge && times.length > 0
      ? await measureForge(cx, target, plan.forge, times, gitMeasurements, measured.facts)
      : { measurements: gitMeasurements, skipped: new Set<string>(), failed: false };
  await append(cx, target, plan, times, forged);
}

interface TimesPlan {
  /** The store file of the repository. */
  file: string;
  /** The repository at the times to measure, ascending. */
  request: GitRequest;
  /** The stored records (with failed rules) the times measured again complete, by time. */
  retry: Map<number, Measurement>;
  forge?: ForgeMeasurer;
}

/**
 * The times the store does not hold yet (or holds with failed rules), undefined when there
 * is nothing to measure; a stored record lacking rules this scan measures is reported.
 */
async function planTimes(cx: ScanContext, target: ListedTarget): Promise<TimesPlan | undefined> {
  const { o, summary } = cx;
  const file = storeFileName(target.host, target.path);
  const stored = await o.writer.storedTimes(file, target.url);
  const forge = o.forgeFor?.(target);
  // A host with an adapter answers its rules, whether or not this run needed to ask it (a
  // repository already stored at every time is no host without a forge API).
  for (const r of forge?.answers ?? []) if (o.rules.has(r)) cx.measuredRules.add(r);
  // A stored time whose record lists failed rules this scan measures is measured again.
  const retry = failedAt(stored, o);
  const wanted = [...new Set([...(o.historyTimes ?? []), o.asOf])]
    .filter((t) => !stored.has(t) || retry.has(t))
    .sort((a, b) => a - b);
  // A record at a time holds the rules of the scan that wrote it: one from a narrower --rules
  // scan cannot be completed (a second record at the same time is a duplicate a build skips).
  const short = lacking(stored, forge, o);
  if (short.length > 0) {
    summary.incomplete++;
    const [t, missing] = short[short.length - 1]!;
    const more =
      short.length > 1
        ? ` (and ${counted(short.length - 1, 'earlier time', 'earlier times')})`
        : '';
    o.report(
      `${target.source} ${target.url}: the stored record at ${isoTime(t)}${more} lacks ${missing.join(', ')} (a scan with a narrower --rules wrote it); ` +
        `records are appended, never replaced, and a second record at the same time is a duplicate a build skips: scan at another --as-of, or delete that record from ${file} in the store and scan again`,
    );
  }
  const request = { target, times: wanted, asOf: o.asOf };
  if (wanted.length === 0 || (await cx.git.beforeHistory(request))) {
    if (short.length === 0) summary.upToDate++;
    return undefined;
  }
  return { file, request, retry, ...(forge ? { forge } : {}) };
}

interface Forged {
  /** git's measurements with the forge's merged in, one per time. */
  measurements: Measurement[];
  /** Rules this run chose not to ask for: a stored failure of theirs stays to be measured. */
  skipped: Set<string>;
  /** Whether the adapter reported a failure. */
  failed: boolean;
}

/** The forge adapter's measurement at `times`, merged into git's. */
async function measureForge(
  cx: ScanContext,
  target: ListedTarget,
  forge: ForgeMeasurer,
  times: number[],
  git: Measurement[],
  facts: GitFacts,
): Promise<Forged> {
  const { o } = cx;
  const skipped = new Set<string>();
  const result = await forge.measure({
    target,
    times,
    asOf: o.asOf,
    git: facts,
    windowMonths: o.windowMonths,
    horizonMonths: cx.horizonMonths,
    isBot: cx.isBot,
  });
  for (const note of result.notes ?? []) o.report(`${target.source} ${target.url}: ${note}`);
  cx.summary.forgeRequests += result.requests;
  cx.summary.forgeRequestsCounted += result.counted ?? result.requests;
  const forgeRules = result.rules.filter((r) => o.rules.has(r));
  for (const r of forgeRules) cx.measuredRules.add(r);
  for (const n of result.notAsked ?? []) {
    for (const r of n.rules) skipped.add(r);
    const rules = cx.notAsked.get(n.why) ?? new Set<string>();
    // A rule of git keeps git's part (its tags): only what nothing measured is named.
    for (const r of n.rules) if (o.rules.has(r) && !cx.gitRules.has(r)) rules.add(r);
    cx.notAsked.set(n.why, rules);
  }
  const measurements = git.map((m, i) =>
    mergeForge(m, result.measurements[i], new Set(forgeRules), result.failures),
  );
  for (const f of result.failures) o.report(`${target.source} ${target.url}: ${f}`);
  return { measurements, skipped, failed: result.failures.length > 0 };
}

/** One record per time appended; a time measured again completes its stored record. */
async function append(
  cx: ScanContext,
  target: ListedTarget,
  plan: TimesPlan,
  times: number[],
  forged: Forged,
): Promise<void> {
  const { o, summary } = cx;
  // A time measured again completes its stored record, or writes nothing when no failed rule
  // was measured this time; failures still stored are failures of this scan too.
  const still: string[] = [];
  const records = times.flatMap((t, i): Array<[number, Measurement]> => {
    const held = plan.retry.get(t);
    if (!held) return [[t, forged.measurements[i]!]];
    const completing = completeRecord(held, withoutRules(forged.measurements[i]!, forged.skipped));
    const left = completing ? (completing.failed ?? []) : (held.failed ?? []);
    if (left.length > 0) still.push(`${left.join(', ')} at ${isoTime(t)}`);
    return completing ? [[t, completing]] : [];
  });
  if (forged.failed || still.length > 0) summary.failed++;
  // The adapter named its causes already; without it (not asked this time) the store's say why.
  if (!forged.failed && still.length > 0)
    o.report(
      `${target.source} ${target.url}: not measured yet: ${still.join('; ')} (each scan measures them again until they are)`,
    );
  // A record without values says nothing (e.g. --rules naming forge rules alone, on a host without a forge API).
  // An unusable value costs its own rule (null, or the event left out), never the record.
  const lines = records.flatMap(([t, m]) =>
    Object.keys(m.values).length > 0 ? [scanRecordLine(target.url, t, usableMeasurement(m))] : [],
  );
  if (lines.length > 0) await o.writer.append(plan.file, lines);
  summary.records += lines.length;
  summary.measured++;
}

/** `m` without the rules in `rules` (and their evidence). */
function withoutRules(m: Measurement, rules: ReadonlySet<string>): Measurement {
  if (rules.size === 0) return m;
  const keep = <T>(o: Record<string, T>) =>
    Object.fromEntries(Object.entries(o).filter(([r]) => !rules.has(r)));
  return {
    ...m,
    values: keep(m.values),
    evidence: keep(m.evidence),
    ...(m.failed ? { failed: m.failed.filter((r) => !rules.has(r)) } : {}),
  };
}

/**
 * The stored times (of this scan's) whose record a build uses lists failed rules this scan
 * measures, with that record: each is measured again and completed.
 */
function failedAt(
  stored: ReadonlyMap<number, StoredScan>,
  o: ScanOptions,
): Map<number, Measurement> {
  const out = new Map<number, Measurement>();
  for (const t of new Set([...(o.historyTimes ?? []), o.asOf])) {
    const used = stored.get(t)?.used;
    if (used?.failed?.some((r) => o.rules.has(r))) out.set(t, used);
  }
  return out;
}

/**
 * The stored times whose record lacks a rule this scan measures there: the git rules asked for,
 * and those of the target's forge adapter (a latest-only rule at E alone) but the ones it would
 * only hold as not asked, with the ids it lacks.
 */
function lacking(
  stored: ReadonlyMap<number, StoredScan>,
  forge: ForgeMeasurer | undefined,
  o: ScanOptions,
): Array<[number, string[]]> {
  const out: Array<[number, string[]]> = [];
  const times = [...new Set([...(o.historyTimes ?? []), o.asOf])].sort((a, b) => a - b);
  // A rule git measures too (the releases rule: its tags) is measured whether or not the forge is asked.
  const notAsked = new Set((forge?.notAsked ?? []).filter((r) => !GIT_RULE_IDS.includes(r)));
  for (const t of times) {
    const held = stored.get(t)?.rules;
    if (!held) continue;
    const measured = [...GIT_RULE_IDS, ...(forge?.answers ?? [])].filter((r) =>
      measuredAt(r, t, o.asOf),
    );
    const missing = [...new Set(measured)]
      .filter((r) => o.rules.has(r) && !held.has(r) && !notAsked.has(r))
      .sort();
    if (missing.length > 0) out.push([t, missing]);
  }
  return out;
}

/** Month starts (UTC) from `since` (a month start) up to but not including `end`. */
export function monthStarts(since: number, end: number): number[] {
  const out: number[] = [];
  const d = new Date(since * 1000);
  for (let y = d.getUTCFullYear(), m = d.getUTCMonth(); ; m++) {
    const t = Date.UTC(y, m, 1) / 1000;
    if (t >= end) break;
    out.push(t);
  }
  return out;
}
