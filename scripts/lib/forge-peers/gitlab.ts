// A GitLab REST v4 stand-in for the forge tests and the bench. Every answer is checked against
// test/fixtures/gitlab/responses.v4.json (the documented response fields, see its NOTICE.md);
// pages go by X-Next-Page only, as GitLab's offset pagination sends it. Label, milestone and
// state changes are resource events, never notes (docs.gitlab.com/api/notes, "Resource events":
// GitLab 11.2 for labels, 13.x milestones and states); assignment is still a system note.
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
  specCheck,
  startForgeServer,
  type ForgeServer,
  type Reply,
  type RequestSeen,
  type Route,
} from './server.ts';

const doc = loadJson(
  fileURLToPath(new URL('../../../test/fixtures/gitlab/responses.v4.json', import.meta.url)),
);
export const gitlabCheck = specCheck(doc, '#/definitions/Error');

export interface GlUser {
  username: string;
}
export interface GlIssue {
  iid: number;
  created: string;
  author: GlUser;
}
export interface GlNote {
  issue: number;
  created: string;
  author: GlUser;
  body: string;
  system?: boolean;
  /** Deleted since: no longer listed or counted, its touch of the issue stays. */
  deleted?: boolean;
}
/** A resource event of an issue (resource_label_events, _milestone_events, _state_events). */
export type GlResourceEvent = { issue: number; created: string; user: GlUser } & (
  | { kind: 'label' | 'milestone'; action: 'add' | 'remove' }
  | { kind: 'state'; state: 'closed' | 'reopened' }
);

/** System notes GitLab no longer writes: those changes are resource events. */
const RESOURCE_EVENT_NOTE = /^(added|removed) .*labels?$|milestone|^(closed|reopened)\b/;

export interface GlProject {
  issuesAccess?: 'disabled' | 'private' | 'enabled';
  /** The token's user is no project member: `private` issues and registries are hidden from it. */
  nonMemberToken?: boolean;
  members?: { username: string; access: number }[];
  issues?: GlIssue[];
  notes?: GlNote[];
  events?: GlResourceEvent[];
  pipelines?: { created: string; status: string }[];
  releases?: { tag: string; released: string; upcoming?: boolean }[];
  packages?: { name: string; version: string; type: string; created: string }[];
  /** The project's package registry (`packages_enabled`); off: GET …/packages answers 403. */
  packagesEnabled?: boolean;
  /**
   * `package_registry_access_level` (ProjectFeature; `packages_enabled` follows it: false
   * when `disabled`); default from `packagesEnabled`. On a private project read_package needs
   * the Reporter role (Packages::Policies::ProjectPolicy: reporter_access, else public_access,
   * which a public or internal project gives whoever sees it, or the level `public`), so
   * …/packages answers 403 to a caller who is no such member (`nonMemberToken`).
   */
  packageAccess?: 'disabled' | 'private' | 'enabled' | 'public';
  /** The project's visibility in GET /projects/:id without a catalogue; default public. */
  visibility?: 'public' | 'internal' | 'private';
  /** A GitLab before the API sent `package_registry_access_level` (MR !170122): no such field. */
  noPackageLevelField?: boolean;
  /** The instance has a package registry (gitlab.yml `packages: enabled`); false: …/packages answers 404. */
  instancePackages?: boolean;
  /** The project's container registry (`container_registry_access_level`); default enabled. */
  registryAccess?: 'disabled' | 'private' | 'enabled';
  /**
   * The instance has a container registry (gitlab.yml `registry: enabled`); false: Project
   * has no `container_registry_image_prefix`, and …/registry/repositories answers 200 and []
   * (no instance check there: authorize! :read_container_image, then the project's
   * container repositories, of which none can exist).
   */
  instanceRegistry?: boolean;
  /** Container registry images; none when undefined. */
  images?: { path: string; tags: { name: string; created: string }[] }[];
  pageCap?: number;
  override?: Override;
  /** Groups, subgroups, users and their projects, for discovery (GET /groups/:id/projects, …). */
  catalogue?: Catalogue;
}

