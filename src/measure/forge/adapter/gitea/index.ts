// Gitea and Forgejo (Codeberg, any instance) over their REST API v1 through the core's client;
// pages by Link header (the Actions run list by its body's total_count). No client library:
// gitea-js's typed calls lack the Actions run list, the one endpoint that differs between
// instances, and the rest are five plain GETs.
import { discover, locate } from './discover.ts';
import type { ForgeAdapter } from '../../core/adapter.ts';
import { ApiError, undocumented, type FailureKind } from '../../../http/errors.ts';
import type { ApiClient } from '../../../http/client.ts';
import type { CiRuns, ForgeRelease, ForgeSource, PackagesFound } from '../../core/measurer.ts';
import { unixOf, type Actor, type ForgeIssue } from '../../core/rules.ts';
import { issueFindings } from '../../core/issue-findings.ts';
import type { ForgeRequest } from '../../../types.ts';
import { loginIsBot } from '../../../bots.ts';
import { isoTime } from '../../../../model/calendar.ts';

export const adapter: ForgeAdapter<'gitea'> = {
  kind: 'gitea',
  label: 'Forgejo/Gitea API',
  knownHosts: {
    'codeberg.org': {
      apiUrl: 'https://codeberg.org/api/v1',
      tokenEnv: 'CODEBERG_TOKEN',
      requestsPerSecond: 2,
    },
  },
  repositoryPaths: 'owner/name',
  authorize: (token) => ['authorization', `token ${token}`],
  // Pages by Link header, 429 past a limit: the plain case. No `conditional`: the API's JSON
  // answers carry no ETag (modules/httpcache sets them on raw files and attachments only).
  quirks: {},
  open: async (http, request) => giteaSource(http, request),
  discover,
  locate,
};

/** Timeline entries that are a reaction: a comment or a triage action. */
const REACTIONS = new Set(['comment', 'label', 'assignees', 'milestone', 'close']);

interface User {
  login: string;
}

/** Bots have no flag here: the `-bot`/`_bot` accounts bots run under (`[bot]` names: the scan's test). */
function isGiteaBot(login: string): boolean {
  return /[-_]bot$/i.test(login);
}

/** Runs asked a page (the instances' default maximum page size). */
const RUN_PAGE = 50;

/**
 * When a run was created: Forgejo's `created`, Gitea's `created_at`; Gitea 1.24 and 1.25 send
 * neither, only `started_at` (the Unix epoch for a run never started, read as no time). NaN
 * when the run has none.
 */
function runTime(r: { created?: string; created_at?: string; started_at?: string }): number {
  const created = unixOf(r.created ?? r.created_at);
  if (!Number.isNaN(created)) return created;
  const started = unixOf(r.started_at);
  return started > 0 ? started : NaN;
}

const failedWith = (e: unknown, ...kinds: FailureKind[]) =>
  e instanceof ApiError && kinds.includes(e.kind);

