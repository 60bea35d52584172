// The scan: for each listed repository, the times the store does not hold yet, its mirror
// brought up to date, the git rules (and a forge adapter's, when there is one) measured for
// all those times from one pass, and one record per time appended. One repository that fails
// is reported and the others go on; a store that fails stops the scan.
import { stat } from 'node:fs/promises';
import pLimit from 'p-limit';
import type { ScanSettings } from '../config/types.ts';
import { botTest } from '../measure/git/bots.ts';
import { firstCommitTime } from '../measure/git/history.ts';
import { measureRepository } from '../measure/git/measure.ts';
import { fetchBlobs, gitDirProblem, isLockFailure, isTransportFailure, lockMirror, mirrorPath, moveAside, updateMirror, type FetchPolicy } from '../measure/git/mirror.ts';
import { GitError, type GitSettings } from '../measure/git/run.ts';
import { tokenFor } from '../measure/host-token.ts';
import type { ListedTarget } from '../measure/targets.ts';
import type { ForgeFor, ForgeMeasurer, Measurement } from '../measure/types.ts';
import { isoTime } from '../model/calendar.ts';
import { eventRuleIds, GIT_RULE_IDS } from '../model/measured-rules.ts';
import { scanRecordLine, storeFileName, type StoredScan } from '../store/record-line.ts';
import { StoreConflictError, StoreWriteError, type StoreWriter } from '../store/writer.ts';
import { gitTokenConfig } from './credentials.ts';
import { completeRecord, mergeForge } from './merge.ts';
import { usableMeasurement } from './usable-values.ts';

export interface ScanOptions {
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
  /** Rules this run chose not to ask a server for, by why (`--forge never`, a host's `api: false`). */
  notAsked: Array<{ rules: string[]; why: string }>;
  forgeRequests: number;
}

