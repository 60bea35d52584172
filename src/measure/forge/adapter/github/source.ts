// GitHub (github.com and GitHub Enterprise Server) through Octokit, with its throttling and
// retry plugins; every request goes through the core's queue (its `fetch`). Loaded by the
// adapter (index.ts) on its first repository: Octokit is most of what a scan would load.
import { Octokit } from '@octokit/rest';
import { throttling } from '@octokit/plugin-throttling';
import { retry } from '@octokit/plugin-retry';
import { ApiError, httpFailure, rateLimitFailure, undocumented } from '../../../http/errors.ts';
import { isRateLimited, nextPageUrl, resetAtOf, type ApiClient } from '../../../http/client.ts';
import type {
  CiRuns,
  ForgeRelease,
  ForgeSource,
  PackagesFound,
  PackageVersion,
} from '../../core/measurer.ts';
import { unixOf, type Actor, type ForgeIssue, type IssueReaction } from '../../core/rules.ts';
import { appTokens } from './app.ts';
import {
  ISSUES_QUERY,
  issuesByGraphql,
  issuesVariables,
  type IssuesPage,
  MAINTAINER_ASSOCIATIONS,
} from './issues-graphql.ts';
import { isoTime } from '../../../../model/calendar.ts';
import { counted } from '../../../../model/plural.ts';
import type { ForgeRequest } from '../../../types.ts';
import { type BotTest, loginIsBot } from '../../../bots.ts';

const GitHubOctokit = Octokit.plugin(throttling, retry);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** The list of runs answers at most this many results for one query. */
const RUN_LIST_CAP = 1000;
/** A range of runs is split no finer than this (seconds): past it, the CI rule (RULE.ciPipeline) is null with the cause. */
const RUN_SPLIT_FLOOR = 3600;

/** Triage actions on an issue; on GitHub only people with triage access or more can take them on others' issues. */
const TRIAGE_EVENTS = new Set(['labeled', 'assigned', 'milestoned', 'closed']);

interface User {
  login: string;
  type?: string;
}

/** GitHub's own sign of a bot, `type: Bot` (an app), beside the scan's test (`[bot]`, botPatterns). */
function isBot(user: User | null | undefined, test: BotTest | undefined): boolean {
  return !user || user.type === 'Bot' || loginIsBot(test, user.login);
}

function actor(
  user: User | null | undefined,
  test: BotTest | undefined,
  association?: string,
): Actor {
  return {
    login: user?.login ?? '',
    bot: isBot(user, test),
    maintainer: association !== undefined && MAINTAINER_ASSOCIATIONS.has(association),
  };
}

const iso = isoTime;