function giteaSource(http: ApiClient, request: ForgeRequest): ForgeSource {
  const [owner, name] = request.target.path.split('/') as [string, string];
  const repo = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  const all = async <T>(
    path: string,
    query: Record<string, string | number> = {},
  ): Promise<T[]> => {
    const out: T[] = [];
    for await (const page of http.pages<T>(path, { limit: 50, ...query })) out.push(...page);
    return out;
  };
  let ownerLogin = owner;

  /** The owner, an organisation's members and the collaborators. */
  async function maintainers(): Promise<Set<string>> {
    const names = new Set([ownerLogin.toLowerCase()]);
    let members: User[] = [];
    try {
      members = await all<User>(`/orgs/${encodeURIComponent(ownerLogin)}/members`);
    } catch (e) {
      // A user, not an organisation, owns the repository.
      if (!failedWith(e, 'not-found')) throw e;
    }
    const collaborators = await all<User>(`${repo}/collaborators`);
    for (const u of [...members, ...collaborators]) names.add(u.login.toLowerCase());
    return names;
  }

  return {
    async repository() {
      const { body } = await http.getJson<{ has_issues?: boolean; owner?: User }>(repo);
      // Repository.has_issues is a boolean in every answer (Gitea's swagger, Forgejo's too).
      if (typeof body.has_issues !== 'boolean')
        throw undocumented(http.label, `the answer to ${repo}`);
      if (body.owner?.login) ownerLogin = body.owner.login;
      return { issuesEnabled: body.has_issues };
    },

    async issues(since: number): Promise<ForgeIssue[]> {
      // `since` filters by last update: every issue opened after it was updated after it too.
      type Listed = {
        number: number;
        created_at: string;
        updated_at?: string;
        comments?: number;
        user: User;
        pull_request?: unknown;
      };
      const listed = await all<Listed>(`${repo}/issues`, {
        state: 'all',
        type: 'issues',
        since: isoTime(since),
      });
      const fresh = listed.filter((i) => !i.pull_request && unixOf(i.created_at) > since);
      if (fresh.length === 0) return [];
      const keepers = await maintainers();
      const actor = (u: User | undefined): Actor => ({
        login: u?.login ?? '',
        bot: !u || isGiteaBot(u.login) || loginIsBot(request.isBot, u.login),
        maintainer: !!u && keepers.has(u.login.toLowerCase()),
      });
      // An issue unchanged since the last scan takes its reactions then (core/issue-findings.ts):
      // CreateComment updates the issue's updated_unix for every comment type, the timeline's
      // entries included; a deleted comment does not, but lowers the issue's comment count.
      // docs/reference/scan.md cites each.
      const findings = issueFindings(
        http.keptFindings,
        [...keepers].filter((login) => !actor({ login }).bot),
        // The forge's clock, not ours: how long an issue has been unchanged is the forge's to say
        // (none sent: nothing is kept).
        http.forgeDateMs,
      );
      const out: ForgeIssue[] = [];
      for (const i of fresh) {
        const issue: ForgeIssue = {
          createdAt: unixOf(i.created_at),
          author: actor(i.user),
          reactions: [],
        };
        out.push(issue);
        if (issue.author.bot || issue.author.maintainer) continue;
        const state = { updatedAt: i.updated_at, comments: i.comments };
        const kept = findings.reuse(i.number, state);
        if (kept) {
          issue.reactions = kept;
          continue;
        }
        const timeline = await all<{ type?: string; created_at?: string; user?: User }>(
          `${repo}/issues/${i.number}/timeline`,
        );
        for (const t of timeline)
          if (t.type && REACTIONS.has(t.type))
            issue.reactions.push({ at: unixOf(t.created_at), actor: actor(t.user) });
        findings.keep(i.number, state, issue.reactions);
      }
      return out;
    },

    async ciRuns(from: number, to: number): Promise<CiRuns> {
      type Run = {
        created?: string;
        created_at?: string;
        started_at?: string;
        status?: string;
        conclusion?: string;
      };
      const runs: Run[] = [];
      try {
        // Forgejo's ListActionRuns and Gitea's getWorkflowRuns answer { total_count,
        // workflow_runs }, Forgejo and Gitea 1.24/1.25 with neither Link nor X-Total-Count:
        // pages go by the body's count. No time filter.
        const guard = http.pageGuard(`${repo}/actions/runs`);
        for (let page = 1; ; page++) {
          const { body } = await http.getJson<{ total_count?: number; workflow_runs?: Run[] }>(
            `${repo}/actions/runs`,
            {
              limit: RUN_PAGE,
              page,
            },
          );
          const items = body.workflow_runs ?? [];
          const more = items.length > 0 && runs.length + items.length < (body.total_count ?? 0);
          // A count never reached ends at maxPagesPerList like any list.
          guard(
            items,
            more
              ? `${http.access.apiUrl}${repo}/actions/runs?limit=${RUN_PAGE}&page=${page + 1}`
              : undefined,
          );
          runs.push(...items);
          if (!more) break;
        }
      } catch (e) {
        if (failedWith(e, 'not-found'))
          return {
            unavailable: `${http.label}: this instance has no Actions run list (${repo}/actions/runs answered 404)`,
          };
        throw e;
      }
      const counted = runs.filter((r) => {
        // Forgejo reports the outcome in `status`; Gitea, like GitHub, in `conclusion`.
        const outcome = r.conclusion ?? r.status;
        return outcome === 'success' || outcome === 'failure';
      });
      const times = counted.map(runTime);
      const undated = times.filter((t) => Number.isNaN(t)).length;
      if (undated > 0)
        return {
          unavailable: `${http.label}: ${undated} of ${counted.length} runs that succeeded or failed carry no time (neither created, created_at nor started_at)`,
        };
      return { system: 'Forgejo/Gitea Actions', times: times.filter((t) => t > from && t <= to) };
    },

    async releases(): Promise<ForgeRelease[]> {
      const releases = await all<{ tag_name: string; published_at?: string; draft?: boolean }>(
        `${repo}/releases`,
        {
          draft: 'false',
        },
      );
      return releases
        .filter((r) => !r.draft)
        .map((r) => ({ tag: r.tag_name, publishedAt: unixOf(r.published_at) }));
    },

    async packages(): Promise<PackagesFound> {
      // The owner's packages, one entry per version; those linked to this repository count.
      const packages = await all<{
        type: string;
        name: string;
        version: string;
        created_at: string;
        repository?: { full_name?: string };
      }>(`/packages/${encodeURIComponent(ownerLogin)}`);
      const full = `${ownerLogin}/${name}`.toLowerCase();
      const versions = packages
        .filter((p) => p.repository?.full_name?.toLowerCase() === full)
        .map((p) => ({
          name: `${p.type}:${p.name}@${p.version}`,
          publishedAt: unixOf(p.created_at),
        }));
      return { versions };
    },
  };
}
