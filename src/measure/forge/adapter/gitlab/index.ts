// GitLab (gitlab.com and self-managed) over its REST API v4 through the core's client: one
// GET per page, pages by X-Next-Page. No client library: @gitbeaker/rest takes no fetch
// function, so its calls would bypass the host's queue and token pool.
import { anonymous, discover, issuesOn, locate, registriesOf, tokenPlace } from './discover.ts';
import type { ForgeAdapter } from '../../core/adapter.ts';
import { ApiError, undocumented } from '../../../http/errors.ts';
import type { ApiClient } from '../../../http/client.ts';
import type {
  CiRuns,
  ForgeRelease,
  ForgeSource,
  PackagesFound,
  PackageVersion,
} from '../../core/measurer.ts';
import type { RegistryOff } from '../../../../model/measured-rules.ts';
import { unixOf, type Actor, type ForgeIssue } from '../../core/rules.ts';
import { issueFindings } from '../../core/issue-findings.ts';
import type { ForgeRequest, RegistryStates } from '../../../types.ts';
import { loginIsBot } from '../../../bots.ts';
import { isoTime } from '../../../../model/calendar.ts';

export const adapter: ForgeAdapter<'gitlab'> = {
  kind: 'gitlab',
  label: 'GitLab API',
  knownHosts: {
    'gitlab.com': {
      apiUrl: 'https://gitlab.com/api/v4',
      tokenEnv: 'GITLAB_TOKEN',
      requestsPerSecond: 5,
    },
  },
  repositoryPaths: 'nested-groups',
  authorize: (token) => ['private-token', token],
  quirks: {
    // Offset pagination names the next page's number in X-Next-Page (empty on the last page).
    nextPage(headers, first) {
      const page = headers.get('x-next-page');
      if (!page) return undefined;
      const next = new URL(first);
      next.searchParams.set('page', page);
      return next.href;
    },
    // No `conditional` (docs/reference/scan.md, "Conditional requests"): the REST API's weak
    // ETag is Rack's digest of an answer already built whole (Rack::ETag), If-None-Match is
    // ignored on its JSON lists (gitlab-org/gitlab#14357; Gitlab::EtagCaching serves the web
    // UI's polling routes, not lib/api), and a request counts against GitLab's rate limits
    // whatever it is answered: nothing to save.
  },
  open: async (http, request) => gitlabSource(http, request),
  discover,
  locate,
};

/** Reporter: the lowest access level that can triage issues; maintainers here are members at or above it. */
const REPORTER_ACCESS = 20;

interface User {
  id: number;
  username: string;
}

/** GitLab's own bot users: project and group access-token bots and its internal bots (`[bot]` names: the scan's test). */
function isGitLabBot(username: string): boolean {
  return (
    /^(project|group)_\d+_bot(_[0-9a-f]+)?$/.test(username) ||
    ['ghost', 'support-bot', 'alert-bot', 'gitlab-bot'].includes(username)
  );
}

/**
 * The triage actions that count as a reaction, as on GitHub (`labeled`, `milestoned`, `closed`,
 * `assigned`): a label or milestone added, the issue closed, someone assigned. GitLab records
 * the first three as resource events, not notes (labels since 11.2, milestones and states
 * since 13.x); assignment is still a system note ("assigned to @x").
 */
const ASSIGNED_NOTE = /^assigned to /;
type ResourceEvent = { created_at: string; user: User | null; action?: string; state?: string };
const RESOURCE_EVENTS: ReadonlyArray<[kind: string, counts: (e: ResourceEvent) => boolean]> = [
  ['label', (e) => e.action === 'add'],
  ['milestone', (e) => e.action === 'add'],
  ['state', (e) => e.state === 'closed'],
];

/**
 * Why the issue reaction time cannot be measured without a token. Anonymously, GitLab answers
 * GET /projects/:id in its short form (ProjectDetails: lib/api/projects.rb), with no issues
 * field; its issues list answers 200 and [] when the caller may not read issues (disabled, or
 * members only: IssuableFinder keeps only projects the caller can read_issue), as for none;
 * and members, notes and resource events answer 401 to anyone signed out (`authenticate!` in
 * lib/api/members.rb, notes.rb, resource_*_events.rb).
 */
const needsToken = (http: ApiClient): string =>
  `${http.label}: without a token GitLab does not say whether this project's issues are on, and answers its members, notes and resource events with 401: set a token ${tokenPlace(http)}`;

/** The registries' names in causes. */
const REGISTRY = { packages: 'package registry', containers: 'container registry' } as const;