/** The first second of `unix`'s UTC month. */
function monthFloor(unix: number): number {
  const d = new Date(unix * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
}

/** The last second of `unix`'s UTC month. */
function monthCeiling(unix: number): number {
  const d = new Date(unix * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000 - 1;
}

/** Octokit's error as the core's: status, rate limit and reset, never the request's text. */
function fromOctokit(error: unknown, http: ApiClient): unknown {
  const e = error as {
    status?: number;
    response?: { headers: Record<string, string | number | undefined> };
    message?: string;
    cause?: unknown;
  };
  if (typeof e?.status !== 'number' || !e.response) {
    const cause = e?.cause as { name?: string } | undefined;
    if (cause?.name === 'TimeoutError' || (error as Error)?.name === 'TimeoutError') {
      return new ApiError(
        'timeout',
        `${http.label}: no answer within ${http.access.timeoutSeconds} s`,
      );
    }
    return cause ?? error;
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(e.response.headers))
    if (v !== undefined) headers.set(k, String(v));
  const secondary = /secondary rate/i.test(e.message ?? '');
  if (secondary || isRateLimited(e.status, headers)) {
    const now = Date.now();
    return rateLimitFailure(
      http.label,
      e.status,
      resetAtOf(headers, now),
      Math.floor(now / 1000),
      secondary,
    );
  }
  return httpFailure(http.label, e.status, http.access.tokenEnv);
}

/**
 * A GraphQL answer whose `errors` say why (HTTP 200 all the same) as the core's error: a used-up
 * point budget is a rate limit with its reset, a repository not found a 404; any other is
 * named by its type alone (a message may quote the query).
 */
function fromGraphql(error: unknown, http: ApiClient): unknown {
  // @octokit/graphql's GraphqlResponseError, or the throttling plugin's "GraphQL Rate Limit
  // Exceeded" (an Error with the answer) once it gave up waiting.
  type Headed = { headers?: Record<string, string | number | undefined> };
  const e = error as Headed & { errors?: unknown; data?: { errors?: unknown }; response?: Headed };
  const errors = e?.errors ?? e?.data?.errors;
  if (!Array.isArray(errors)) return error;
  const types = errors.map((x: { type?: unknown }) =>
    typeof x?.type === 'string' ? x.type : 'error',
  );
  if (types.includes('RATE_LIMITED')) {
    const headers = new Headers();
    for (const [k, v] of Object.entries(e.headers ?? e.response?.headers ?? {}))
      if (v !== undefined) headers.set(k, String(v));
    const now = Date.now();
    return rateLimitFailure(http.label, 403, resetAtOf(headers, now, true), Math.floor(now / 1000));
  }
  if (types.includes('NOT_FOUND')) return httpFailure(http.label, 404, http.access.tokenEnv);
  return new ApiError(
    'http',
    `${http.label}: the GraphQL query was refused (${[...new Set(types)].join(', ')})`,
  );
}

/** Refusals of the core's transport that asking again cannot change. */
const FINAL_KINDS = new Set(['refused', 'bound', 'malformed']);

/**
 * The core's fetch for Octokit, whose retry plugin sends a failed fetch again: a refusal of
 * ours (another origin, a bound reached, an answer not JSON) is handed over as an abort, which
 * Octokit passes on as it is, unretried; `fromOctokit` finds the refusal as its cause.
 */
function unretried(http: ApiClient): typeof fetch {
  return async (input, init) => {
    try {
      return await http.fetch(input, init);
    } catch (error) {
      if (error instanceof ApiError && FINAL_KINDS.has(error.kind))
        throw Object.assign(new Error(error.message), { name: 'AbortError', cause: error });
      throw error;
    }
  };
}

export async function githubSource(http: ApiClient, request: ForgeRequest): Promise<ForgeSource> {
  const [owner, repo] = request.target.path.split('/') as [string, string];
  // As a GitHub App: the installation's token for this repository, instead of the pool's.
  const app = appTokens(http);
  if (app) http.useToken(await app.token(http, owner, repo));
  const maxWait = http.access.maxWaitSeconds;
  const octokit = new GitHubOctokit({
    baseUrl: http.access.apiUrl,
    userAgent: 'badgepress',
    log: quiet,
    request: { fetch: unretried(http) },
    throttle: {
      // Wait for a reset only when it is near; otherwise the rules that need the call fail now.
      // The plugin reads Retry-After as a plain number: a negative one ("-5") is no delay
      // RFC 9110 allows, so it is not waited for either.
      onRateLimit: (retryAfter: number, _o: unknown, _k: unknown, retryCount: number) =>
        retryCount < 2 && retryAfter >= 0 && retryAfter <= maxWait,
      onSecondaryRateLimit: (retryAfter: number, _o: unknown, _k: unknown, retryCount: number) =>
        retryCount < 2 && retryAfter >= 0 && retryAfter <= maxWait,
    },
    retry: { retries: 1 },
  });
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw fromOctokit(error, http);
    }
  };
  const base = { owner, repo, per_page: 100 };
  const malformed = (what: string) => undocumented(http.label, what);

  /**
   * Every item of a paged list, each page checked by the core (a JSON list, within
   * maxPagesPerList, its next link on the API's origin and not seen before).
   */
  const list = <T>(
    iterate: () => AsyncIterable<{ data: unknown; headers: { link?: string } }>,
    name: string,
  ): Promise<T[]> =>
    call(async () => {
      const guard = http.pageGuard(name);
      const out: T[] = [];
      for await (const response of iterate()) {
        const next = nextPageUrl(
          new Headers(response.headers.link ? { link: response.headers.link } : {}),
        );
        guard(response.data, next);
        out.push(...(response.data as T[]));
      }
      return out;
    });

  let releaseList:
    | Promise<Awaited<ReturnType<typeof octokit.rest.repos.listReleases>>['data']>
    | undefined;
  const releases = () =>
    (releaseList ??= noReleases()
      ? Promise.resolve([])
      : list(
          () => octokit.paginate.iterator(octokit.rest.repos.listReleases, base),
          `/repos/${owner}/${repo}/releases`,
        ));

  /**
   * Runs created in [from, to] (inclusive, whole seconds), split wherever the list is capped;
   * with `split` false a capped list is not read but answered false.
   */
  async function runsIn(from: number, to: number, out: number[], split = true): Promise<boolean> {
    const query = { ...base, created: `${iso(from)}..${iso(to)}` };
    const runsPage = async (page: number) => {
      const answer = await call(() =>
        octokit.rest.actions.listWorkflowRunsForRepo({ ...query, page }),
      );
      if (typeof answer.data?.total_count !== 'number' || !Array.isArray(answer.data.workflow_runs))
        throw malformed(`a page of /repos/${owner}/${repo}/actions/runs`);
      return answer;
    };
    const first = await runsPage(1);
    if (!split && first.data.total_count >= RUN_LIST_CAP) return false;
    // GitHub documents the cap, not whether a capped list's total_count is capped too: a range
    // that may hold more than it answers (a total_count of 1,000 or more) is split.
    if (first.data.total_count >= RUN_LIST_CAP && to - from + 1 > RUN_SPLIT_FLOOR) {
      const mid = Math.floor((from + to) / 2);
      await runsIn(from, mid, out);
      await runsIn(mid + 1, to, out);
      return true;
    }
    if (first.data.total_count >= RUN_LIST_CAP) {
      // An hour that may hold more runs than one query answers: splitting further would cost
      // a request a second; the runs cannot all be read for sure, so the value is not given.
      throw new ApiError(
        'bound',
        `${http.label}: ${RUN_LIST_CAP} runs or more from ${iso(from)} to ${iso(to)}, as many as one query answers at most; ranges are split no finer than ${RUN_SPLIT_FLOOR / 3600} hour`,
      );
    }
    const take = (runs: typeof first.data.workflow_runs) => {
      for (const run of runs) {
        // GitHub-managed runs (Dependabot, Pages, Copilot) are not the project's CI.
        if (run.event === 'dynamic') continue;
        if (run.conclusion !== 'success' && run.conclusion !== 'failure') continue;
        out.push(unixOf(run.created_at));
      }
    };
    take(first.data.workflow_runs);
    // Pages until the total (or the cap) is read: a server may answer fewer than per_page.
    const reachable = Math.min(first.data.total_count, RUN_LIST_CAP);
    let read = first.data.workflow_runs.length;
    for (let page = 2; read < reachable; page++) {
      const next = await runsPage(page);
      if (next.data.workflow_runs.length === 0) break;
      take(next.data.workflow_runs);
      read += next.data.workflow_runs.length;
    }
    return true;
  }

  /** Issues through the REST lists: the issues, the comments, each counted issue's events. */
  async function issuesByRest(since: number): Promise<ForgeIssue[]> {
    // `since` filters by last update: every issue opened after it was updated after it too.
    const listed = await list<
      Awaited<ReturnType<typeof octokit.rest.issues.listForRepo>>['data'][number]
    >(
      () =>
        octokit.paginate.iterator(octokit.rest.issues.listForRepo, {
          ...base,
          state: 'all',
          since: iso(since),
        }),
      `/repos/${owner}/${repo}/issues`,
    );
    const issues = new Map<number, ForgeIssue>();
    for (const i of listed) {
      if (i.pull_request) continue;
      const createdAt = unixOf(i.created_at);
      if (!(createdAt > since)) continue;
      issues.set(i.number, {
        createdAt,
        author: actor(i.user, request.isBot, i.author_association),
        reactions: [],
      });
    }
    if (issues.size === 0) return [];
    const comments = await list<
      Awaited<ReturnType<typeof octokit.rest.issues.listCommentsForRepo>>['data'][number]
    >(
      () =>
        octokit.paginate.iterator(octokit.rest.issues.listCommentsForRepo, {
          ...base,
          since: iso(since),
        }),
      `/repos/${owner}/${repo}/issues/comments`,
    );
    for (const c of comments) {
      const number = Number(c.issue_url.slice(c.issue_url.lastIndexOf('/') + 1));
      issues.get(number)?.reactions.push({
        at: unixOf(c.created_at),
        actor: actor(c.user, request.isBot, c.author_association),
      });
    }
    // Triage actions of the issues that count (opened by neither a maintainer nor a bot).
    for (const [number, issue] of issues) {
      if (issue.author.bot || issue.author.maintainer) continue;
      const events = await list<
        Awaited<ReturnType<typeof octokit.rest.issues.listEvents>>['data'][number]
      >(
        () =>
          octokit.paginate.iterator(octokit.rest.issues.listEvents, {
            ...base,
            issue_number: number,
          }),
        `/repos/${owner}/${repo}/issues/${number}/events`,
      );
      for (const e of events) {
        if (!TRIAGE_EVENTS.has(e.event) || !('actor' in e)) continue;
        const who = e.actor as User | null;
        const reaction: IssueReaction = {
          at: unixOf(e.created_at),
          actor: { login: who?.login ?? '', bot: isBot(who, request.isBot), maintainer: true },
        };
        issue.reactions.push(reaction);
      }
    }
    return [...issues.values()];
  }

  // GitHub's GraphQL API answers no anonymous request (401): without a token or an app the
  // REST API alone is asked, as before (GitHub allows 60 anonymous requests an hour).
  const graphqlOn = http.access.tokens.length > 0 || !!http.access.app;
  const ask = async <T>(query: string, variables: Record<string, unknown>): Promise<T> => {
    try {
      return await call(() => octokit.graphql<T>(query, variables));
    } catch (error) {
      throw fromGraphql(error, http);
    }
  };
  /** The first page of issues, asked by the lookup, for the same `since`; or why it failed. */
  let firstIssues: { since: number; page: IssuesPage } | { failed: unknown } | undefined;
  /**
   * Whether the lookup's query said the repository has no release at all (drafts included for
   * a token that sees them): the REST list would answer none, and is not asked.
   */
  const noReleases = () =>
    firstIssues !== undefined &&
    'page' in firstIssues &&
    firstIssues.page.repository?.releases?.totalCount === 0;

  const lookUpByRest = async () => {
    const { data } = await call(() => octokit.rest.repos.get({ owner, repo }));
    if (typeof data?.has_issues !== 'boolean')
      throw malformed(`the answer to /repos/${owner}/${repo}`);
    return { issuesEnabled: data.has_issues };
  };

  return {
    async repository(since: number) {
      if (!graphqlOn) return lookUpByRest();
      // The issues' first query is the lookup: it says whether issues are on, answers NOT_FOUND
      // for a repository missing or hidden (404, every rule fails as the REST lookup made them),
      // 401 for a bad token, and follows a rename as REST's redirect does; a request saved.
      let page: IssuesPage;
      try {
        page = await ask<IssuesPage>(ISSUES_QUERY, issuesVariables(owner, repo, iso(since), null));
      } catch (error) {
        // The query failing for the issues' sake fails them alone, and the repository is looked
        // up over REST as before: GraphQL's points spent (a budget apart from REST's), a field
        // refused in the answer's `errors` (a 200, no status: a token without the Issues
        // permission is answered FORBIDDEN at `repository.issues`), a query GitHub gave up on
        // (a 5xx). NOT_FOUND (404), a bad token (401) and a transport refusal of ours fail
        // every rule, as the REST lookup's would.
        const issuesAlone =
          error instanceof ApiError &&
          (error.kind === 'rate-limit' ||
            (error.kind === 'http' && (error.status === undefined || error.status >= 500)));
        if (!issuesAlone) throw error;
        firstIssues = { failed: error };
        return lookUpByRest();
      }
      const enabled = page?.repository?.hasIssuesEnabled;
      if (typeof enabled !== 'boolean') throw malformed(`the GraphQL answer for ${owner}/${repo}`);
      firstIssues = { since, page };
      return { issuesEnabled: enabled };
    },

    async issues(since: number): Promise<ForgeIssue[]> {
      if (!graphqlOn) return issuesByRest(since);
      if (firstIssues && 'failed' in firstIssues) throw firstIssues.failed;
      // Through GraphQL: a page of issues with their reaction items per query (a point each),
      // where REST took a request per counted issue for its events.
      return issuesByGraphql(
        ask,
        owner,
        repo,
        since,
        iso(since),
        request.isBot,
        malformed,
        http.bounds.maxPagesPerList,
        () =>
          new ApiError(
            'bound',
            `${http.label}: the issues of ${owner}/${repo} take more than ${counted(http.bounds.maxPagesPerList, 'page', 'pages')} (maxPagesPerList); not read to their end`,
          ),
        firstIssues?.since === since ? firstIssues.page : undefined,
      );
    },

    async ciRuns(from: number, to: number): Promise<CiRuns> {
      // Asked first for whole UTC months, from the first of `from`'s month to the end of `to`'s:
      // the same URL all month, so a list no run was added to is answered 304 (free) on a later
      // day's scan; the runs outside (from, to] are left out here. A month-wide list past the
      // cap is not split: the range itself is, as before.
      const times: number[] = [];
      if (!(await runsIn(monthFloor(from + 1), monthCeiling(to), times, false)))
        await runsIn(from + 1, to, times);
      return { system: 'GitHub Actions', times: times.filter((t) => t > from && t <= to) };
    },

    async releases(): Promise<ForgeRelease[]> {
      return (await releases())
        .filter((r) => !r.draft)
        .map((r) => ({ tag: r.tag_name, publishedAt: unixOf(r.published_at) }));
    },

    async packages(): Promise<PackagesFound> {
      // A release with uploaded assets is a published version, public once both exist; an
      // asset in state `open` is still uploading (release-asset: state uploaded | open).
      const out: PackageVersion[] = [];
      for (const r of await releases()) {
        const uploaded = r.assets.filter((a) => a.state === 'uploaded');
        if (r.draft || uploaded.length === 0) continue;
        const firstAsset = Math.min(...uploaded.map((a) => unixOf(a.created_at)));
        out.push({
          name: `release assets of ${r.tag_name}`,
          publishedAt: Math.max(unixOf(r.published_at), firstAsset),
        });
      }
      return { versions: out };
    },
  };
}
