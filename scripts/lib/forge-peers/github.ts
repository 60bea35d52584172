// A GitHub REST stand-in for the forge tests and the bench: answers built from the examples in GitHub's own
// OpenAPI description (@octokit/openapi), changed only where a test needs other values, and
// every answer checked against that description.
import { type Catalogue, find, held, sameOwner, signedIn, visibleTo, type Held } from './catalogue.ts';
import { loadJson, routeMaker, type Override, page, specCheck, startForgeServer, type ForgeServer, type Reply, type RequestSeen, type Route } from './server.ts';

type Json = Record<string, any>;

const doc = loadJson('@octokit/openapi/generated/api.github.com.json') as Json;
/** Rate limits and 401s are documented for the whole API with this body, not per operation. */
export const githubCheck = specCheck(doc, '#/components/schemas/basic-error');
const example = (name: string): any => structuredClone(doc.components.examples[name].value);

export interface GhUser {
  login: string;
  bot?: boolean;
}
export interface GhIssue {
  number: number;
  created: string;
  updated?: string;
  author: GhUser;
  association: string;
  pull?: boolean;
}
export interface GhComment {
  issue: number;
  created: string;
  author: GhUser;
  association: string;
}
export interface GhEvent {
  issue: number;
  event: string;
  created: string;
  actor: GhUser;
}
export interface GhRun {
  created: string;
  event: string;
  conclusion: string | null;
}
/** An asset's upload time; or with its state: `open` while it is still uploading (release-asset schema). */
export type GhAsset = string | { created: string; state: 'uploaded' | 'open' };
export interface GhRelease {
  tag: string;
  published: string | null;
  draft?: boolean;
  assets?: GhAsset[];
}

export interface GhRepository {
  hasIssues?: boolean;
  issues?: GhIssue[];
  comments?: GhComment[];
  events?: GhEvent[];
  runs?: GhRun[];
  releases?: GhRelease[];
  /**
   * The run list's total_count for a range holding more than 1,000 runs: GitHub documents the
   * 1,000-result cap of a filtered list, not whether its total_count is capped too; 'capped'
   * answers 1,000, 'true' (the default) the range's own count.
   */
  runTotal?: 'true' | 'capped';
  /** Largest page the stand-in answers (GitHub's is 100); small to exercise Link paging. */
  pageCap?: number;
  /** Replaces the answer to a request (rate limits, errors, slowness); undefined: the normal one. */
  override?: Override;
  /** Organisations, users and their repositories, for discovery (GET /orgs/{org}/repos, …). */
  catalogue?: Catalogue;
}

function user(u: GhUser): Json {
  const out = example('issue-items')[0].user;
  out.login = u.login;
  out.type = u.bot ? 'Bot' : 'User';
  return out;
}

const unix = (iso: string) => Date.parse(iso) / 1000;

export const GH_ERROR = (message: string) => ({ message, documentation_url: 'https://docs.github.com/rest' });

