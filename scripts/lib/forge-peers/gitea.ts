// A Forgejo (Gitea API) v1 stand-in for the forge tests and the bench. Every answer is checked against
// test/fixtures/forgejo/responses.v1.json, the documented fields of the answers the adapter reads
// (see its NOTICE.md); pages go by Link header with `page` and `limit`, as Forgejo sends them,
// except the Actions run list: Forgejo's ListActionRuns and Gitea 1.24 and 1.25's
// getWorkflowRuns (routers/api/v1/repo/action.go; Gitea's body from shared/action.go ListRuns)
// send neither Link nor X-Total-Count, only the body's total_count (later Gitea adds both).
// Gitea's runs (1.24, 1.25: modules/structs ActionWorkflowRun) have no creation time, only
// started_at.
import { fileURLToPath } from 'node:url';
import {
  type Catalogue,
  find,
  held,
  sameOwner,
  signedIn,
  visibleTo,
  type Held,
} from './catalogue.ts';
import {
  loadJson,
  routeMaker,
  type Override,
  page,
  specCheck,
  startForgeServer,
  type ForgeServer,
  type Reply,
  type RequestSeen,
  type Route,
} from './server.ts';

const doc = loadJson(
  fileURLToPath(new URL('../../../test/fixtures/forgejo/responses.v1.json', import.meta.url)),
);
/** Rate limits and 401s are not listed per endpoint; Forgejo's error body is APIError. */
export const giteaCheck = specCheck(doc, '#/definitions/APIError');

export interface GtIssue {
  number: number;
  created: string;
  author: string;
  pull?: boolean;
}
export interface GtEntry {
  issue: number;
  type: string;
  created: string;
  user: string;
}
export interface GtRepository {
  owner: string;
  hasIssues?: boolean;
  /** Members when the owner is an organisation; undefined: a user owns it (the org lookup answers 404). */
  members?: string[];
  collaborators?: string[];
  issues?: GtIssue[];
  timeline?: GtEntry[];
  /**
   * undefined: the instance has no Actions run list (404). Forgejo's runs carry `created` and
   * the outcome in `status`; Gitea's (`runList: 'gitea'`) `started_at` (the Unix epoch when the
   * run never started) and the outcome in `conclusion`.
   */
  runs?: { created?: string; started?: string; status: string }[];
  runList?: 'forgejo' | 'gitea';
  releases?: { tag: string; published: string; draft?: boolean }[];
  packages?: {
    name: string;
    version: string;
    type: string;
    created: string;
    repository?: string;
  }[];
  pageCap?: number;
  override?: Override;
  /** Organisations, users and their repositories, for discovery (GET /orgs/{org}/repos, …). */
  catalogue?: Catalogue;
}

let ids = 1;
const user = (login: string | undefined) => ({
  id: ids++,
  login: login ?? '',
  full_name: login ?? '',
  avatar_url: `https://forge.example/avatars/${login}`,
  visibility: 'public',
});
const repository = (
  fullName: string,
  hasIssues = true,
  web = 'https://forge.example',
  h?: Held,
  limitedOwners: readonly string[] = [],
) => {
  // services/convert/repository.go: `internal` is a repository not private whose owner is
  // private (members only); one whose owner is `limited` (signed-in users) says so in its
  // owner's `visibility` alone (services/convert/user.go).
  const limited = h?.visibility === 'internal' && limitedOwners.some((o) => sameOwner(o, h.owner));
  const owner = h?.visibility === 'internal' ? (limited ? 'limited' : 'private') : 'public';
  return {
    id: h?.id ?? 7,
    full_name: fullName,
    name: fullName.split('/')[1],
    owner: { ...user(fullName.split('/')[0]!), visibility: owner },
    has_issues: hasIssues,
    html_url: `${web}/${fullName}`,
    private: h ? h.visibility === 'private' : false,
    internal: h ? h.visibility === 'internal' && !limited : false,
    fork: h?.fork ?? false,
    mirror: h?.mirror ?? false,
    archived: h?.archived ?? false,
    // A repository without topics: Go's nil slice, sent as null.
    topics: h && h.topics.length > 0 ? h.topics : null,
  };
};
const unix = (iso: string) => Date.parse(iso) / 1000;
const NOT_FOUND: Reply = {
  status: 404,
  body: {
    message: "The target couldn't be found.",
    url: 'https://forge.example/api/swagger',
    errors: [],
  },
};

