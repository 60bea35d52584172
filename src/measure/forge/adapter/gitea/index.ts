// Gitea and Forgejo (Codeberg, any instance) over their REST API v1 through the core's client;
// pages by Link header. No client library: gitea-js's typed calls lack the Actions run list,
// the one endpoint that differs between instances, and the rest are five plain GETs.
import { ForgeApiError, type FailureKind } from '../../core/errors.ts';
import type { ForgeHttp } from '../../core/http.ts';
import type { CiRuns, ForgeRelease, ForgeSource, PackageVersion } from '../../core/measurer.ts';
import { unixOf, type Actor, type ForgeIssue } from '../../core/rules.ts';
import type { ForgeRequest } from '../../../types.ts';

export const GITEA_LABEL = 'Forgejo/Gitea API';

/** Timeline entries that are a reaction: a comment or a triage action. */
const REACTIONS = new Set(['comment', 'label', 'assignees', 'milestone', 'close']);

interface User {
  login: string;
}

/** Bots have no flag here: `[bot]` names and the `-bot`/`_bot` accounts bots run under. */
export function isGiteaBot(login: string): boolean {
  return /(\[bot\]|[-_]bot)$/i.test(login);
}

const iso = (unix: number) => new Date(unix * 1000).toISOString();
const failedWith = (e: unknown, ...kinds: FailureKind[]) => e instanceof ForgeApiError && kinds.includes(e.kind);

export function giteaSource(http: ForgeHttp, request: ForgeRequest): ForgeSource {
  const [owner, name] = request.target.path.split('/') as [string, string];
  const repo = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  const all = async <T>(path: string, query: Record<string, string | number> = {}): Promise<T[]> => {
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
      if (body.owner?.login) ownerLogin = body.owner.login;
      return { issuesEnabled: body.has_issues !== false };
    },

    async issues(since: number): Promise<ForgeIssue[]> {
      // `since` filters by last update: every issue opened after it was updated after it too.
      const listed = await all<{ number: number; created_at: string; user: User; pull_request?: unknown }>(`${repo}/issues`, { state: 'all', type: 'issues', since: iso(since) });
      const fresh = listed.filter((i) => !i.pull_request && unixOf(i.created_at) > since);
      if (fresh.length === 0) return [];
      const keepers = await maintainers();
      const actor = (u: User | undefined): Actor => ({ login: u?.login ?? '', bot: !u || isGiteaBot(u.login), maintainer: !!u && keepers.has(u.login.toLowerCase()) });
      const out: ForgeIssue[] = [];
      for (const i of fresh) {
        const issue: ForgeIssue = { createdAt: unixOf(i.created_at), author: actor(i.user), reactions: [] };
        out.push(issue);
        if (issue.author.bot || issue.author.maintainer) continue;
        const timeline = await all<{ type?: string; created_at?: string; user?: User }>(`${repo}/issues/${i.number}/timeline`);
        for (const t of timeline) if (t.type && REACTIONS.has(t.type)) issue.reactions.push({ at: unixOf(t.created_at), actor: actor(t.user) });
      }
      return out;
    },

    async ciRuns(from: number, to: number): Promise<CiRuns> {
      type Run = { created?: string; created_at?: string; status?: string; conclusion?: string };
      let runs: Run[] = [];
      try {
        // Forgejo and Gitea answer { total_count, workflow_runs }; the list has no time filter.
        for await (const page of http.pages<Run>(`${repo}/actions/runs`, { limit: 50 }, 'workflow_runs')) runs.push(...page);
      } catch (e) {
        if (failedWith(e, 'not-found')) return { unavailable: `${GITEA_LABEL}: this instance has no Actions run list (${repo}/actions/runs answered 404)` };
        throw e;
      }
      runs = runs.filter((r) => {
        // Forgejo reports the outcome in `status`; Gitea, like GitHub, in `conclusion`.
        const outcome = r.conclusion ?? r.status;
        return outcome === 'success' || outcome === 'failure';
      });
      const times = runs.map((r) => unixOf(r.created ?? r.created_at)).filter((t) => t > from && t <= to);
      return { system: 'Forgejo/Gitea Actions', times };
    },

    async releases(): Promise<ForgeRelease[]> {
      const releases = await all<{ tag_name: string; published_at?: string; draft?: boolean }>(`${repo}/releases`, { draft: 'false' });
      return releases.filter((r) => !r.draft).map((r) => ({ tag: r.tag_name, publishedAt: unixOf(r.published_at) }));
    },

    async packages(): Promise<PackageVersion[]> {
      // The owner's packages, one entry per version; those linked to this repository count.
      const packages = await all<{ type: string; name: string; version: string; created_at: string; repository?: { full_name?: string } }>(`/packages/${encodeURIComponent(ownerLogin)}`);
      const full = `${ownerLogin}/${name}`.toLowerCase();
      return packages.filter((p) => p.repository?.full_name?.toLowerCase() === full).map((p) => ({ name: `${p.type}:${p.name}@${p.version}`, publishedAt: unixOf(p.created_at) }));
    },
  };
}