export async function scan(o: ScanOptions): Promise<ScanSummary> {
  const summary: ScanSummary = { repositories: o.targets.length, measured: 0, upToDate: 0, records: 0, failed: 0, incomplete: 0, movedAside: 0, unmeasured: [], notAsked: [], forgeRequests: 0 };
  const gitRules = new Set(GIT_RULE_IDS.filter((r) => o.rules.has(r)));
  const measuredRules = new Set<string>(gitRules);
  // Every event rule keeps at least its own window (git's and the forge's alike).
  const horizonMonths = Math.max(o.settings.horizonMonths, ...eventRuleIds().map((r) => o.windowMonths[r] ?? 0));
  const notAsked = new Map<string, Set<string>>();
  const ruleOptions = { rules: gitRules, horizonMonths, asOf: o.asOf, busFactorMonths: o.settings.busFactorMonths, isBot: botTest([...o.settings.botPatterns, ...(o.botPatterns ?? [])]) };
  const limit = pLimit(o.settings.concurrency);
  const hostLimits = new Map<string, ReturnType<typeof pLimit>>();
  const hostLimit = (host: string) => {
    let l = hostLimits.get(host);
    if (!l) hostLimits.set(host, (l = pLimit(o.settings.perHost)));
    return l;
  };
  let storeFailure: unknown;
  let done = 0;

  const one = async (target: ListedTarget): Promise<void> => {
    if (storeFailure !== undefined) return;
    const file = storeFileName(target.host, target.path);
    const stored = await o.writer.storedTimes(file, target.url);
    const forge = o.forgeFor?.(target);
    // A host with an adapter answers its rules, whether or not this run needed to ask it (a
    // repository already stored at every time is no host without a forge API).
    for (const r of [...(forge?.answers.always ?? []), ...(forge?.answers.latest ?? [])]) if (o.rules.has(r)) measuredRules.add(r);
    // A stored time whose record lists failed rules this scan measures is measured again.
    const retry = failedAt(stored, o);
    const wanted = [...new Set([...(o.historyTimes ?? []), o.asOf])].filter((t) => !stored.has(t) || retry.has(t)).sort((a, b) => a - b);
    // A record at a time holds the rules of the scan that wrote it: one from a narrower --rules
    // scan cannot be completed (a second record at the same time is a duplicate a build skips).
    const short = lacking(stored, forge, o);
    if (short.length > 0) {
      summary.incomplete++;
      const [t, missing] = short[short.length - 1]!;
      const more = short.length > 1 ? ` (and ${short.length - 1} earlier times)` : '';
      o.report(
        `${target.source} ${target.url}: the stored record at ${isoTime(t)}${more} lacks ${missing.join(', ')} (a scan with a narrower --rules wrote it); ` +
          `records are appended, never replaced, and a second record at the same time is a duplicate a build skips: scan at another --as-of, or delete that record from ${file} in the store and scan again`,
      );
    }
    const settings = gitSettings(target, o);
    if (wanted.length === 0 || (await beforeHistory(wanted, target, settings, o))) {
      if (short.length === 0) summary.upToDate++;
      return;
    }
    const fetchPolicy: FetchPolicy = { settings, retries: o.settings.retries, backoffMs: o.backoffMs ?? ((n) => 5000 * 5 ** (n - 1)) };
    let measured;
    if (target.mirror !== undefined) {
      // Only a failure asks why (no process more for every repository that reads well).
      const dir = target.mirror;
      measured = await measureRepository(dir, wanted, ruleOptions, settings).catch(async (err: unknown) => {
        const problem = await gitDirProblem(dir, settings);
        if (problem) throw new Error(`mirror=${dir} (${target.source}) is not a bare git repository: ${problem}; name a bare repository (git clone --bare or --mirror) or drop mirror=`);
        throw err;
      });
    } else {
      const gitDir = mirrorPath(o.settings.mirrors, target.url, target.host, target.path);
      if (o.fetch === 'never' && !(await exists(gitDir))) throw new Error(`no mirror at ${gitDir} and --fetch never; scan once without --fetch never to fetch it`);
      // The .mailmap blobs the measured trees name are fetched with the mirror, in one request;
      // with --fetch never one the mirror lacks is read as none (the evidence says so).
      const blobs = o.fetch === 'always' ? (oids: readonly string[]) => fetchBlobs(gitDir, oids, fetchPolicy) : undefined;
      // Scans sharing the mirrors folder take turns at a mirror: fetched, read and (if need be)
      // moved aside by one at a time. A wait as long as one git process may take.
      const lock = await lockMirror(gitDir, o.settings.timeoutSeconds);
      // Whether it was there before this scan's fetch (another scan may have cloned it meanwhile).
      const existed = await exists(gitDir);
      try {
        if (o.fetch === 'always') await updateMirror(gitDir, target.fetchUrl, fetchPolicy);
        measured = await measureRepository(gitDir, wanted, ruleOptions, settings, blobs);
      } catch (err) {
        // Our own mirror that git cannot read (not the remote failing, nor another git process
        // holding one of its locks): moved aside and fetched again, once.
        if (!existed || o.fetch === 'never' || !(err instanceof GitError) || isTransportFailure(err) || isLockFailure(err)) throw err;
        const aside = await moveAside(gitDir, Math.floor(Date.now() / 1000));
        summary.movedAside++;
        o.report(`${target.source} ${target.url}: the mirror could not be read (${err.message}); moved aside to ${aside} and fetched again`);
        await updateMirror(gitDir, target.fetchUrl, fetchPolicy);
        measured = await measureRepository(gitDir, wanted, ruleOptions, settings, blobs);
      } finally {
        await lock.release();
      }
    }
    const times = wanted.filter((_, i) => measured.measurements[i] !== undefined);
    let measurements = measured.measurements.filter((m): m is Measurement => m !== undefined);
    let forgeFailed = false;
    // Rules this run chose not to ask for: a stored failure of theirs stays to be measured.
    const skipped = new Set<string>();
    if (forge && times.length > 0) {
      const result = await forge.measure({ target, times, git: measured.facts, windowMonths: o.windowMonths, horizonMonths });
      summary.forgeRequests += result.requests;
      const forgeRules = result.rules.filter((r) => o.rules.has(r));
      for (const r of forgeRules) measuredRules.add(r);
      for (const n of result.notAsked ?? []) {
        for (const r of n.rules) skipped.add(r);
        const rules = notAsked.get(n.why) ?? new Set<string>();
        // A rule of git keeps git's part (its tags): only what nothing measured is named.
        for (const r of n.rules) if (o.rules.has(r) && !gitRules.has(r)) rules.add(r);
        notAsked.set(n.why, rules);
      }
      measurements = measurements.map((m, i) => mergeForge(m, result.measurements[i], new Set(forgeRules), result.failures));
      for (const f of result.failures) o.report(`${target.source} ${target.url}: ${f}`);
      if (result.failures.length > 0) forgeFailed = true;
    }
    // A time measured again completes its stored record, or writes nothing when no failed rule
    // was measured this time; failures still stored are failures of this scan too.
    const still: string[] = [];
    const records = times.flatMap((t, i): Array<[number, Measurement]> => {
      const held = retry.get(t);
      if (!held) return [[t, measurements[i]!]];
      const completing = completeRecord(held, withoutRules(measurements[i]!, skipped));
      const left = completing ? (completing.failed ?? []) : (held.failed ?? []);
      if (left.length > 0) still.push(`${left.join(', ')} at ${isoTime(t)}`);
      return completing ? [[t, completing]] : [];
    });
    if (forgeFailed || still.length > 0) summary.failed++;
    // The adapter named its causes already; without it (not asked this time) the store's say why.
    if (!forgeFailed && still.length > 0) o.report(`${target.source} ${target.url}: not measured yet: ${still.join('; ')} (each scan measures them again until they are)`);
    // A record without values says nothing (e.g. --rules naming forge rules alone, on a host without a forge API).
    // An unusable value costs its own rule (null, or the event left out), never the record.
    const lines = records.flatMap(([t, m]) => (Object.keys(m.values).length > 0 ? [scanRecordLine(target.url, t, usableMeasurement(m))] : []));
    if (lines.length > 0) await o.writer.append(file, lines);
    summary.records += lines.length;
    summary.measured++;
  };

  // The host's queue first: a repository waiting for its host holds no slot another host's could use.
  await Promise.all(
    o.targets.map((target) =>
      hostLimit(target.host)(() =>
        limit(async () => {
          try {
            await one(target);
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
        }),
      ),
    ),
  );
  if (storeFailure !== undefined) throw storeFailure;
  summary.unmeasured = [...o.rules].filter((r) => !measuredRules.has(r)).sort();
  summary.notAsked = [...notAsked]
    .filter(([, rules]) => rules.size > 0)
    .map(([why, rules]) => ({ rules: [...rules].sort(), why }))
    .sort((a, b) => (a.why < b.why ? -1 : 1));
  return summary;
}

/**
 * Whether every time still wanted precedes the default branch's first commit (or the branch has
 * none and E is stored), as the mirror already on disk tells: such times never get a record,
 * so a re-run of a history neither fetches nor measures again. Without a mirror, or when git
 * cannot tell, false (the repository is fetched and measured).
 */
async function beforeHistory(wanted: readonly number[], target: ListedTarget, settings: GitSettings, o: ScanOptions): Promise<boolean> {
  if (wanted.includes(o.asOf)) return false;
  const dir = target.mirror ?? mirrorPath(o.settings.mirrors, target.url, target.host, target.path);
  if (!(await exists(dir))) return false;
  const first = await firstCommitTime(dir, settings).catch(() => undefined);
  return first !== undefined && wanted.every((t) => first === null || t < first);
}

/** `m` without the rules in `rules` (and their evidence). */
function withoutRules(m: Measurement, rules: ReadonlySet<string>): Measurement {
  if (rules.size === 0) return m;
  const keep = <T>(o: Record<string, T>) => Object.fromEntries(Object.entries(o).filter(([r]) => !rules.has(r)));
  return { ...m, values: keep(m.values), evidence: keep(m.evidence), ...(m.failed ? { failed: m.failed.filter((r) => !rules.has(r)) } : {}) };
}

/**
 * The stored times (of this scan's) whose record a build uses lists failed rules this scan
 * measures, with that record: each is measured again and completed.
 */
function failedAt(stored: ReadonlyMap<number, StoredScan>, o: ScanOptions): Map<number, Measurement> {
  const out = new Map<number, Measurement>();
  for (const t of new Set([...(o.historyTimes ?? []), o.asOf])) {
    const used = stored.get(t)?.used;
    if (used?.failed?.some((r) => o.rules.has(r))) out.set(t, used);
  }
  return out;
}

/**
 * The stored times whose record lacks a rule this scan measures there: the git rules asked for,
 * and those of the target's forge adapter (a latest-only rule at E alone), with the ids it lacks.
 */
function lacking(stored: ReadonlyMap<number, StoredScan>, forge: ForgeMeasurer | undefined, o: ScanOptions): Array<[number, string[]]> {
  const out: Array<[number, string[]]> = [];
  const times = [...new Set([...(o.historyTimes ?? []), o.asOf])].sort((a, b) => a - b);
  for (const t of times) {
    const held = stored.get(t)?.rules;
    if (!held) continue;
    const measured = [...GIT_RULE_IDS, ...(forge?.answers.always ?? []), ...(t === o.asOf ? (forge?.answers.latest ?? []) : [])];
    const missing = [...new Set(measured)].filter((r) => o.rules.has(r) && !held.has(r)).sort();
    if (missing.length > 0) out.push([t, missing]);
  }
  return out;
}

function gitSettings(target: ListedTarget, o: ScanOptions): GitSettings {
  const token = target.mirror === undefined ? tokenFor(target.host, o.settings, o.env) : undefined;
  const scheme = target.fetchUrl.slice(0, target.fetchUrl.indexOf(':')).toLowerCase();
  return {
    timeoutMs: o.settings.timeoutSeconds * 1000,
    ...(token && scheme.startsWith('http') ? { secretConfig: gitTokenConfig(scheme, target.host, token) } : {}),
  };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
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