/**
 * Why `registry`'s versions cannot be read: for members only and the caller is none, or, to an
 * anonymous caller, a 403 that says neither "off" nor "members only" (no field tells without
 * a token: the lookup answers the short form).
 */
const registryUnknown = (
  http: ApiClient,
  registry: keyof typeof REGISTRY,
  hidden: boolean,
): ApiError =>
  new ApiError(
    'auth',
    hidden
      ? `${http.label}: this project's ${REGISTRY[registry]} is visible to its members only, and ${anonymous(http) ? 'no token is set' : "the token's user is not one"}: set a member's token ${tokenPlace(http)}`
      : `${http.label}: without a token GitLab does not say whether this project's ${REGISTRY[registry]} is on, and answers it 403: set a token ${tokenPlace(http)}`,
  );

function gitlabSource(http: ApiClient, request: ForgeRequest): ForgeSource {
  const project = `/projects/${encodeURIComponent(request.target.path)}`;
  const all = async <T>(
    path: string,
    query: Record<string, string | number> = {},
  ): Promise<T[]> => {
    const out: T[] = [];
    for await (const page of http.pages<T>(`${project}${path}`, { per_page: 100, ...query }))
      out.push(...page);
    return out;
  };
  // Whether the registries are on: the listing's, else the lookup's (none without a token).
  let registries: RegistryStates | undefined = request.target.registries;
  /**
   * `list` of `registry`, unless GitLab said it is off or the instance has none; a 403
   * (authorize!: forbidden!) is unknown, named, never none: for members only, the caller is
   * none; to an anonymous caller, nothing says why. With a token and the registry on for
   * whoever may read the project, it stands as a failure.
   */
  const unlessOff = async <T>(
    registry: keyof typeof REGISTRY,
    list: () => Promise<T[]>,
  ): Promise<T[] | 'off' | 'absent'> => {
    const state = registries?.[registry];
    if (state === 'off' || state === 'absent') return state;
    if (state === 'hidden') throw registryUnknown(http, registry, true);
    try {
      return await list();
    } catch (e) {
      if (e instanceof ApiError && e.status === 403 && (state === 'members' || anonymous(http)))
        throw registryUnknown(http, registry, state === 'members');
      throw e;
    }
  };

  return {
    async repository() {
      const { body } = await http.getJson<
        Parameters<typeof issuesOn>[0] &
          Parameters<typeof registriesOf>[0] & { issues_access_level?: unknown }
      >(project);
      registries ??= registriesOf(body);
      const issuesEnabled = issuesOn(body);
      if (issuesEnabled !== undefined) return { issuesEnabled };
      // Anonymous: the short form, documented; signed in, GitLab always sends the fields.
      if (anonymous(http)) return { issuesUnknown: needsToken(http) };
      if (body.issues_access_level === 'private')
        return {
          issuesUnknown: `${http.label}: this project's issues are visible to its members only, and the token's user is not one: set a member's token ${tokenPlace(http)}`,
        };
      throw undocumented(http.label, `the answer to ${project}`);
    },

    async issues(since: number): Promise<ForgeIssue[]> {
      type Listed = {
        iid: number;
        created_at: string;
        updated_at?: string;
        user_notes_count?: number;
        author: User;
      };
      const listed = await all<Listed>('/issues', {
        created_after: isoTime(since),
        scope: 'all',
      });
      if (listed.length === 0) return [];
      // A listing that said issues are on (a group's, whole to anyone): the list is real, but
      // who reacted cannot be read without a token.
      if (anonymous(http)) throw new ApiError('auth', needsToken(http));
      // Members with their inherited access: a group's maintainers maintain its projects.
      const members = await all<{ username: string; access_level: number }>('/members/all');
      const maintainers = new Set(
        members.filter((m) => m.access_level >= REPORTER_ACCESS).map((m) => m.username),
      );
      const actor = (u: User): Actor => ({
        login: u.username,
        bot: isGitLabBot(u.username) || loginIsBot(request.isBot, u.username),
        maintainer: maintainers.has(u.username),
      });
      // An issue unchanged since the last scan takes its reactions then (core/issue-findings.ts):
      // a note (Note after_save :touch_noteable), a label (Issuable::Callbacks::Labels touches),
      // a milestone or a state change (saved attributes) bumps updated_at; a deleted note does
      // not, but lowers user_notes_count. docs/reference/scan.md cites each.
      const findings = issueFindings(
        http.keptFindings,
        [...maintainers].filter((name) => !actor({ id: 0, username: name }).bot),
        // The forge's clock, not ours: how long an issue has been unchanged is the forge's to say
        // (none sent: nothing is kept).
        http.forgeDateMs,
      );
      const out: ForgeIssue[] = [];
      for (const i of listed) {
        const createdAt = unixOf(i.created_at);
        if (!(createdAt > since)) continue;
        const issue: ForgeIssue = { createdAt, author: actor(i.author), reactions: [] };
        out.push(issue);
        if (issue.author.bot || issue.author.maintainer) continue;
        const state = { updatedAt: i.updated_at, comments: i.user_notes_count };
        const kept = findings.reuse(i.iid, state);
        if (kept) {
          issue.reactions = kept;
          continue;
        }
        // Comments and assignment notes, then the label, milestone and state events.
        const notes = await all<{
          body: string;
          system: boolean;
          created_at: string;
          author: User;
        }>(`/issues/${i.iid}/notes`, { sort: 'asc' });
        for (const n of notes) {
          if (n.system && !ASSIGNED_NOTE.test(n.body)) continue;
          issue.reactions.push({ at: unixOf(n.created_at), actor: actor(n.author) });
        }
        for (const [kind, counts] of RESOURCE_EVENTS) {
          for (const e of await all<ResourceEvent>(`/issues/${i.iid}/resource_${kind}_events`)) {
            if (e.user && counts(e))
              issue.reactions.push({ at: unixOf(e.created_at), actor: actor(e.user) });
          }
        }
        findings.keep(i.iid, state, issue.reactions);
      }
      return out;
    },

    async ciRuns(from: number, to: number): Promise<CiRuns> {
      // updated_after works on every GitLab version (created_after is recent); a pipeline
      // created after `from` was updated after it too.
      const pipelines = await all<{ status: string; created_at: string }>('/pipelines', {
        updated_after: isoTime(from),
      });
      const times = pipelines
        .filter((p) => p.status === 'success' || p.status === 'failed')
        .map((p) => unixOf(p.created_at))
        .filter((t) => t > from && t <= to);
      return { system: 'GitLab pipelines', times };
    },

    async releases(): Promise<ForgeRelease[]> {
      const releases = await all<{
        tag_name: string;
        released_at: string;
        upcoming_release?: boolean;
      }>('/releases');
      return releases
        .filter((r) => !r.upcoming_release)
        .map((r) => ({ tag: r.tag_name, publishedAt: unixOf(r.released_at) }));
    },

    async packages(): Promise<PackagesFound> {
      const off: RegistryOff[] = [];
      // Each entry of the package registry is one version of one package. An instance without
      // a package registry answers 404 (require_packages_enabled!, packages_helpers.rb).
      type Package = { name: string; version: string; package_type: string; created_at: string };
      let packages: Package[] | 'off' | 'absent';
      try {
        packages = await unlessOff('packages', () => all<Package>('/packages'));
      } catch (e) {
        if (!(e instanceof ApiError && e.kind === 'not-found')) throw e;
        off.push('instance packages');
        packages = [];
      }
      if (packages === 'off') off.push('package registry');
      const out: PackageVersion[] = (typeof packages === 'string' ? [] : packages).map((p) => ({
        name: `${p.package_type}:${p.name}@${p.version}`,
        publishedAt: unixOf(p.created_at),
      }));
      // Each tag of the container registry is a version of an image; only a tag's own answer
      // has its time. An instance without a container registry answers 200 and [] (nothing on
      // the route checks Gitlab.config.registry): only the Project's missing image prefix
      // tells it; a 404 is no answer about the registry, so it stands as a failure.
      type Image = { id: number; path: string; tags?: Array<{ name: string }> };
      const images = await unlessOff('containers', () =>
        all<Image>('/registry/repositories', { tags: 'true' }),
      );
      if (images === 'off') off.push('container registry');
      if (images === 'absent') off.push('instance containers');
      for (const image of typeof images === 'string' ? [] : images) {
        // `latest` moves from version to version; it is none itself.
        for (const tag of (image.tags ?? []).filter((t) => t.name !== 'latest')) {
          const { body } = await http.getJson<{ created_at?: string | null }>(
            `${project}/registry/repositories/${image.id}/tags/${encodeURIComponent(tag.name)}`,
          );
          out.push({
            name: `container:${image.path}:${tag.name}`,
            publishedAt: unixOf(body.created_at),
          });
        }
      }
      return { versions: out, off };
    },
  };
}