let ids = 1;
const user = (u: GlUser) => ({
  id: ids++,
  username: u.username,
  name: u.username,
  state: 'active',
  avatar_url: null,
  web_url: `https://gitlab.example/${u.username}`,
});
const unix = (iso: string) => Date.parse(iso) / 1000;

/**
 * GitLab's short form of a project, every field BasicProjectDetails exposes by default
 * (lib/api/entities/basic_project_details.rb and project_identity.rb; `default_branch`,
 * `readme_url` and `forks_count` to a caller who may read the code, as anyone may on a public
 * project); `license`, `custom_attributes` and `repository_storage` only when asked or to an
 * admin. No visibility, archived, mirror or issues field.
 */
function shortForm(p: { id: number; name: string; path: string; web: string; topics: string[] }) {
  const namespace = p.path.slice(0, p.path.lastIndexOf('/'));
  return {
    id: p.id,
    description: null,
    name: p.name,
    name_with_namespace: p.path.split('/').join(' / '),
    path: p.name,
    path_with_namespace: p.path,
    created_at: '2026-01-01T00:00:00.000Z',
    default_branch: 'main',
    tag_list: p.topics,
    topics: p.topics,
    ssh_url_to_repo: `git@${new URL(p.web).host}:${p.path}.git`,
    http_url_to_repo: `${p.web}.git`,
    web_url: p.web,
    readme_url: null,
    forks_count: 0,
    avatar_url: null,
    star_count: 0,
    last_activity_at: '2026-01-01T00:00:00.000Z',
    namespace: { id: 1, name: namespace, path: namespace, kind: 'group', full_path: namespace },
  };
}