/**
 * The latest of `created` and `changes` in Gitea's form; a date a test made unreadable (to
 * see the adapter leave it out) changes nothing, and an unreadable `created` is sent as it is.
 */
function latest(created: string, changes: string[]): string {
  if (!Number.isFinite(unix(created))) return created;
  const times = [created, ...changes].map(unix).filter(Number.isFinite);
  return new Date(Math.max(...times) * 1000).toISOString().replace('.000Z', 'Z');
}

export async function startGitea(r: GtRepository): Promise<ForgeServer> {
  const cap = r.pageCap ?? 50;
  /** An issue's timeline as it stands at the request (a test may add to it between scans). */
  const timelineOf = (issue: number) => (r.timeline ?? []).filter((t) => t.issue === issue);
  const paged = (items: unknown[], req: RequestSeen, base: string): Reply => {
    const q = new URLSearchParams(req.query);
    q.set('limit', String(Math.min(cap, Number(req.query.get('limit') ?? 30))));
    const p = page(items, { ...req, query: q }, base, 'limit');
    return {
      status: 200,
      body: p.body,
      headers: { ...p.headers, 'x-total-count': String(items.length) },
    };
  };
  const route = routeMaker(r.override);
  const cat = r.catalogue;
  const repos = cat ? held(cat) : [];
  const listed = (h: Held) =>
    repository(h.path, r.hasIssues ?? true, cat!.web, h, cat!.limitedOwners);
  const catalogueRoutes: Route[] = cat
    ? [
        route('/orgs/{org}/repos', (p, req, base) => {
          if (
            !repos.some((h) => sameOwner(h.owner, p.org!)) ||
            (cat.users ?? []).some((u) => sameOwner(u, p.org!))
          )
            return NOT_FOUND;
          return paged(
            visibleTo(repos, req)
              .filter((h) => sameOwner(h.owner, p.org!))
              .map(listed),
            req,
            base,
          );
        }),
        route('/users/{username}/repos', (p, req, base) => {
          if (!(cat.users ?? []).some((u) => sameOwner(u, p.username!))) return NOT_FOUND;
          return paged(
            visibleTo(repos, req)
              .filter((h) => sameOwner(h.owner, p.username!))
              .map(listed),
            req,
            base,
          );
        }),
        // Search (routers/api/v1/repo/repo.go Search): private ones only for a signed-in
        // request that does not say private=false; archived and mode narrow; { ok, data }.
        route('/repos/search', (_p, req, base) => {
          const withPrivate = signedIn(req) && req.query.get('private') !== 'false';
          const archived = req.query.get('archived');
          const mode = req.query.get('mode');
          const kept = visibleTo(repos, req).filter(
            (h) =>
              (h.visibility !== 'private' || withPrivate) &&
              (archived === null || String(h.archived) === archived) &&
              (mode !== 'source' || (!h.fork && !h.mirror)) &&
              (mode !== 'fork' || h.fork) &&
              (mode !== 'mirror' || h.mirror),
          );
          const one = paged(kept.map(listed), req, base);
          return { ...one, body: { ok: true, data: one.body } };
        }),
      ]
    : [];
  const routes: Route[] = [
    ...catalogueRoutes,
    route('/repos/{owner}/{repo}', (p, req, base) => {
      if (cat) {
        const { repo, movedFrom } = find(cat, repos, `${p.owner}/${p.repo}`);
        if (!repo || (repo.visibility !== 'public' && !signedIn(req))) return NOT_FOUND;
        if (movedFrom)
          return { status: 307, headers: { location: `${base}/api/v1/repos/${repo.path}` } };
        return { status: 200, body: listed(repo) };
      }
      return { status: 200, body: repository(`${p.owner}/${p.repo}`, r.hasIssues ?? true) };
    }),
    route('/orgs/{org}/members', (_p, req, base) =>
      r.members ? paged(r.members.map(user), req, base) : NOT_FOUND,
    ),
    route('/repos/{owner}/{repo}/collaborators', (_p, req, base) =>
      paged((r.collaborators ?? []).map(user), req, base),
    ),
    route('/repos/{owner}/{repo}/issues', (_p, req, base) => {
      const since = unix(req.query.get('since') ?? '1970-01-01T00:00:00Z');
      const items = (r.issues ?? [])
        .filter((i) => unix(i.created) >= since)
        .map((i) => ({
          id: 100 + i.number,
          number: i.number,
          title: `Issue ${i.number}`,
          state: 'open',
          created_at: i.created,
          // CreateComment ends by updating the issue's updated_unix, whatever the comment's type
          // (models/issues/comment.go, updateCommentInfos); `comments` counts the comments
          // proper (NumComments).
          updated_at: latest(
            i.created,
            timelineOf(i.number).map((t) => t.created),
          ),
          comments: timelineOf(i.number).filter((t) => t.type === 'comment').length,
          user: user(i.author),
          ...(i.pull ? { pull_request: { merged: false, draft: false } } : {}),
        }));
      return paged(items, req, base);
    }),
    route('/repos/{owner}/{repo}/issues/{index}/timeline', (p, req, base) =>
      paged(
        timelineOf(Number(p.index)).map((t, k) => ({
          id: k + 1,
          type: t.type,
          created_at: t.created,
          updated_at: t.created,
          user: user(t.user),
          body: '',
        })),
        req,
        base,
      ),
    ),
    route('/repos/{owner}/{repo}/actions/runs', (_p, req) => {
      if (!r.runs) return NOT_FOUND;
      const size = Math.min(cap, Number(req.query.get('limit') ?? 30));
      const n = Number(req.query.get('page') ?? 1);
      const runs = r.runs.slice((n - 1) * size, n * size).map((x, k) => {
        const id = n * 100 + k;
        if (r.runList === 'gitea') {
          const done =
            x.status === 'success' ||
            x.status === 'failure' ||
            x.status === 'cancelled' ||
            x.status === 'skipped';
          return {
            id,
            display_title: 'CI',
            event: 'push',
            status: done ? 'completed' : x.status,
            ...(done ? { conclusion: x.status } : {}),
            started_at: x.started ?? '1970-01-01T00:00:00Z',
          };
        }
        if (x.created === undefined) throw new Error("Forgejo's runs always carry `created`");
        return {
          id,
          created: x.created,
          updated: x.created,
          status: x.status,
          event: 'push',
          title: 'CI',
        };
      });
      // No Link and no X-Total-Count: the count is in the body alone.
      return { status: 200, body: { total_count: r.runs.length, workflow_runs: runs } };
    }),
    route('/repos/{owner}/{repo}/releases', (_p, req, base) =>
      paged(
        (r.releases ?? []).map((x, k) => ({
          id: k + 1,
          tag_name: x.tag,
          name: x.tag,
          draft: !!x.draft,
          prerelease: false,
          created_at: x.published,
          published_at: x.published,
        })),
        req,
        base,
      ),
    ),
    route('/packages/{owner}', (p, req, base) =>
      paged(
        (r.packages ?? []).map((x, k) => ({
          id: k + 1,
          name: x.name,
          version: x.version,
          type: x.type,
          created_at: x.created,
          owner: user(p.owner),
          ...(x.repository ? { repository: repository(x.repository) } : {}),
        })),
        req,
        base,
      ),
    ),
  ];
  // Gitea sets ETags on raw blobs and attachments only (modules/httpcache), never on the API's
  // JSON answers: nothing to ask conditionally.
  return startForgeServer(routes, giteaCheck, '/api/v1', 'none');
}
