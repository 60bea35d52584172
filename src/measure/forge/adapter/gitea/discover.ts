// Discovery on Gitea and Forgejo: an organisation's repositories (GET /orgs/{org}/repos),
// else a user's (GET /users/{username}/repos), or every repository of an instance the token
// may see (GET /repos/search, whose answer wraps the list as { ok, data }); all paged by
// Link header with `page` and `limit` (routers/api/v1/org/repo.go, user/repo.go,
// repo/repo.go Search; the instance's MAX_RESPONSE_ITEMS caps `limit`, 50 by default). A
// renamed or transferred repository's old API address answers 307 to the new one
// (services/context/repo.go RedirectToRepo), which the core's client follows on the origin.
import type { ApiClient } from '../../../http/client.ts';
import {
  isNotFound as notFound,
  type ListedRepository,
  type SourceScope,
  unlessNotFound,
  type Visibility,
} from '../../core/discover.ts';
import type { SourceFilters } from '../../../../config/types.ts';

/** The fields of a Repository (modules/structs/repo.go) read here. */
interface Repo {
  html_url: string;
  private: boolean;
  /** Not private, in an organisation whose members alone see it (its owner's visibility private). */
  internal?: boolean;
  /**
   * The owner's visibility (services/convert/user.go): `public`, `limited` (signed-in users
   * of the instance alone) or `private` (members). A repository not private of a `limited`
   * owner is answered `internal: false`: only this says that no visitor may see it.
   */
  owner?: { visibility?: string };
  archived?: boolean;
  fork: boolean;
  mirror: boolean;
  topics?: string[] | null;
  has_issues?: boolean;
}

/** Public only when neither the repository nor its owner is hidden from visitors; unstated is private. */
function visibilityOf(r: Repo): Visibility {
  if (r.private) return 'private';
  if (r.internal) return 'internal';
  const owner = r.owner?.visibility;
  if (owner === 'public') return 'public';
  return owner === 'limited' || owner === 'private' ? 'internal' : 'private';
}

function listed(r: Repo): ListedRepository {
  const visibility = visibilityOf(r);
  return {
    url: r.html_url,
    archived: r.archived === true,
    fork: r.fork,
    mirror: r.mirror,
    visibility,
    topics: r.topics ?? [],
    ...(typeof r.has_issues === 'boolean' ? { issuesEnabled: r.has_issues } : {}),
  };
}

const PAGE = 50;

export async function* discover(
  http: ApiClient,
  scope: SourceScope,
  filters: SourceFilters,
): AsyncGenerator<ListedRepository[]> {
  if (scope.kind === 'group') throw new Error('Forgejo/Gitea names owners, not nested groups');
  if (scope.kind === 'instance') {
    const onlyPublic = !filters.visibility.includes('private');
    const mode: Record<string, string> =
      !filters.forks && !filters.mirrors ? { mode: 'source' } : {};
    const query: Record<string, string | number> = {
      limit: PAGE,
      sort: 'id',
      order: 'asc',
      ...(onlyPublic ? { private: 'false' } : {}),
      ...(filters.archived ? {} : { archived: 'false' }),
      ...mode,
    };
    for await (const page of http.pages<Repo>('/repos/search', query, 'data'))
      yield page.map(listed);
    return;
  }
  const name = encodeURIComponent(scope.name);
  let first = true;
  try {
    for await (const page of http.pages<Repo>(`/orgs/${name}/repos`, { limit: PAGE })) {
      first = false;
      yield page.map(listed);
    }
    return;
  } catch (e) {
    if (!(first && notFound(e))) throw e;
  }
  for await (const page of http.pages<Repo>(`/users/${name}/repos`, { limit: PAGE }))
    yield page.map(listed);
}

export async function locate(http: ApiClient, path: string): Promise<ListedRepository | undefined> {
  const [owner, repo] = path.split('/') as [string, string];
  const found = await unlessNotFound(
    http.getJson<Repo>(`/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`),
  );
  return found && listed(found.body);
}
