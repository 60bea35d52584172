// One pass over a repository's forge API for all scan times of a request: each rule's data is
// fetched once for the widest range any time needs, then cut per time. A failed call sets
// only the rules that needed it to null with its cause; the others go on.
import type { ForgeMeasurer, ForgeRequest, ForgeResult, ScanTarget } from '../../types.ts';
import { windowStart } from '../../../model/calendar.ts';
import { RULE, type RegistryOff, ruleIdsOf, windowMonths } from '../../../model/measured-rules.ts';
import type { Measurement } from '../../../model/stored-value.ts';
import { describeFailure, redact } from '../../http/errors.ts';
import { ConditionalAnswers } from '../../http/conditional-answers.ts';
import type { ApiClient } from '../../http/client.ts';
import { type Actor, eventsAt, type ForgeIssue, reactionTime } from './rules.ts';
import { type BotTest, loginIsBot } from '../../bots.ts';

export interface ForgeRelease {
  tag: string;
  publishedAt: number;
}

export interface PackageVersion {
  /** "npm:@acme/widget@1.2.0", "release asset v1.2.0": for evidence only. */
  name: string;
  publishedAt: number;
}

/** Package versions, and the registries the forge says hold none (turned off, or none at all). */
export interface PackagesFound {
  versions: PackageVersion[];
  off?: readonly RegistryOff[];
}

/** CI runs that succeeded or failed, or why this instance cannot tell. */
export type CiRuns = { system: string; times: number[] } | { unavailable: string };

/**
 * Whether a repository's issues are on, or why this caller cannot tell (an API that says
 * neither without a token): the cause, naming what to set, for the reaction time's evidence.
 */
type IssuesState = { issuesEnabled: boolean } | { issuesUnknown: string };

/** What one forge family answers, in the core's shape. Each method may throw ApiError. */
export interface ForgeSource {
  /**
   * Looks the repository up (so a 404 or 401 fails every rule at once) and says whether issues
   * are on. `issuesSince` is the start `issues` will be asked for: an adapter whose first page
   * of issues can say whether issues are on asks it here instead of a lookup of its own.
   */
  repository(issuesSince: number): Promise<IssuesState>;
  /** Issues (never pull or merge requests) opened after `since`, with their reactions. */
  issues(since: number): Promise<ForgeIssue[]>;
  /** Runs created in (from, to]. */
  ciRuns(from: number, to: number): Promise<CiRuns>;
  releases(): Promise<ForgeRelease[]>;
  /** Package versions at their first publication. */
  packages(): Promise<PackagesFound>;
}

/** The rules a forge's API answers. */
export const FORGE_RULES: readonly string[] = ruleIdsOf('forge');

/** The rules measured here, by the table's handles: their ids and evidence wording. */
const {
  ciPipeline: ci,
  packages: packagesRule,
  issueReactionTime: reaction,
  releases: releasesRule,
} = RULE;

type Outcome<T> = { ok: T } | { failed: string };

/**
 * Where a repository's forge answers are kept between scans (a file of its own, asked again
 * conditionally the next scan, with the adapter's findings: core/issue-findings.ts), and the
 * bytes of bodies and findings one file holds at most.
 */
export interface KeptAnswers {
  file: (target: ScanTarget) => string;
  maxBytes?: number;
}

/**
 * A measurer for one forge family: `open` makes the source for one repository (loading what
 * it needs on its first call); a failure to open fails every rule, as the lookup does. With
 * `kept`, the repository's answers of its last scan are asked again with their ETags and this
 * scan's kept in their place (a file not written is a note, never a failure).
 */
export function sourceMeasurer(
  http: (signal?: AbortSignal, answers?: ConditionalAnswers) => ApiClient,
  open: (http: ApiClient, request: ForgeRequest) => Promise<ForgeSource>,
  kept?: KeptAnswers,
): ForgeMeasurer {
  return {
    answers: FORGE_RULES,
    async measure(request: ForgeRequest): Promise<ForgeResult> {
      const file = kept?.file(request.target);
      const answers =
        file === undefined ? undefined : await ConditionalAnswers.load(file, kept?.maxBytes);
      const client = http(request.signal, answers);
      const result = await measureOnce(() => open(client, request), client.label, request);
      const tokens = client.secrets;
      for (const m of result.measurements)
        for (const k of Object.keys(m.evidence)) m.evidence[k] = redact(m.evidence[k]!, tokens);
      const free = client.access.quirks?.conditional?.notModifiedIsFree ? client.notModified : 0;
      // A run that asked nothing keeps the last scan's answers as they are.
      const notes =
        answers && file !== undefined && client.requests > 0 ? await keep(answers, file) : [];
      return {
        ...result,
        failures: result.failures.map((f) => redact(f, tokens)),
        requests: client.requests,
        notModified: client.notModified,
        counted: client.requests - free,
        ...(notes.length > 0 ? { notes } : {}),
      };
    },
  };
}

/** This scan's answers saved for the next, or the note that they were not. */
async function keep(answers: ConditionalAnswers, file: string): Promise<string[]> {
  try {
    await answers.save(file);
    return [];
  } catch (err) {
    return [
      `the forge's answers were not kept for the next scan (${file}): ${(err as Error).message}`,
    ];
  }
}

