// The git measurer, beside the forge measurers: one repository's git rules for the scan times,
// with its mirror policy its own. A `mirror=` repository is read as it is; our own mirror is
// locked against other scans sharing the mirrors folder, fetched (`--fetch always`), read,
// and, when git cannot read it, moved aside and fetched again once.
import { stat } from 'node:fs/promises';
import type { ScanSettings } from '../../config/types.ts';
import { RULE, windowMonths } from '../../model/measured-rules.ts';
import { tokenFor } from '../host-token.ts';
import type { ListedTarget } from '../targets.ts';
import type { BotTest } from '../bots.ts';
import type { MeasureRequest, Measurer } from '../types.ts';
import { gitTokenConfig } from './credentials.ts';
import { firstCommitTime } from './history.ts';
import { type GitMeasurement, measureRepository } from './measure.ts';
import {
  type FetchPolicy,
  fetchBlobs,
  gitDirProblem,
  isLockFailure,
  isTransportFailure,
  lockMirror,
  mirrorPath,
  moveAside,
  updateMirror,
} from './mirror.ts';
import type { GitRuleOptions } from './rules.ts';
import { GitError, type GitSettings } from './run.ts';

interface GitMeasurerOptions {
  settings: ScanSettings;
  fetch: 'always' | 'never';
  /** The git rules to measure. */
  rules: ReadonlySet<string>;
  /** Event rules keep every event within this many months before each time. */
  horizonMonths: number;
  /** A rule's window in months by rule id (the active thresholds' timeRangeInMonths). */
  windowMonths: Readonly<Record<string, number>>;
  /** Who is a bot (the scan's one test, `scan.botPatterns` and --bot-pattern with it). */
  isBot: BotTest;
  env?: NodeJS.ProcessEnv;
  /** Milliseconds before fetch try n (1-based); default 5 s, then 25 s. */
  backoffMs?: (n: number) => number;
  /** Our mirror of `target` git could not read (`cause`), moved aside to `to`; fetched again next. */
  onMovedAside?: (target: ListedTarget, to: string, cause: string) => void;
}

/** One repository's git rules at the scan times: the target with what git fetches from. */
export type GitRequest = MeasureRequest<ListedTarget>;

export interface GitMeasurer extends Measurer<GitRequest, GitMeasurement> {
  /**
   * Whether every time wanted precedes the default branch's first commit (or the branch has
   * none and E is not wanted), as the mirror already on disk tells: such times never get a
   * record, so a re-run of a history neither fetches nor measures again. Without a mirror, or
   * when git cannot tell, false (the repository is fetched and measured).
   */
  beforeHistory(request: GitRequest): Promise<boolean>;
}

export function gitMeasurer(o: GitMeasurerOptions): GitMeasurer {
  const ruleOptions = (asOf: number): GitRuleOptions => ({
    rules: o.rules,
    horizonMonths: o.horizonMonths,
    asOf,
    // The bus factor's window, as its table entry says (the scan setting `busFactorMonths`).
    busFactorMonths: windowMonths(RULE.busFactor, o.windowMonths, o.settings)!,
    isBot: o.isBot,
  });
  const backoffMs = o.backoffMs ?? ((n: number) => 5000 * 5 ** (n - 1));
  const mirrorOf = (target: ListedTarget) =>
    target.mirror ?? mirrorPath(o.settings.mirrors, target.url, target.host, target.path);
  return {
    async beforeHistory({ target, times: wanted, asOf }) {
      if (wanted.includes(asOf)) return false;
      const dir = mirrorOf(target);
      if (!(await exists(dir))) return false;
      const first = await firstCommitTime(dir, gitSettings(target, o)).catch(() => undefined);
      return first !== undefined && wanted.every((t) => first === null || t < first);
    },
    async measure({ target, times: wanted, asOf }) {
      const settings = gitSettings(target, o);
      const rules = ruleOptions(asOf);
      if (target.mirror !== undefined)
        return theirMirror(target.mirror, target, wanted, rules, settings);
      return ourMirror(
        mirrorOf(target),
        target,
        wanted,
        rules,
        { settings, retries: o.settings.retries, backoffMs },
        o,
      );
    },
  };
}

/** A `mirror=` repository, read as it is: only a failure asks why (no process more for every one that reads well). */
async function theirMirror(
  dir: string,
  target: ListedTarget,
  wanted: readonly number[],
  ruleOptions: GitRuleOptions,
  settings: GitSettings,
): Promise<GitMeasurement> {
  return measureRepository(dir, wanted, ruleOptions, settings).catch(async (err: unknown) => {
    const problem = await gitDirProblem(dir, settings);
    if (problem)
      throw new Error(
        `mirror=${dir} (${target.source}) is not a bare git repository: ${problem}; name a bare repository (git clone --bare or --mirror) or drop mirror=`,
      );
    throw err;
  });
}

async function ourMirror(
  gitDir: string,
  target: ListedTarget,
  wanted: readonly number[],
  ruleOptions: GitRuleOptions,
  fetchPolicy: FetchPolicy,
  o: GitMeasurerOptions,
): Promise<GitMeasurement> {
  const { settings } = fetchPolicy;
  if (o.fetch === 'never' && !(await exists(gitDir)))
    throw new Error(
      `no mirror at ${gitDir} and --fetch never; scan once without --fetch never to fetch it`,
    );
  // The .mailmap blobs the measured trees name are fetched with the mirror, in one request;
  // with --fetch never one the mirror lacks is read as none (the evidence says so).
  const blobs =
    o.fetch === 'always'
      ? (oids: readonly string[]) => fetchBlobs(gitDir, oids, fetchPolicy)
      : undefined;
  // Scans sharing the mirrors folder take turns at a mirror: fetched, read and (if need be)
  // moved aside by one at a time. A wait as long as one git process may take.
  const lock = await lockMirror(gitDir, o.settings.timeoutSeconds);
  // Whether it was there before this scan's fetch (another scan may have cloned it meanwhile).
  const existed = await exists(gitDir);
  try {
    if (o.fetch === 'always') await updateMirror(gitDir, target.fetchUrl, fetchPolicy);
    return await measureRepository(gitDir, wanted, ruleOptions, settings, blobs);
  } catch (err) {
    // Our own mirror that git cannot read (not the remote failing, nor another git process
    // holding one of its locks): moved aside and fetched again, once.
    if (
      !existed ||
      o.fetch === 'never' ||
      !(err instanceof GitError) ||
      isTransportFailure(err) ||
      isLockFailure(err)
    )
      throw err;
    const aside = await moveAside(gitDir, Math.floor(Date.now() / 1000));
    o.onMovedAside?.(target, aside, err.message);
    await updateMirror(gitDir, target.fetchUrl, fetchPolicy);
    return await measureRepository(gitDir, wanted, ruleOptions, settings, blobs);
  } finally {
    await lock.release();
  }
}

function gitSettings(target: ListedTarget, o: GitMeasurerOptions): GitSettings {
  const token = target.mirror === undefined ? tokenFor(target.host, o.settings, o.env) : undefined;
  const scheme = target.fetchUrl.slice(0, target.fetchUrl.indexOf(':')).toLowerCase();
  return {
    timeoutMs: o.settings.timeoutSeconds * 1000,
    ...(token && scheme.startsWith('http')
      ? { secretConfig: gitTokenConfig(scheme, target.host, token) }
      : {}),
  };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