export async function startGitLab(p: GlProject): Promise<ForgeServer> {
  const cap = p.pageCap ?? 100;
  const paged = (items: unknown[], req: RequestSeen): Reply => {
    const size = Math.min(cap, Number(req.query.get('per_page') ?? 20));
    const n = Number(req.query.get('page') ?? 1);
    const last = Math.max(1, Math.ceil(items.length / size));
    const headers = {
      'x-page': String(n),
      'x-per-page': String(size),
      'x-next-page': n < last ? String(n + 1) : '',
      'x-total': String(items.length),
      'x-total-pages': String(last),
    };
    return { status: 200, headers, body: items.slice((n - 1) * size, n * size) };
  };
  const route = routeMaker(p.override);
  const after = (req: RequestSeen, name: string) =>
    unix(req.query.get(name) ?? '1970-01-01T00:00:00Z');
  const cat = p.catalogue;
  const repos = cat ? held(cat) : [];
  /**
   * The short form, BasicProjectDetails (lib/api/entities/basic_project_details.rb): who the
   * project is, its URLs and topics; no visibility, archived, forked_from_project, mirror or
   * issues field. GitLab lists projects so with simple=true, and always to an anonymous
   * GET /projects or /users/:id/projects (present_projects in lib/api/projects.rb: the full
   * ProjectWithAccess for a signed-in user only). GET /groups/:id/projects sends the full
   * Project to anyone unless simple=true (present_projects in lib/api/groups.rb).
   */
  const basic = (h: Held) =>
    shortForm({
      id: h.id,
      name: h.name,
      path: h.path,
      web: `${cat!.web}/${h.path}`,
      topics: h.topics,
    });
  /**
   * ProjectDetails (lib/api/entities/project_details.rb), an anonymous GET /projects/:id: the
   * short form and, on a fork, forked_from_project.
   */
  const details = (h: Held) => ({
    ...basic(h),
    ...(h.fork
      ? {
          forked_from_project: {
            id: 100_000 + h.id,
            path_with_namespace: `upstream/${h.name}`,
            web_url: `${cat!.web}/upstream/${h.name}`,
          },
        }
      : {}),
  });
  /**
   * Whether the caller may read the issues (ProjectPolicy's read_issue): never when they are
   * disabled; members only when `private` (a signed-in caller is one unless `nonMemberToken`).
   */
  const readsIssues = (req: RequestSeen) =>
    p.issuesAccess !== 'disabled' &&
    (p.issuesAccess !== 'private' || (signedIn(req) && !p.nonMemberToken));
  /** Whether the caller may read_container_image: as for issues, by `container_registry_access_level`. */
  const readsRegistry = (req: RequestSeen) =>
    p.registryAccess !== 'disabled' &&
    (p.registryAccess !== 'private' || (signedIn(req) && !p.nonMemberToken));
  const packageAccess = p.packageAccess ?? (p.packagesEnabled === false ? 'disabled' : 'enabled');
  /** Whether the caller may read_package: never when off; on a private project, as above. */
  const readsPackages = (req: RequestSeen) =>
    packageAccess !== 'disabled' &&
    (packageAccess === 'public' ||
      (p.visibility ?? 'public') !== 'private' ||
      (signedIn(req) && !p.nonMemberToken));
  /**
   * The registry fields of Project (lib/api/entities/project.rb): `packages_enabled` the
   * project's setting (false when `package_registry_access_level` is `disabled`),
   * `package_registry_access_level` the setting, `container_registry_enabled`
   * feature_available? for the caller, `container_registry_access_level` the setting,
   * `container_registry_image_prefix` only `if: Gitlab.config.registry.enabled`.
   */
  const registryFields = (req: RequestSeen, path: string) => ({
    packages_enabled: packageAccess !== 'disabled',
    ...(p.noPackageLevelField ? {} : { package_registry_access_level: packageAccess }),
    container_registry_enabled: readsRegistry(req),
    container_registry_access_level: p.registryAccess ?? 'enabled',
    ...(p.instanceRegistry === false
      ? {}
      : { container_registry_image_prefix: `registry.example/${path.toLowerCase()}` }),
  });
  /**
   * Project (lib/api/entities/project.rb and EE's `mirror`): the full form; `issues_enabled`
   * is feature_available?(:issues) for the caller, `issues_access_level` the setting.
   */
  const project = (h: Held, req: RequestSeen) => ({
    ...details(h),
    issues_enabled: readsIssues(req),
    issues_access_level: p.issuesAccess ?? 'enabled',
    ...registryFields(req, h.path),
    visibility: h.visibility,
    archived: h.archived,
    ...(h.mirror ? { mirror: true } : {}),
  });
  /** The form a project list takes: short when simple=true, or when `anonymousShort` and no one signed in. */
  const listForm = (req: RequestSeen, anonymousShort: boolean): ((h: Held) => object) =>
    req.query.get('simple') === 'true' || (anonymousShort && !signedIn(req))
      ? basic
      : (h) => project(h, req);
  /** The list filters every project list takes (archived, visibility), ordered by id. */
  const filtered = (list: Held[], req: RequestSeen) => {
    const archived = req.query.get('archived');
    const visibility = req.query.get('visibility');
    const kept = list.filter(
      (h) =>
        (archived === null || String(h.archived) === archived) &&
        (visibility === null || h.visibility === visibility),
    );
    return req.query.get('sort') === 'asc' ? kept : kept.reverse();
  };
  /**
   * Offset pagination (docs.gitlab.com/api/rest#offset-based-pagination): X-Page, X-Per-Page,
   * X-Next-Page, X-Prev-Page and a Link header; past 10,000 results GitLab leaves out X-Total,
   * X-Total-Pages and the last page's link.
   */
  const offsetPaged = (items: unknown[], req: RequestSeen, base: string): Reply => {
    const size = Math.min(cap, Number(req.query.get('per_page') ?? 20));
    const n = Number(req.query.get('page') ?? 1);
    const last = Math.max(1, Math.ceil(items.length / size));
    const at = (page: number) => {
      const q = new URLSearchParams(req.query);
      q.set('page', String(page));
      return `<${base}${req.path}?${q}>`;
    };
    const links = [
      ...(n < last ? [`${at(n + 1)}; rel="next"`] : []),
      ...(n > 1 ? [`${at(n - 1)}; rel="prev"`] : []),
      `${at(1)}; rel="first"`,
    ];
    const counted = items.length <= 10_000;
    if (counted) links.push(`${at(last)}; rel="last"`);
    const headers: Record<string, string> = {
      link: links.join(', '),
      'x-page': String(n),
      'x-per-page': String(size),
      'x-next-page': n < last ? String(n + 1) : '',
      'x-prev-page': n > 1 ? String(n - 1) : '',
    };
    if (counted)
      Object.assign(headers, { 'x-total': String(items.length), 'x-total-pages': String(last) });
    return { status: 200, headers, body: items.slice((n - 1) * size, n * size) };
  };
  const catalogueRoutes: Route[] = cat
    ? [
        // A group's projects; with include_subgroups=true those of every subgroup too.
        route('/groups/{id}/projects', (params, req, base) => {
          const group = params.id!.toLowerCase();
          const isUser = (cat.users ?? []).some((u) => sameOwner(u, group));
          if (isUser || !repos.some((h) => h.path.toLowerCase().startsWith(`${group}/`)))
            return { status: 404, body: { message: '404 Group Not Found' } };
          const deep = req.query.get('include_subgroups') === 'true';
          const mine = visibleTo(repos, req).filter((h) =>
            deep ? h.path.toLowerCase().startsWith(`${group}/`) : h.owner.toLowerCase() === group,
          );
          return offsetPaged(filtered(mine, req).map(listForm(req, false)), req, base);
        }),
        route('/users/{user_id}/projects', (params, req, base) => {
          if (!(cat.users ?? []).some((u) => sameOwner(u, params.user_id!)))
            return { status: 404, body: { message: '404 User Not Found' } };
          return offsetPaged(
            filtered(
              visibleTo(repos, req).filter((h) => sameOwner(h.owner, params.user_id!)),
              req,
            ).map(listForm(req, true)),
            req,
            base,
          );
        }),
        // Every project the request may see; keyset pagination by id (pagination=keyset,
        // order_by=id, sort=asc: the next page is the Link header's, with id_after).
        route('/projects', (_params, req, base) => {
          const all = filtered(visibleTo(repos, req), req);
          const form = listForm(req, true);
          if (req.query.get('pagination') !== 'keyset')
            return offsetPaged(all.map(form), req, base);
          if (req.query.get('order_by') !== 'id' || req.query.get('sort') !== 'asc')
            return { status: 405, body: { message: '405 Method Not Allowed' } };
          const size = Math.min(cap, Number(req.query.get('per_page') ?? 20));
          const from = Number(req.query.get('id_after') ?? 0);
          const rest = all.filter((h) => h.id > from);
          const items = rest.slice(0, size);
          const q = new URLSearchParams(req.query);
          q.set('id_after', String(items[items.length - 1]?.id ?? from));
          const headers: Record<string, string> =
            rest.length > size ? { link: `<${base}${req.path}?${q}>; rel="next"` } : {};
          return { status: 200, headers, body: items.map(form) };
        }),
      ]
    : [];
  const routes: Route[] = [
    ...catalogueRoutes,
    route('/projects/{id}', (params, req) => {
      if (cat) {
        // GitLab finds a project under a path it was renamed or transferred from (redirect routes).
        const { repo } = find(cat, repos, params.id!);
        if (!repo || (repo.visibility !== 'public' && !signedIn(req)))
          return { status: 404, body: { message: '404 Project Not Found' } };
        // ProjectWithAccess to a signed-in user, else ProjectDetails (lib/api/projects.rb).
        return { status: 200, body: signedIn(req) ? project(repo, req) : details(repo) };
      }
      return projectOf(params, req);
    }),
  ];
  /**
   * The project of a stand-in without a catalogue: ProjectWithAccess (with the issues fields)
   * to a signed-in caller, ProjectDetails to an anonymous one (GET /projects/:id in
   * lib/api/projects.rb): the short form, no issues field.
   */
  const projectOf = (params: Record<string, string>, req: RequestSeen): Reply => {
    const web = `https://gitlab.example/${params.id}`;
    const name = params.id!.slice(params.id!.lastIndexOf('/') + 1);
    const details = shortForm({ id: 42, name, path: params.id!, web, topics: [] });
    if (!signedIn(req)) return { status: 200, body: details };
    return {
      status: 200,
      body: {
        ...details,
        issues_enabled: readsIssues(req),
        issues_access_level: p.issuesAccess ?? 'enabled',
        ...registryFields(req, params.id!),
        visibility: p.visibility ?? 'public',
        archived: false,
      },
    };
  };
  /**
   * When an issue last changed, as GitLab dates it: a note touches its issue (Note
   * `after_save :touch_noteable`), a label change touches it (Issuable::Callbacks::Labels), a
   * touch within a minute of the last update is skipped (ThrottledTouch, TOUCH_INTERVAL); a
   * milestone or state change saves the issue's own attributes, never skipped. A deleted
   * note touches nothing (Notes::DestroyService: `note.destroy`, no after_save).
   */
  const updatedAt = (i: GlIssue): string => {
    const changes = [
      ...(p.notes ?? [])
        .filter((n) => n.issue === i.iid)
        .map((n) => ({ at: unix(n.created), throttled: true })),
      ...(p.events ?? [])
        .filter((e) => e.issue === i.iid)
        .map((e) => ({ at: unix(e.created), throttled: e.kind === 'label' })),
    ].sort((a, b) => a.at - b.at);
    let updated = unix(i.created);
    // A date a test made unreadable (to see the adapter leave it out) changes nothing.
    if (!Number.isFinite(updated)) return i.created;
    for (const c of changes)
      if (Number.isFinite(c.at) && (!c.throttled || c.at - updated > 60))
        updated = Math.max(updated, c.at);
    return new Date(updated * 1000).toISOString();
  };
  /** GitLab's answer to an anonymous call of an API that calls `authenticate!` first. */
  const unauthorized: Reply = { status: 401, body: { message: '401 Unauthorized' } };
  /** `authorize!` refused (lib/api/helpers.rb: `forbidden!`), with a token or without. */
  const forbidden: Reply = { status: 403, body: { message: '403 Forbidden' } };
  routes.push(
    // A caller who may not read the issues gets 200 and none: IssuableFinder keeps only the
    // projects the caller can read_issue in (app/finders/issuable_finder/params.rb).
    route('/projects/{id}/issues', (_x, req) =>
      paged(
        (readsIssues(req) ? (p.issues ?? []) : [])
          .filter((i) => unix(i.created) >= after(req, 'created_after'))
          .map((i) => ({
            id: 1000 + i.iid,
            iid: i.iid,
            project_id: 42,
            title: `Issue ${i.iid}`,
            state: 'opened',
            created_at: i.created,
            updated_at: updatedAt(i),
            user_notes_count: (p.notes ?? []).filter(
              (n) => n.issue === i.iid && !n.system && !n.deleted,
            ).length,
            closed_at: null,
            author: user(i.author),
            assignees: [],
            labels: [],
            web_url: `https://gitlab.example/issues/${i.iid}`,
          })),
        req,
      ),
    ),
    // Notes, resource events and members: `before { authenticate! }` (lib/api/notes.rb,
    // resource_label_events.rb, resource_milestone_events.rb, resource_state_events.rb,
    // members.rb): 401 to anyone signed out, public project or not.
    route('/projects/{id}/issues/{issue_iid}/notes', (params, req) =>
      !signedIn(req)
        ? unauthorized
        : paged(
            (p.notes ?? [])
              .filter((n) => n.issue === Number(params.issue_iid) && !n.deleted)
              .map((n, k) => {
                if (n.system && RESOURCE_EVENT_NOTE.test(n.body))
                  throw new Error(`GitLab records "${n.body}" as a resource event, not a note`);
                return {
                  id: k + 1,
                  body: n.body,
                  author: user(n.author),
                  created_at: n.created,
                  updated_at: n.created,
                  system: !!n.system,
                  noteable_id: 1000 + n.issue,
                  noteable_type: 'Issue',
                  noteable_iid: n.issue,
                  internal: false,
                };
              }),
            req,
          ),
    ),
    ...(['label', 'milestone', 'state'] as const).map((kind) =>
      route(`/projects/{id}/issues/{issue_iid}/resource_${kind}_events`, (params, req) =>
        !signedIn(req)
          ? unauthorized
          : paged(
              (p.events ?? [])
                .filter((e) => e.kind === kind && e.issue === Number(params.issue_iid))
                .map((e, k) => ({
                  id: k + 1,
                  user: user(e.user),
                  created_at: e.created,
                  resource_type: 'Issue',
                  resource_id: 1000 + e.issue,
                  ...(e.kind === 'state'
                    ? { state: e.state }
                    : e.kind === 'label'
                      ? { label: { id: 7, name: 'bug' }, action: e.action }
                      : { milestone: { id: 9, title: 'v1' }, action: e.action }),
                })),
              req,
            ),
      ),
    ),
    route('/projects/{id}/members/all', (_x, req) =>
      !signedIn(req)
        ? unauthorized
        : paged(
            (p.members ?? []).map((m) => ({
              ...user(m),
              access_level: m.access,
              expires_at: null,
            })),
            req,
          ),
    ),
    route('/projects/{id}/pipelines', (_x, req) =>
      paged(
        (p.pipelines ?? [])
          .filter((x) => unix(x.created) >= after(req, 'updated_after'))
          .map((x, k) => ({
            id: k + 1,
            iid: k + 1,
            project_id: 42,
            sha: 'a'.repeat(40),
            ref: 'main',
            status: x.status,
            source: 'push',
            created_at: x.created,
            updated_at: x.created,
            web_url: `https://gitlab.example/pipelines/${k + 1}`,
          })),
        req,
      ),
    ),
    route('/projects/{id}/releases', (_x, req) =>
      paged(
        (p.releases ?? []).map((r) => ({
          tag_name: r.tag,
          name: r.tag,
          description: null,
          created_at: r.released,
          released_at: r.released,
          upcoming_release: !!r.upcoming,
        })),
        req,
      ),
    ),
    // authorize_packages_access! (lib/api/helpers/packages_helpers.rb): 404 when the instance
    // has no package registry (require_packages_enabled!), 403 when the caller may not
    // read_package: the project's registry is off (ProjectPolicy: packages_disabled), or for
    // members only and the caller is no Reporter member.
    route('/projects/{id}/packages', (_x, req) =>
      p.instancePackages === false
        ? { status: 404, body: { message: '404 Not Found' } }
        : !readsPackages(req)
          ? forbidden
          : paged(
              (p.packages ?? []).map((x, k) => ({
                id: k + 1,
                name: x.name,
                version: x.version,
                package_type: x.type,
                status: 'default',
                created_at: x.created,
              })),
              req,
            ),
    ),
    // authorize! :read_container_image (lib/api/project_container_repositories.rb): 403 when
    // the registry is off, or for members only and the caller is none (ProjectPolicy's
    // container_registry_disabled); an enabled registry without images answers [], as does
    // an instance without a container registry (nothing there checks Gitlab.config.registry).
    route('/projects/{id}/registry/repositories', (_x, req) =>
      readsRegistry(req)
        ? paged(
            (p.instanceRegistry === false ? [] : (p.images ?? [])).map((image, k) => ({
              id: k + 1,
              name: '',
              path: image.path,
              project_id: 42,
              location: `registry.example/${image.path}`,
              created_at: '2026-01-01T00:00:00Z',
              cleanup_policy_started_at: null,
              tags_count: image.tags.length,
              tags: image.tags.map((t) => ({
                name: t.name,
                path: `${image.path}:${t.name}`,
                location: `registry.example/${image.path}:${t.name}`,
              })),
            })),
            req,
          )
        : forbidden,
    ),
    route('/projects/{id}/registry/repositories/{repository_id}/tags/{tag_name}', (params, req) => {
      if (!readsRegistry(req)) return forbidden;
      const image = p.images?.[Number(params.repository_id) - 1];
      const tag = image?.tags.find((t) => t.name === params.tag_name);
      if (!image || !tag) return { status: 404, body: { message: '404 Tag Not Found' } };
      return {
        status: 200,
        body: {
          name: tag.name,
          path: `${image.path}:${tag.name}`,
          location: `registry.example/${image.path}:${tag.name}`,
          revision: 'b'.repeat(64),
          short_revision: 'b'.repeat(9),
          digest: `sha256:${'c'.repeat(64)}`,
          created_at: tag.created,
          total_size: 1024,
        },
      };
    }),
  );
  // The REST API's answers carry a weak ETag (Rails' Rack::ETag) but If-None-Match is ignored:
  // every answer comes whole (gitlab-org/gitlab#14357, "Support caching for API requests").
  return startForgeServer(routes, gitlabCheck, '/api/v4', 'sent');
}