/**
 * `issues` with every author and reactor a bot that the adapter or the scan's test says is one:
 * the adapters apply the test too (to skip reading a bot's issue), this keeps any adapter to it.
 */
function withBots(issues: ForgeIssue[], isBot: BotTest | undefined): ForgeIssue[] {
  const actor = (a: Actor): Actor =>
    a.bot || !loginIsBot(isBot, a.login) ? a : { ...a, bot: true };
  return issues.map((i) => ({
    ...i,
    author: actor(i.author),
    reactions: i.reactions.map((r) => ({ ...r, actor: actor(r.actor) })),
  }));
}

async function attempt<T>(label: string, run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: await run() };
  } catch (error) {
    return { failed: describeFailure(label, error) };
  }
}

async function measureOnce(
  open: () => Promise<ForgeSource>,
  label: string,
  request: ForgeRequest,
): Promise<Omit<ForgeResult, 'requests'>> {
  const { times, horizonMonths } = request;
  const measurements: Measurement[] = times.map(() => ({ values: {}, evidence: {} }));
  const failures: string[] = [];
  const set = (rule: string, value: (t: number) => [Measurement['values'][string], string]) =>
    times.forEach((t, i) => {
      const [v, e] = value(t);
      measurements[i]!.values[rule] = v;
      measurements[i]!.evidence[rule] = e;
    });
  const fail = (rule: string, cause: string) => set(rule, () => [null, cause]);
  const result = () => ({
    measurements,
    rules: [...FORGE_RULES],
    failures: [...new Set(failures)],
  });
  if (times.length === 0) return result();

  const end = times[times.length - 1]!;
  const horizonStart = Math.min(...times.map((t) => windowStart(t, horizonMonths)));
  const months = windowMonths(RULE.issueReactionTime, request.windowMonths)!;
  const since = Math.min(...times.map((t) => windowStart(t, months)));
  // A repository a source listed this run: its list said whether issues are on, the lookup
  // is saved (it exists: it was just listed with the same token).
  const listed = request.target.issuesEnabled;
  const repo = await attempt(label, async () => {
    const source = await open();
    const issues: IssuesState =
      listed !== undefined ? { issuesEnabled: listed } : await source.repository(since);
    return { source, issues };
  });
  if ('failed' in repo) {
    failures.push(repo.failed);
    for (const rule of FORGE_RULES) fail(rule, repo.failed);
    return result();
  }
  const { source } = repo.ok;

  // Unknown is no "disabled": a failure of ours (no token), named, and measured again with one.
  if ('issuesUnknown' in repo.ok.issues) {
    failures.push(repo.ok.issues.issuesUnknown);
    fail(reaction.id, repo.ok.issues.issuesUnknown);
  } else if (!repo.ok.issues.issuesEnabled) fail(reaction.id, reaction.evidence.disabled());
  else {
    const issues = await attempt(label, async () =>
      withBots(await source.issues(since), request.isBot),
    );
    if ('failed' in issues) {
      failures.push(issues.failed);
      fail(reaction.id, issues.failed);
    } else {
      set(reaction.id, (t) => {
        const r = reactionTime(issues.ok, t, months);
        if (!r) return [null, reaction.evidence.noIssue({ months, to: t })];
        return [r.days, reaction.evidence.measured({ months, to: t, ...r })];
      });
    }
  }

  const runs = await attempt(label, () => source.ciRuns(horizonStart, end));
  if ('failed' in runs) {
    failures.push(runs.failed);
    fail(ci.id, runs.failed);
  } else if ('unavailable' in runs.ok) fail(ci.id, runs.ok.unavailable);
  else {
    const { system, times: runTimes } = runs.ok;
    set(ci.id, (t) => {
      const events = eventsAt(runTimes, t, horizonMonths);
      return [
        { events },
        ci.evidence.measured({ months: horizonMonths, to: t, system, runs: events.length }),
      ];
    });
  }

  const releases = await attempt(label, () => source.releases());
  if ('failed' in releases) {
    failures.push(releases.failed);
    fail(releasesRule.id, releases.failed);
  } else {
    const extra = releases.ok.filter(
      (r) => !request.git.tagNames.has(r.tag) && Number.isFinite(r.publishedAt),
    );
    set(releasesRule.id, (t) => {
      const events = eventsAt(
        extra.map((r) => r.publishedAt),
        t,
        horizonMonths,
      );
      return [
        { events },
        releasesRule.evidence.forge({ months: horizonMonths, to: t, releases: events.length }),
      ];
    });
  }

  const packages = await attempt(label, () => source.packages());
  if ('failed' in packages) {
    failures.push(packages.failed);
    fail(packagesRule.id, packages.failed);
  } else {
    const published = packages.ok.versions.filter((p) => Number.isFinite(p.publishedAt));
    const off = packages.ok.off ?? [];
    set(packagesRule.id, (t) => {
      const events = eventsAt(
        published.map((p) => p.publishedAt),
        t,
        horizonMonths,
      );
      return [
        { events },
        packagesRule.evidence.measured({
          months: horizonMonths,
          to: t,
          versions: events.length,
          off,
        }),
      ];
    });
  }
  return result();
}
