// Discovery on GitLab: a group with all its subgroups (GET /groups/:id/projects with
// include_subgroups=true and with_shared=false: projects shared into the group from elsewhere
// are not its own), offset-paged by X-Next-Page (which GitLab keeps sending past 10,000
// results, when it drops X-Total); a user's namespace (GET /users/:id/projects) when no group
// has the path; a whole instance (GET /projects) by keyset pagination (pagination=keyset,
// order_by=id, sort=asc: the next page in the Link header, no offset limit). GitLab finds a
// renamed or transferred project under its old path (lib/api/helpers.rb find_project follows
// redirect routes) and answers it under the new one.
//
// Without a token, GitLab answers GET /projects and /users/:id/projects in its short form
// (BasicProjectDetails: present_projects in lib/api/projects.rb), with no visibility,
// archived, forked_from_project or mirror field, and GET /projects/:id with that and
// forked_from_project (ProjectDetails); GET /groups/:id/projects comes whole to anyone.
// Anonymous callers see public projects only ("without authentication, only public projects
// are returned"), so a short project listed to one is public; archived ones the server leaves
// out when asked (archived=false); a fork or a mirror cannot be told, so a source that leaves
// them out fails, named, rather than keep or drop them blind.
import type { ApiClient } from '../../../http/client.ts';
import { ApiError } from '../../../http/errors.ts';
import {
  isNotFound as notFound,
  type ListedRepository,
  type SourceScope,
  unlessNotFound,
  type Visibility,
} from '../../core/discover.ts';
import type { SourceFilters } from '../../../../config/types.ts';
import type { RegistryState, RegistryStates } from '../../../types.ts';

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
  packages_enabled?: boolean;
  package_registry_access_level?: string;
  container_registry_access_level?: string;
  container_registry_enabled?: boolean;
  container_registry_image_prefix?: string;
}

/**
 * Whether a project's issues are on: `issues_access_level` (since 12.x), else `issues_enabled`
 * before it; undefined when the answer has neither (the short form: a list asked simple=true,
 * an anonymous list of an instance or a user, an anonymous GET /projects/:id), or when the
 * issues are for members only (`private`) and `issues_enabled` (feature_available? for the
 * caller, lib/api/entities/project.rb) says the caller is no member: hidden, not disabled.
 */
export function issuesOn(p: {
  issues_access_level?: unknown;
  issues_enabled?: unknown;
}): boolean | undefined {
  if (p.issues_access_level === 'private') return p.issues_enabled === true ? true : undefined;
  if (typeof p.issues_access_level === 'string') return p.issues_access_level !== 'disabled';
  if (typeof p.issues_enabled === 'boolean') return p.issues_enabled;
  return undefined;
}

/**
 * Whether a project's package registries are on, from the full Project
 * (lib/api/entities/project.rb; docs.gitlab.com/api/projects). The package registry:
 * `package_registry_access_level` (sent since MR !170122, which deprecates `packages_enabled`;
 * `disabled` | `private` | `enabled` | `public`, ProjectFeature), else `packages_enabled`
 * (false when the level is `disabled`: its packages answer 403, ProjectPolicy's
 * packages_disabled); `private` lets only members with the Reporter role read_package, and no
 * field says whether the caller is one: `members`, asked. The container registry:
 * `container_registry_access_level` (since 14.x), else `container_registry_enabled` before it;
 * `private` with `container_registry_enabled` (feature_available? for the caller) false is
 * hidden from the caller, not off; `absent` when the answer has the level but no
 * `container_registry_image_prefix`, which Project sends only `if: Gitlab.config.registry.enabled`
 * (the instance has a container registry). Undefined when the answer lacks the fields (the
 * short form).
 */
export function registriesOf(p: {
  packages_enabled?: unknown;
  package_registry_access_level?: unknown;
  container_registry_access_level?: unknown;
  container_registry_enabled?: unknown;
  container_registry_image_prefix?: unknown;
}): RegistryStates | undefined {
  let packages: RegistryState;
  const packageLevel = p.package_registry_access_level;
  if (packageLevel === 'private') packages = 'members';
  else if (typeof packageLevel === 'string') packages = packageLevel === 'disabled' ? 'off' : 'on';
  else if (typeof p.packages_enabled === 'boolean') packages = p.packages_enabled ? 'on' : 'off';
  else return undefined;
  const level = p.container_registry_access_level;
  const seen = p.container_registry_enabled;
  let containers: RegistryState;
  if (typeof level === 'string' && typeof p.container_registry_image_prefix !== 'string')
    containers = 'absent';
  else if (level === 'private') containers = seen === true ? 'on' : 'hidden';
  else if (typeof level === 'string') containers = level === 'disabled' ? 'off' : 'on';
  else if (typeof seen === 'boolean') containers = seen ? 'on' : 'off';
  else return undefined;
  return { packages, containers };
}