export async function startGitHub(r: GhRepository): Promise<ForgeServer> {
  const cap = r.pageCap ?? 100;
  const paged = (items: unknown[], req: RequestSeen, base: string): Reply => {
    const size = Math.min(cap, Number(req.query.get('per_page') ?? 30));
    const q = new URLSearchParams(req.query);
    q.set('per_page', String(size));
    const p = page(items, { ...req, query: q }, base);
    return { status: 200, ...p };
  };
  const route = routeMaker(r.override);
  const cat = r.catalogue;
  const repos = cat ? held(cat) : [];
  /** A catalogue repository as minimal-repository or full-repository (the example's other fields kept). */
  const shaped = (h: Held, name: 'minimal-repository' | 'full-repository-default-response') => {
    const out = example(name);
    if (name === 'full-repository-default-response') {
      out.language = null;
      out.source.language = null;
      out.parent.language = null;
    }
    const visibility = h.visibility;
    Object.assign(out, {
      id: h.id,
      name: h.name,
      full_name: h.path,
      html_url: `${cat!.web}/${h.path}`,
      private: visibility !== 'public',
      visibility,
      archived: h.archived,
      fork: h.fork,
      mirror_url: h.mirror ? 'git://example.org/upstream.git' : null,
      topics: h.topics,
    });
    out.owner.login = h.owner;
    return out;
  };
  const notFound: Reply = { status: 404, body: GH_ERROR('Not Found') };
  /** A page of catalogue repositories as minimal-repository items (shaped after paging: the example is large). */
  const minimal = (page: Reply): Reply => ({ ...page, body: (page.body as Held[]).map((h) => shaped(h, 'minimal-repository')) });
  const catalogueRoutes: Route[] = cat
    ? [
        // Organisations: every owner of the catalogue that is not a user.
        route('/orgs/{org}/repos', (p, req, base) => {
          if (!repos.some((h) => sameOwner(h.owner, p.org!)) || (cat.users ?? []).some((u) => sameOwner(u, p.org!))) return notFound;
          const type = req.query.get('type') ?? 'all';
          const mine = visibleTo(repos, req).filter((h) => sameOwner(h.owner, p.org!));
          const kept =
            type === 'public'
              ? mine.filter((h) => h.visibility === 'public')
              : type === 'private'
                ? mine.filter((h) => h.visibility !== 'public')
                : type === 'forks'
                  ? mine.filter((h) => h.fork)
                  : type === 'sources'
                    ? mine.filter((h) => !h.fork)
                    : mine;
          return minimal(paged(kept, req, base));
        }),
        // A user's public repositories ("Lists public repositories for the specified user").
        route('/users/{username}/repos', (p, req, base) => {
          if (!repos.some((h) => sameOwner(h.owner, p.username!))) return notFound;
          return minimal(
            paged(
              repos.filter((h) => sameOwner(h.owner, p.username!) && h.visibility === 'public'),
              req,
              base,
            ),
          );
        }),
        // Every repository, by `since` alone; on Enterprise Server those every user may see:
        // public ones, and internal ones for a signed-in user.
        route('/repositories', (_p, req, base) => {
          const since = Number(req.query.get('since') ?? 0);
          const seen = repos.filter((h) => h.id > since && (h.visibility === 'public' || (h.visibility === 'internal' && signedIn(req))));
          const pageItems = seen.slice(0, cap);
          const more = seen.length > pageItems.length;
          const headers: Record<string, string> = more ? { link: `<${base}/repositories?since=${pageItems[pageItems.length - 1]!.id}>; rel="next", <${base}/repositories{?since}>; rel="first"` } : {};
          return { status: 200, headers, body: pageItems.map((h) => shaped(h, 'minimal-repository')) };
        }),
        {
          ...route('/repositories/{id}', (p) => {
            const h = repos.find((x) => x.id === Number(p.id));
            return h ? { status: 200, body: shaped(h, 'full-repository-default-response') } : notFound;
          }),
          answersAs: '/repos/{owner}/{repo}',
        },
      ]
    : [];
  const routes: Route[] = [
    ...catalogueRoutes,
    route('/repos/{owner}/{repo}', (p, req, base) => {
      if (cat) {
        const { repo, movedFrom } = find(cat, repos, `${p.owner}/${p.repo}`);
        if (!repo || (repo.visibility !== 'public' && !signedIn(req))) return notFound;
        // A renamed or transferred repository: 301 to its lasting address, by id.
        if (movedFrom) return { status: 301, headers: { location: `${base}/repositories/${repo.id}` }, body: { ...GH_ERROR('Moved Permanently'), url: `${base}/repositories/${repo.id}` } };
        return { status: 200, body: shaped(repo, 'full-repository-default-response') };
      }
      const repo = example('full-repository-default-response');
      repo.language = null;
      repo.source.language = null;
      repo.parent.language = null;
      repo.name = p.repo;
      repo.full_name = `${p.owner}/${p.repo}`;
      repo.has_issues = r.hasIssues ?? true;
      return { status: 200, body: repo };
    }),
    route('/repos/{owner}/{repo}/issues', (_p, req, base) => {
      const since = req.query.get('since');
      const items = (r.issues ?? [])
        .filter((i) => !since || unix(i.updated ?? i.created) >= unix(since))
        .map((i) => {
          const out = example('issue-items')[0];
          Object.assign(out, { number: i.number, created_at: i.created, updated_at: i.updated ?? i.created, user: user(i.author), author_association: i.association });
          if (!i.pull) delete out.pull_request;
          return out;
        });
      return paged(items, req, base);
    }),
    route('/repos/{owner}/{repo}/issues/comments', (p, req, base) => {
      const since = req.query.get('since');
      const items = (r.comments ?? [])
        .filter((c) => !since || unix(c.created) >= unix(since))
        .map((c) => {
          const out = example('issue-comment-items')[0];
          Object.assign(out, { issue_url: `https://api.github.com/repos/${p.owner}/${p.repo}/issues/${c.issue}`, created_at: c.created, updated_at: c.created, user: user(c.author), author_association: c.association });
          return out;
        });
      return paged(items, req, base);
    }),
    route('/repos/{owner}/{repo}/issues/{issue_number}/events', (p, req, base) => {
      const items = (r.events ?? [])
        .filter((e) => e.issue === Number(p.issue_number))
        .map((e) => {
          const out = example('issue-event-for-issue-items')[0];
          Object.assign(out, { event: e.event, created_at: e.created, actor: user(e.actor) });
          if (e.event !== 'labeled') delete out.label;
          if (e.event === 'assigned') Object.assign(out, { assignee: user(e.actor), assigner: user(e.actor) });
          if (e.event === 'milestoned') out.milestone = { title: 'v1' };
          return out;
        });
      return paged(items, req, base);
    }),
    route('/repos/{owner}/{repo}/actions/runs', (_p, req) => {
      const [from, to] = (req.query.get('created') ?? '..').split('..').map((s) => (s ? unix(s) : NaN));
      const matching = (r.runs ?? []).filter((x) => !(unix(x.created) < from!) && !(unix(x.created) > to!));
      // The list answers at most 1,000 results whatever total_count says.
      const reachable = matching.slice(0, 1000);
      const size = Math.min(cap, Number(req.query.get('per_page') ?? 30));
      const n = Number(req.query.get('page') ?? 1);
      const runs = reachable.slice((n - 1) * size, n * size).map((x, i) => {
        const out = example('workflow-run-paginated').workflow_runs[0];
        Object.assign(out, { id: n * 1000 + i, created_at: x.created, updated_at: x.created, event: x.event, conclusion: x.conclusion, status: 'completed' });
        return out;
      });
      const total = r.runTotal === 'capped' ? reachable.length : matching.length;
      return { status: 200, body: { total_count: total, workflow_runs: runs } };
    }),
    route('/repos/{owner}/{repo}/releases', (_p, req, base) => {
      const items = (r.releases ?? []).map((x) => {
        const out = example('release-items')[0];
        const asset = out.assets[0];
        Object.assign(out, { tag_name: x.tag, name: x.tag, published_at: x.published, created_at: x.published ?? '2026-01-01T00:00:00Z', draft: !!x.draft });
        out.assets = (x.assets ?? []).map((a) => {
          const { created, state } = typeof a === 'string' ? { created: a, state: 'uploaded' } : a;
          return { ...asset, created_at: created, updated_at: created, state };
        });
        return out;
      });
      return paged(items, req, base);
    }),
  ];
  return startForgeServer(routes, githubCheck);
}
