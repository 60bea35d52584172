// Discovery on GitHub (github.com and Enterprise Server) over plain REST, Link paging:
// an organisation's repositories (GET /orgs/{org}/repos), else a user's (GET
// /users/{username}/repos), or every repository of a server (GET /repositories, paged by
// `since` in the Link header). A renamed or transferred repository's old API address answers
// 301 to /repositories/{id} (docs.github.com/rest/repos/repos "Get a repository"), which the
// core's client follows on the same origin.
import { appTokens } from './app.ts';
import type { KeptShape } from '../../../http/conditional-answers.ts';
import type { ApiClient } from '../../../http/client.ts';
import {
  isNotFound as notFound,
  type ListedRepository,
  type SourceScope,
  unlessNotFound,
  type Visibility,
} from '../../core/discover.ts';
import type { SourceFilters } from '../../../../config/types.ts';

/** The fields of minimal-repository and full-repository read here. */
interface Repo {
  html_url: string;
  private: boolean;
  visibility?: string;
  archived?: boolean;
  fork: boolean;
  mirror_url?: string | null;
  topics?: string[];
  has_issues?: boolean;
}

/**
 * The fields of `Repo`, what a listing page keeps for a later 304 (index.ts): every one the
 * interface names, so a field read here is never missing from a stored page.
 */
export const REPO_FIELDS = {
  html_url: true,
  private: true,
  visibility: true,
  archived: true,
  fork: true,
  mirror_url: true,
  topics: true,
  has_issues: true,
} as const satisfies Record<keyof Repo, KeptShape>;

/** Private, and internal (private to outsiders, `visibility: internal`), never read as public. */
function visibilityOf(r: Repo): Visibility {
  if (r.visibility === 'internal') return 'internal';
  if (r.private || r.visibility === 'private') return 'private';
  return r.visibility === undefined || r.visibility === 'public' ? 'public' : 'private';
}

function listed(r: Repo): ListedRepository {
  return {
    url: r.html_url,
    archived: r.archived === true,
    fork: r.fork,
    mirror: typeof r.mirror_url === 'string' && r.mirror_url !== '',
    visibility: visibilityOf(r),
    topics: r.topics ?? [],
    ...(typeof r.has_issues === 'boolean' ? { issuesEnabled: r.has_issues } : {}),
  };
}

export async function* discover(
  http: ApiClient,
  scope: SourceScope,
  filters: SourceFilters,
): AsyncGenerator<ListedRepository[]> {
  if (scope.kind === 'group') throw new Error('GitHub names owners, not nested groups');
  if (scope.kind === 'instance') {
    for await (const page of http.pages<Repo>('/repositories', {})) yield page.map(listed);
    return;
  }
  // With a GitHub App, the account's installation token: the app's own JWT lists nothing.
  const app = appTokens(http);
  if (app) http.useToken(await app.ownerToken(http, scope.name));
  const onlyPublic = filters.visibility.length === 1 && filters.visibility[0] === 'public';
  const name = encodeURIComponent(scope.name);
  let first = true;
  try {
    for await (const page of http.pages<Repo>(`/orgs/${name}/repos`, {
      per_page: 100,
      ...(onlyPublic ? { type: 'public' } : {}),
    })) {
      first = false;
      yield page.map(listed);
    }
    return;
  } catch (e) {
    // Not an organisation: a user (the same 404 when neither exists, said by the user list).
    if (!(first && notFound(e))) throw e;
  }
  for await (const page of http.pages<Repo>(`/users/${name}/repos`, {
    per_page: 100,
    type: 'owner',
  }))
    yield page.map(listed);
}

export async function locate(http: ApiClient, path: string): Promise<ListedRepository | undefined> {
  const [owner, repo] = path.split('/') as [string, string];
  // With a GitHub App, its installation on the account (none there: the app cannot see it).
  const app = appTokens(http);
  if (app) {
    const token = await unlessNotFound(app.ownerToken(http, owner));
    if (token === undefined) return undefined;
    http.useToken(token);
  }
  const found = await unlessNotFound(
    http.getJson<Repo>(`/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`),
  );
  return found && listed(found.body);
}
