// A GitHub REST stand-in for the forge tests and the bench: answers built from the examples in GitHub's own
// OpenAPI description (@octokit/openapi), changed only where a test needs other values, and
// every answer checked against that description.
import { createVerify, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { cost, execute, parse, type GqlObject } from './graphql.ts';
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
  /** GraphQL points left in the hour before the first query (GitHub's default 5,000). */
  graphqlPoints?: number;
  /**
   * A GitHub App installed on the repository's account: its JWT is checked (RS256 with
   * `publicKey`, `iss` the app's id, expiring within 10 minutes), its installation tokens
   * minted for `tokenSeconds` (an hour), and every other request must carry one of them.
   */
  app?: { id: string; publicKey: KeyObject; installationId?: number; tokenSeconds?: number };
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

export const GH_ERROR = (message: string) => ({
  message,
  documentation_url: 'https://docs.github.com/rest',
});

/** GraphQL's timeline item type of a REST issue event ("renamed" → RenamedTitleEvent). */
const EVENT_TYPES: Record<string, string> = {
  labeled: 'LabeledEvent',
  unlabeled: 'UnlabeledEvent',
  assigned: 'AssignedEvent',
  milestoned: 'MilestonedEvent',
  closed: 'ClosedEvent',
  reopened: 'ReopenedEvent',
  renamed: 'RenamedTitleEvent',
  mentioned: 'MentionedEvent',
  subscribed: 'SubscribedEvent',
};
/** The itemTypes enum value of a timeline type (IssueComment → ISSUE_COMMENT). */
const itemType = (typename: string) => typename.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

/** An actor as GraphQL gives it: a bot is of type Bot, its login without REST's "[bot]". */
function gqlActor(u: GhUser): GqlObject {
  return u.bot
    ? { __typename: 'Bot', login: u.login.replace(/\[bot\]$/, '') }
    : { __typename: 'User', login: u.login };
}

/** A connection of `items` paged by `first`/`after` as GitHub pages one (opaque cursors). */
function connection(
  typename: string,
  items: readonly GqlObject[],
  args: Record<string, unknown>,
): GqlObject {
  const first = Number(args.first ?? 100);
  if (!(first >= 1 && first <= 100)) throw new Error('first must be 1 to 100');
  const from =
    typeof args.after === 'string'
      ? Number(Buffer.from(args.after, 'base64').toString().slice('cursor:'.length)) + 1
      : 0;
  const nodes = items.slice(from, from + first);
  const end = from + nodes.length - 1;
  const cursor = (i: number) => Buffer.from(`cursor:${i}`).toString('base64');
  return {
    __typename: typename,
    totalCount: items.length,
    nodes,
    pageInfo: {
      __typename: 'PageInfo',
      hasNextPage: end + 1 < items.length,
      endCursor: nodes.length > 0 ? cursor(end) : null,
    },
  };
}

/**
 * The GraphQL endpoint (POST /graphql) over the same data as the REST routes: issues (never
 * pull requests) with their timeline items, points spent per the documented score and the
 * rate-limit headers GitHub sends with every answer.
 */
function graphqlRoute(r: GhRepository): (req: { body: string; authorized: boolean }) => {
  status: number;
  headers: Record<string, string>;
  body: unknown;
} {
  let remaining = r.graphqlPoints ?? 5000;
  const reset = String(Math.floor(Date.now() / 1000) + 3600);
  const timeline = (number: number): GqlObject[] => {
    const comments = (r.comments ?? [])
      .filter((c) => c.issue === number)
      .map((c) => ({
        __typename: 'IssueComment',
        createdAt: c.created,
        authorAssociation: c.association,
        author: gqlActor(c.author),
      }));
    const events = (r.events ?? [])
      .filter((e) => e.issue === number)
      .map((e) => ({
        __typename: EVENT_TYPES[e.event] ?? 'SubscribedEvent',
        createdAt: e.created,
        actor: gqlActor(e.actor),
      }));
    return [...comments, ...events].sort((a, b) => unix(a.createdAt) - unix(b.createdAt));
  };
  const issue = (i: GhIssue): GqlObject => ({
    __typename: 'Issue',
    id: `I_kw${i.number}`,
    number: i.number,
    createdAt: i.created,
    updatedAt: i.updated ?? i.created,
    authorAssociation: i.association,
    author: gqlActor(i.author),
    timelineItems: (a: Record<string, unknown>) => {
      const types = Array.isArray(a.itemTypes) ? new Set(a.itemTypes as string[]) : undefined;
      return connection(
        'IssueTimelineItemsConnection',
        timeline(i.number).filter((x) => !types || types.has(itemType(x.__typename))),
        a,
      );
    },
  });
  const issues = (r.issues ?? []).filter((i) => !i.pull);
  return (req) => {
    const headers = (left: number) => ({
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(Math.max(0, left)),
      'x-ratelimit-used': String(5000 - Math.max(0, left)),
      'x-ratelimit-reset': reset,
      'x-ratelimit-resource': 'graphql',
    });
    // "Authenticating with GraphQL": the GraphQL API answers no anonymous request.
    if (!req.authorized)
      return {
        status: 401,
        headers: {},
        body: {
          message: 'This endpoint requires you to be authenticated.',
          documentation_url:
            'https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql',
        },
      };
    let asked: { query?: string; variables?: Record<string, unknown> };
    try {
      asked = JSON.parse(req.body);
    } catch {
      return {
        status: 400,
        headers: headers(remaining),
        body: {
          message: 'Problems parsing JSON',
          documentation_url: 'https://docs.github.com/graphql',
        },
      };
    }
    const variables = asked.variables ?? {};
    let op: ReturnType<typeof parse>;
    try {
      op = parse(asked.query ?? '');
    } catch (error) {
      return {
        status: 200,
        headers: headers(remaining),
        body: { errors: [{ message: `Parse error: ${(error as Error).message}` }] },
      };
    }
    const points = cost(op, variables);
    if (points > remaining)
      return {
        status: 200,
        headers: headers(remaining),
        body: { errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded' }] },
      };
    remaining -= points;
    /** Repositories asked for that the catalogue does not hold. */
    const notFound: string[] = [];
    const root: GqlObject = {
      __typename: 'Query',
      rateLimit: {
        __typename: 'RateLimit',
        cost: points,
        remaining,
        limit: 5000,
        used: 5000 - remaining,
        resetAt: new Date(Number(reset) * 1000).toISOString(),
      },
      repository: (a: Record<string, unknown>) => {
        // With a catalogue, the repository it holds under that path, a rename followed
        // (`followRenames` is true by default); none: null, and an error of type NOT_FOUND.
        let path = `${a.owner}/${a.name}`;
        if (r.catalogue) {
          const found = find(r.catalogue, held(r.catalogue), path).repo;
          if (!found) {
            notFound.push(path);
            return null;
          }
          path = found.path;
        }
        return {
          __typename: 'Repository',
          nameWithOwner: path,
          hasIssuesEnabled: r.hasIssues ?? true,
          releases: (q: Record<string, unknown>) =>
            connection(
              'ReleaseConnection',
              (r.releases ?? []).map((x) => ({
                __typename: 'Release',
                tagName: x.tag,
                isDraft: !!x.draft,
                publishedAt: x.published,
              })),
              q,
            ),
          issues: (q: Record<string, unknown>) => {
            const since = (q.filterBy as { since?: string } | null)?.since;
            const order = q.orderBy as { field?: string; direction?: string } | null;
            const listed = issues.filter(
              (i) => !since || unix(i.updated ?? i.created) >= unix(since),
            );
            const key = (i: GhIssue) =>
              order?.field === 'UPDATED_AT' ? unix(i.updated ?? i.created) : unix(i.created);
            listed.sort((x, y) =>
              order?.direction === 'DESC' ? key(y) - key(x) : key(x) - key(y),
            );
            return connection('IssueConnection', listed.map(issue), q);
          },
        };
      },
      node: (a: Record<string, unknown>) => {
        const found = issues.find((i) => `I_kw${i.number}` === a.id);
        return found ? issue(found) : null;
      },
    };
    const answer = execute(op, root, variables);
    // GitHub's answer for a repository it cannot resolve: the field null, beside an error
    // naming it ("Could not resolve to a Repository with the name 'OWNER/NAME'.").
    const body =
      notFound.length === 0 || answer.errors
        ? answer
        : {
            ...answer,
            errors: notFound.map((path) => ({
              type: 'NOT_FOUND',
              path: ['repository'],
              message: `Could not resolve to a Repository with the name '${path}'.`,
            })),
          };
    return { status: 200, headers: headers(remaining), body };
  };
}

/**
 * What is wrong with an app's JWT ("Generating a JSON Web Token for a GitHub App"): RS256
 * signed with the app's key, `iss` its id, `exp` in the future and at most 10 minutes on;
 * undefined when it is right. GitHub's words for a refused one.
 */
export function jwtCheck(
  authorization: string | undefined,
  appId: string,
  publicKey: KeyObject,
): string | undefined {
  const jwt = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  const parts = jwt?.split('.') ?? [];
  if (parts.length !== 3) return 'A JSON web token could not be decoded';
  const [header, payload, signature] = parts as [string, string, string];
  let claims: { iat?: number; exp?: number; iss?: unknown };
  try {
    if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'RS256')
      return 'A JSON web token could not be decoded';
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  } catch {
    return 'A JSON web token could not be decoded';
  }
  if (
    !createVerify('RSA-SHA256')
      .update(`${header}.${payload}`)
      .verify(publicKey, Buffer.from(signature, 'base64url'))
  )
    return 'A JSON web token could not be decoded';
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number' || claims.exp <= now || claims.exp > now + 600)
    return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
  if (typeof claims.iat !== 'number' || claims.iat > now + 60)
    return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";
  if (String(claims.iss) !== appId) return 'Integration not found';
  return undefined;
}

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
      has_issues: r.hasIssues ?? true,
    });
    out.owner.login = h.owner;
    return out;
  };
  const notFound: Reply = { status: 404, body: GH_ERROR('Not Found') };
  /** A page of catalogue repositories as minimal-repository items (shaped after paging: the example is large). */
  const minimal = (page: Reply): Reply => ({
    ...page,
    body: (page.body as Held[]).map((h) => shaped(h, 'minimal-repository')),
  });
  const catalogueRoutes: Route[] = cat
    ? [
        // Organisations: every owner of the catalogue that is not a user.
        route('/orgs/{org}/repos', (p, req, base) => {
          if (
            !repos.some((h) => sameOwner(h.owner, p.org!)) ||
            (cat.users ?? []).some((u) => sameOwner(u, p.org!))
          )
            return notFound;
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
          const seen = repos.filter(
            (h) =>
              h.id > since &&
              (h.visibility === 'public' || (h.visibility === 'internal' && signedIn(req))),
          );
          const pageItems = seen.slice(0, cap);
          const more = seen.length > pageItems.length;
          const headers: Record<string, string> = more
            ? {
                link: `<${base}/repositories?since=${pageItems[pageItems.length - 1]!.id}>; rel="next", <${base}/repositories{?since}>; rel="first"`,
              }
            : {};
          return {
            status: 200,
            headers,
            body: pageItems.map((h) => shaped(h, 'minimal-repository')),
          };
        }),
        {
          ...route('/repositories/{id}', (p) => {
            const h = repos.find((x) => x.id === Number(p.id));
            return h
              ? { status: 200, body: shaped(h, 'full-repository-default-response') }
              : notFound;
          }),
          answersAs: '/repos/{owner}/{repo}',
        },
      ]
    : [];
  const graphql = graphqlRoute(r);
  let graphqlCount = 0;
  const routes: Route[] = [
    {
      method: 'POST',
      template: '/graphql',
      // Not in the REST description: answered as GitHub's GraphQL API answers, unchecked there.
      reply: (_p, req) => {
        const answer = graphql({
          body: req.body ?? '',
          authorized: req.headers.authorization !== undefined,
        });
        const normal = () => ({
          status: answer.status,
          headers: answer.headers,
          body: answer.body,
        });
        const reply: Reply = r.override?.('/graphql', req, ++graphqlCount, normal) ?? normal();
        // Written here (the REST description does not check it); an override writing its own
        // answer (a redirect, a body cut off) is sent as it is, one with a delay after it.
        const write = (res: ServerResponse) =>
          res
            .writeHead(reply.status, {
              'content-type': 'application/json; charset=utf-8',
              ...reply.headers,
            })
            .end(reply.body === undefined ? '' : JSON.stringify(reply.body));
        const raw = reply.raw ?? write;
        return {
          ...reply,
          raw: (res) => (reply.delayMs ? void setTimeout(() => raw(res), reply.delayMs) : raw(res)),
        };
      },
    },
    ...catalogueRoutes,
    route('/repos/{owner}/{repo}', (p, req, base) => {
      if (cat) {
        const { repo, movedFrom } = find(cat, repos, `${p.owner}/${p.repo}`);
        if (!repo || (repo.visibility !== 'public' && !signedIn(req))) return notFound;
        // A renamed or transferred repository: 301 to its lasting address, by id.
        if (movedFrom)
          return {
            status: 301,
            headers: { location: `${base}/repositories/${repo.id}` },
            body: { ...GH_ERROR('Moved Permanently'), url: `${base}/repositories/${repo.id}` },
          };
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
          Object.assign(out, {
            number: i.number,
            created_at: i.created,
            updated_at: i.updated ?? i.created,
            user: user(i.author),
            author_association: i.association,
          });
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
          Object.assign(out, {
            issue_url: `https://api.github.com/repos/${p.owner}/${p.repo}/issues/${c.issue}`,
            created_at: c.created,
            updated_at: c.created,
            user: user(c.author),
            author_association: c.association,
          });
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
          if (e.event === 'assigned')
            Object.assign(out, { assignee: user(e.actor), assigner: user(e.actor) });
          if (e.event === 'milestoned') out.milestone = { title: 'v1' };
          return out;
        });
      return paged(items, req, base);
    }),
    route('/repos/{owner}/{repo}/actions/runs', (_p, req) => {
      const [from, to] = (req.query.get('created') ?? '..')
        .split('..')
        .map((s) => (s ? unix(s) : NaN));
      const matching = (r.runs ?? []).filter(
        (x) => !(unix(x.created) < from!) && !(unix(x.created) > to!),
      );
      // The list answers at most 1,000 results whatever total_count says.
      const reachable = matching.slice(0, 1000);
      const size = Math.min(cap, Number(req.query.get('per_page') ?? 30));
      const n = Number(req.query.get('page') ?? 1);
      const runs = reachable.slice((n - 1) * size, n * size).map((x, i) => {
        const out = example('workflow-run-paginated').workflow_runs[0];
        Object.assign(out, {
          id: n * 1000 + i,
          created_at: x.created,
          updated_at: x.created,
          event: x.event,
          conclusion: x.conclusion,
          status: 'completed',
        });
        return out;
      });
      const total = r.runTotal === 'capped' ? reachable.length : matching.length;
      return { status: 200, body: { total_count: total, workflow_runs: runs } };
    }),
    route('/repos/{owner}/{repo}/releases', (_p, req, base) => {
      const items = (r.releases ?? []).map((x) => {
        const out = example('release-items')[0];
        const asset = out.assets[0];
        Object.assign(out, {
          tag_name: x.tag,
          name: x.tag,
          published_at: x.published,
          created_at: x.published ?? '2026-01-01T00:00:00Z',
          draft: !!x.draft,
        });
        out.assets = (x.assets ?? []).map((a) => {
          const { created, state } = typeof a === 'string' ? { created: a, state: 'uploaded' } : a;
          return { ...asset, created_at: created, updated_at: created, state };
        });
        return out;
      });
      return paged(items, req, base);
    }),
  ];
  const app = r.app;
  if (app) {
    // "Authenticating as a GitHub App installation": the app's endpoints take its JWT alone,
    // every other one an installation token still valid.
    const minted = new Map<string, number>();
    const bad = (message: string): Reply => ({ status: 401, body: GH_ERROR(message) });
    const jwtProblem = (req: RequestSeen) =>
      jwtCheck(req.headers.authorization, app.id, app.publicKey);
    const installation = (): Reply => {
      const body = example('installation');
      body.id = app.installationId ?? 1;
      return { status: 200, body };
    };
    for (const route of routes) {
      const reply = route.reply;
      route.reply = (p, req, base) => {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const until = token === undefined ? undefined : minted.get(token);
        if (until !== undefined && until > Date.now()) return reply(p, req, base);
        const refused = bad('Bad credentials');
        // The GraphQL endpoint is not in the REST description: its answer is written as it is.
        if (route.template !== '/graphql') return refused;
        return {
          ...refused,
          raw: (res) =>
            res
              .writeHead(401, { 'content-type': 'application/json; charset=utf-8' })
              .end(JSON.stringify(refused.body)),
        };
      };
    }
    routes.push(
      route('/repos/{owner}/{repo}/installation', (_p, req) => {
        const problem = jwtProblem(req);
        return problem ? bad(problem) : installation();
      }),
      // An account's installation ("Get an organization installation for the authenticated
      // app", "Get a user installation …"): the app is installed on every account the
      // catalogue holds, an organisation's found under /orgs, a user's under /users.
      route('/orgs/{org}/installation', (p, req) => {
        const problem = jwtProblem(req);
        if (problem) return bad(problem);
        const isUser = (cat?.users ?? []).some((u) => sameOwner(u, p.org!));
        const known = !cat || repos.some((h) => sameOwner(h.owner, p.org!));
        return known && !isUser ? installation() : { status: 404, body: GH_ERROR('Not Found') };
      }),
      route('/users/{username}/installation', (p, req) => {
        const problem = jwtProblem(req);
        if (problem) return bad(problem);
        const isUser = (cat?.users ?? []).some((u) => sameOwner(u, p.username!));
        return isUser ? installation() : { status: 404, body: GH_ERROR('Not Found') };
      }),
      route('/app/installations', (_p, req) => {
        const problem = jwtProblem(req);
        return problem ? bad(problem) : { status: 200, body: [installation().body] };
      }),
      {
        method: 'POST',
        template: '/app/installations/{installation_id}/access_tokens',
        reply: (p, req) => {
          const problem = jwtProblem(req);
          if (problem) return bad(problem);
          if (Number(p.installation_id) !== (app.installationId ?? 1))
            return { status: 404, body: GH_ERROR('Not Found') };
          const body = example('installation-token');
          const expires = Date.now() + (app.tokenSeconds ?? 3600) * 1000;
          body.token = `ghs_minted${minted.size + 1}x${Math.random().toString(36).slice(2)}`;
          body.expires_at = new Date(expires).toISOString().replace(/\.\d{3}Z$/, 'Z');
          minted.set(body.token, expires);
          return { status: 201, body };
        },
      },
    );
  }
  // Every answer carries an ETag; an If-None-Match naming it is answered 304 Not Modified
  // (REST best practices, "Use conditional requests if appropriate").
  return startForgeServer(routes, githubCheck, '', 'honoured');
}