/** Whether `p` is GitLab's short form of a project: no visibility and no archived field. */
const isShort = (p: Project): boolean => p.visibility === undefined && p.archived === undefined;

/** Whether `http` asks without credentials: GitLab then shows public projects only. */
export const anonymous = (http: ApiClient): boolean =>
  http.access.tokens.length === 0 && http.access.app === undefined;

/** Where to set the host's token, for a cause that asks for one: "in $GITLAB_TOKEN". */
export const tokenPlace = (http: ApiClient): string =>
  http.access.tokenEnv ? `in $${http.access.tokenEnv}` : 'through hosts: tokenEnv';

/**
 * `p` as listed; `publicOnly`: the request was anonymous, so a project without a visibility
 * is public. Archived is false when the field is missing: the list was asked archived=false,
 * or the source keeps archived ones and does not look. A fork or mirror field missing is
 * read as none: `shortFormRefused` has failed a source that leaves them out.
 */
function listed(p: Project, publicOnly: boolean): ListedRepository {
  // Otherwise an unknown or missing visibility is never read as public.
  const visibility: Visibility =
    p.visibility === 'public' || p.visibility === 'internal'
      ? p.visibility
      : p.visibility === undefined && publicOnly
        ? 'public'
        : 'private';
  const issuesEnabled = issuesOn(p);
  const registries = registriesOf(p);
  return {
    url: p.web_url,
    archived: p.archived === true,
    fork: p.forked_from_project != null,
    mirror: p.mirror === true,
    visibility,
    topics: p.topics ?? p.tag_list ?? [],
    ...(issuesEnabled !== undefined ? { issuesEnabled } : {}),
    ...(registries ? { registries } : {}),
  };
}

/** What the forge may be asked to leave out already: the core filters again. */
function narrowing(filters: SourceFilters): Record<string, string> {
  const onlyPublic = filters.visibility.length === 1 && filters.visibility[0] === 'public';
  return {
    ...(filters.archived ? {} : { archived: 'false' }),
    ...(onlyPublic ? { visibility: 'public' } : {}),
  };
}

/**
 * Why a page of the short form cannot be filtered as the source says (it leaves forks or
 * mirrors out, and the short form has neither field), or undefined when it can.
 */
function shortFormRefused(
  http: ApiClient,
  page: readonly Project[],
  filters: SourceFilters,
): ApiError | undefined {
  if (!page.some(isShort)) return undefined;
  const unknown = [...(filters.forks ? [] : ['forks']), ...(filters.mirrors ? [] : ['mirrors'])];
  if (unknown.length === 0) return undefined;
  const set = unknown.map((f) => `${f}: false`).join(' and ');
  return new ApiError(
    'auth',
    `${http.label}: without a token GitLab lists these projects in its short form, with no forked_from_project or mirror field: the source's ${set} cannot be applied; set a token ${tokenPlace(http)}, or keep ${unknown.join(' and ')} (${unknown.map((f) => `${f}: true`).join(', ')})`,
  );
}

export async function* discover(
  http: ApiClient,
  scope: SourceScope,
  filters: SourceFilters,
): AsyncGenerator<ListedRepository[]> {
  const narrow = narrowing(filters);
  const publicOnly = anonymous(http);
  const read = (page: Project[]): ListedRepository[] => {
    const refused = shortFormRefused(http, page, filters);
    if (refused) throw refused;
    return page.map((p) => listed(p, publicOnly));
  };
  if (scope.kind === 'instance') {
    for await (const page of http.pages<Project>('/projects', {
      pagination: 'keyset',
      order_by: 'id',
      sort: 'asc',
      per_page: 100,
      ...narrow,
    }))
      yield read(page);
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
      yield read(page);
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
    yield read(page);
}

export async function locate(http: ApiClient, path: string): Promise<ListedRepository | undefined> {
  const found = await unlessNotFound(
    http.getJson<Project>(`/projects/${encodeURIComponent(path)}`),
  );
  return found && listed(found.body, anonymous(http));
}
