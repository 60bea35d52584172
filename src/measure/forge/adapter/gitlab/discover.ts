// Discovery on GitLab: a group with all its subgroups (GET /groups/:id/projects with
// include_subgroups=true and with_shared=false: projects shared into the group from elsewhere
// are not its own), offset-paged by X-Next-Page (which GitLab keeps sending past 10,000
// results, when it drops X-Total); a user's namespace (GET /users/:id/projects) when no group
// has the path; a whole instance (GET /projects) by keyset pagination (pagination=keyset,
// order_by=id, sort=asc: the next page in the Link header, no offset limit). GitLab finds a
// renamed or transferred project under its old path (lib/api/helpers.rb find_project follows
// redirect routes) and answers it under the new one.
import type { ForgeHttp } from '../../core/http.ts';
import {
  isNotFound as notFound,
  type ListedRepository,
  type SourceFilters,
  type SourceScope,
  unlessNotFound,
  type Visibility,
} from '../../core/discover.ts';

/** The fields of a project (docs.gitlab.com/api/projects) read here. */
interface Project {
  web_url: string;
  visibility?: string;
  archived?: boolean;
  forked_from_project?: unknown;
  mirror?: boolean;
  topics?: string[];
  tag_list?: string[];
  issues_access_level?: string;
  issues_enabled?: boolean;
}

/**
 * Whether a project's issues are on: `issues_access_level` (since 12.x), else `issues_enabled`
 * before it; undefined when the answer has neither (a `simple` one, GitLab's answer to an
 * anonymous list).
 */
export function issuesOn(p: { issues_access_level?: unknown; issues_enabled?: unknown }): boolean | undefined {
  if (typeof p.issues_access_level === 'string') return p.issues_access_level !== 'disabled';
  if (typeof p.issues_enabled === 'boolean') return p.issues_enabled;
  return undefined;
}

function listed(p: Project): ListedRepository {
  // An unknown or missing visibility is never read as public.
  const visibility: Visibility = p.visibility === 'public' || p.visibility === 'internal' ? p.visibility : 'private';
  const issuesEnabled = issuesOn(p);
  return {
    url: p.web_url,
    archived: p.archived === true,
    fork: p.forked_from_project != null,
    mirror: p.mirror === true,
    visibility,
    topics: p.topics ?? p.tag_list ?? [],
    ...(issuesEnabled !== undefined ? { issuesEnabled } : {}),
  };
}

/** What the forge may be asked to leave out already: the core filters again. */
function narrowing(filters: SourceFilters): Record<string, string> {
  const onlyPublic = filters.visibility.length === 1 && filters.visibility[0] === 'public';
  return { ...(filters.archived ? {} : { archived: 'false' }), ...(onlyPublic ? { visibility: 'public' } : {}) };
}

export async function* discover(
  http: ForgeHttp,
  scope: SourceScope,
  filters: SourceFilters,
): AsyncGenerator<ListedRepository[]> {
  const narrow = narrowing(filters);
  if (scope.kind === 'instance') {
    for await (const page of http.pages<Project>('/projects', {
      pagination: 'keyset',
      order_by: 'id',
      sort: 'asc',
      per_page: 100,
      ...narrow,
    }))
      yield page.map(listed);
    return;
  }
  const id = encodeURIComponent(scope.kind === 'group' ? scope.path : scope.name);
  let first = true;
  try {
    for await (const page of http.pages<Project>(`/groups/${id}/projects`, {
      include_subgroups: 'true',
      with_shared: 'false',
      order_by: 'id',
      sort: 'asc',
      per_page: 100,
      ...narrow,
    })) {
      first = false;
      yield page.map(listed);
    }
    return;
  } catch (e) {
    // No group has the path: a user's namespace (one segment), else the group's 404 stands.
    if (!(first && notFound(e) && !id.includes('%2F'))) throw e;
  }
  for await (const page of http.pages<Project>(`/users/${id}/projects`, {
    order_by: 'id',
    sort: 'asc',
    per_page: 100,
    ...narrow,
  }))
    yield page.map(listed);
}

export async function locate(http: ForgeHttp, path: string): Promise<ListedRepository | undefined> {
  const found = await unlessNotFound(http.getJson<Project>(`/projects/${encodeURIComponent(path)}`));
  return found && listed(found.body);
}
