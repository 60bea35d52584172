// The GitLab adapter against a loopback stand-in whose every answer matches GitLab's documented
// responses. Expected values are worked out by hand in the comments.
import { afterEach, describe, expect, it } from 'vitest';
import { forgeFor } from '../src/measure/forge/index.ts';
import type { ForgeResult } from '../src/measure/types.ts';
import { measureOn, resetWording } from './helpers/forge-measure.ts';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';
import { gitlabCheck, startGitLab, type GlProject } from '../scripts/lib/forge-peers/gitlab.ts';
import type { HostConfig } from '../src/config/types.ts';

const u = (iso: string) => Date.parse(iso) / 1000;
const E1 = u('2026-10-25T00:00:00Z');
const E = u('2026-11-25T00:00:00Z');

let server: ForgeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function measure(
  project: GlProject,
  host: Partial<HostConfig> = {},
  times = [E1, E],
): Promise<ForgeResult> {
  server = await startGitLab(project);
  return measureOn(server, {
    kind: 'gitlab',
    host: 'gitlab.example',
    path: 'acme/tools/widget',
    tokens: 'glpat-secret-one',
    times,
    windowMonths: { ISSUE_REACTION_TIME: 3 },
    tagNames: ['v1.0.0'],
    hostConfig: host,
  });
}

const maint = { username: 'maint' };
const rep = { username: 'rep' };
const guest = { username: 'guest' };
const tokenBot = { username: 'project_42_bot_3f2a' };

const WIDGET: GlProject = {
  pageCap: 2,
  members: [
    { username: 'maint', access: 40 },
    { username: 'rep', access: 20 },
    { username: 'guest', access: 10 },
    { username: 'project_42_bot_3f2a', access: 40 },
  ],
  issues: [
    { iid: 1, created: '2026-09-01T00:00:00Z', author: { username: 'alice' } },
    { iid: 2, created: '2026-09-10T00:00:00Z', author: rep },
    { iid: 3, created: '2026-11-15T00:00:00Z', author: { username: 'bob' } },
    { iid: 4, created: '2026-10-30T00:00:00Z', author: { username: 'carol' } },
  ],
  notes: [
    {
      issue: 1,
      created: '2026-09-01T06:00:00Z',
      author: maint,
      body: 'changed the description',
      system: true,
    },
    { issue: 1, created: '2026-09-01T12:00:00Z', author: tokenBot, body: 'Thanks for the report!' },
    { issue: 1, created: '2026-09-02T00:00:00Z', author: guest, body: 'Same here.' },
    {
      issue: 3,
      created: '2026-11-15T12:00:00Z',
      author: maint,
      body: 'assigned to @maint',
      system: true,
    },
  ],
  events: [{ issue: 1, kind: 'label', action: 'add', created: '2026-09-04T00:00:00Z', user: rep }],
  pipelines: [
    { created: '2026-11-01T00:00:00Z', status: 'success' },
    { created: '2026-11-02T00:00:00Z', status: 'failed' },
    { created: '2026-11-03T00:00:00Z', status: 'canceled' },
    { created: '2026-10-20T00:00:00Z', status: 'success' },
    { created: '2025-11-01T00:00:00Z', status: 'success' },
  ],
  releases: [
    { tag: 'v1.0.0', released: '2026-06-01T00:00:00Z' },
    { tag: 'v2.0.0', released: '2026-10-01T00:00:00Z' },
    { tag: 'v3.0.0', released: '2026-12-31T00:00:00Z', upcoming: true },
  ],
  packages: [
    { name: 'widget', version: '1.0.0', type: 'npm', created: '2026-06-01T10:00:00Z' },
    { name: 'widget', version: '1.1.0', type: 'npm', created: '2026-11-10T00:00:00Z' },
    { name: 'widget-bin', version: '1.1.0', type: 'generic', created: '2026-11-10T01:00:00Z' },
  ],
  images: [
    {
      path: 'acme/tools/widget',
      tags: [
        { name: '1.1.0', created: '2026-11-12T00:00:00Z' },
        { name: 'latest', created: '2026-11-12T00:00:00Z' },
      ],
    },
  ],
};

describe('GitLab adapter', () => {
  it('measures every forge rule for each time from one pass', async () => {
    const r = await measure(WIDGET);
    expect(r.failures).toEqual([]);
    const [at1, at2] = r.measurements;
    // At E: #1 3 days (the Reporter's label; the edit note, the token bot and the Guest do not
    // count), #3 0.5 days (assigned), #4 unanswered: 26 days; #2's author is a Reporter.
    // 29.5 / 3 = 9.8333 → 9.83. At E1: #1 only → 3.
    expect(at2!.values.ISSUE_REACTION_TIME).toBe(9.83);
    expect(at1!.values.ISSUE_REACTION_TIME).toBe(3);
    expect(at2!.values.CI_PIPELINE).toEqual({
      events: [u('2026-10-20T00:00:00Z'), u('2026-11-01T00:00:00Z'), u('2026-11-02T00:00:00Z')],
    });
    expect(at1!.values.CI_PIPELINE).toEqual({
      events: [u('2025-11-01T00:00:00Z'), u('2026-10-20T00:00:00Z')],
    });
    expect(at2!.values.RELEASES).toEqual({ events: [u('2026-10-01T00:00:00Z')] });
    // Two registry packages and one image tag (`latest` is no version).
    expect(at2!.values.PACKAGES).toEqual({
      events: [
        u('2026-06-01T10:00:00Z'),
        u('2026-11-10T00:00:00Z'),
        u('2026-11-10T01:00:00Z'),
        u('2026-11-12T00:00:00Z'),
      ],
    });
    expect(at1!.values.PACKAGES).toEqual({ events: [u('2026-06-01T10:00:00Z')] });
    expect(r.requests).toBe(server!.requests.length);
    // The project by its URL-encoded path, the token in PRIVATE-TOKEN.
    expect(server!.requests[0]!.path).toBe('/api/v4/projects/acme%2Ftools%2Fwidget');
    expect(server!.requests.every((q) => q.headers['private-token'] === 'glpat-secret-one')).toBe(
      true,
    );
  });

  it('counts the label, milestone and state events GitLab records instead of notes', async () => {
    const dave = { username: 'dave' };
    const carol = { username: 'carol' };
    const r = await measure(
      {
        members: [{ username: 'maint', access: 40 }],
        issues: [
          { iid: 1, created: '2026-10-01T00:00:00Z', author: { username: 'alice' } },
          { iid: 2, created: '2026-10-05T00:00:00Z', author: { username: 'bob' } },
          { iid: 3, created: '2026-10-10T00:00:00Z', author: carol },
          { iid: 4, created: '2026-10-20T00:00:00Z', author: dave },
        ],
        notes: [
          { issue: 1, created: '2026-10-10T00:00:00Z', author: maint, body: 'Looking into it.' },
          {
            issue: 4,
            created: '2026-10-24T00:00:00Z',
            author: maint,
            body: 'assigned to @maint',
            system: true,
          },
        ],
        events: [
          { issue: 1, kind: 'label', action: 'add', created: '2026-10-03T00:00:00Z', user: maint },
          {
            issue: 2,
            kind: 'label',
            action: 'remove',
            created: '2026-10-06T00:00:00Z',
            user: maint,
          },
          {
            issue: 2,
            kind: 'milestone',
            action: 'add',
            created: '2026-10-08T00:00:00Z',
            user: maint,
          },
          {
            issue: 3,
            kind: 'state',
            state: 'closed',
            created: '2026-10-10T03:00:00Z',
            user: carol,
          },
          {
            issue: 3,
            kind: 'state',
            state: 'reopened',
            created: '2026-10-10T04:00:00Z',
            user: maint,
          },
          {
            issue: 3,
            kind: 'state',
            state: 'closed',
            created: '2026-10-11T06:00:00Z',
            user: maint,
          },
          {
            issue: 4,
            kind: 'milestone',
            action: 'remove',
            created: '2026-10-21T00:00:00Z',
            user: maint,
          },
        ],
      },
      {},
      [E],
    );
    expect(r.failures).toEqual([]);
    // #1 labelled after 2 days (the comment is later); #2 milestoned after 3 (a label removed is
    // no triage); #3 closed by a maintainer after 1.25 (the author's close and a reopening do
    // not count); #4 assigned after 4 (a milestone removed does not count). 10.25 / 4 = 2.5625.
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBe(2.56);
    const paths = server!.requests.map((q) => q.path).filter((x) => x.includes('/issues/3/'));
    expect(paths.map((x) => x.slice(x.lastIndexOf('/') + 1))).toEqual([
      'notes',
      'resource_label_events',
      'resource_milestone_events',
      'resource_state_events',
    ]);
  });

  it('follows X-Next-Page: four members two a page take two requests', async () => {
    await measure(WIDGET, {}, [E]);
    const pages = server!.requests
      .filter((q) => q.path.endsWith('/members/all'))
      .map((q) => q.query.get('page') ?? '1');
    expect(pages).toEqual(['1', '2']);
  });

  it('leaves ISSUE_REACTION_TIME null when issues are disabled', async () => {
    const r = await measure({ ...WIDGET, issuesAccess: 'disabled' }, {}, [E]);
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBeNull();
    expect(r.measurements[0]!.evidence.ISSUE_REACTION_TIME).toBe(
      'Issues are disabled on this repository',
    );
    expect(r.failures).toEqual([]);
  });

  it('members-only issues hidden from the token are unknown, not disabled nor none', async () => {
    // issues_access_level private, issues_enabled false (feature_available? for a non-member),
    // and the issues list [] to it: GitLab says neither "off" nor "none".
    const r = await measure({ ...WIDGET, issuesAccess: 'private', nonMemberToken: true }, {}, [E]);
    const cause =
      "GitLab API: this project's issues are visible to its members only, and the token's user is not one: set a member's token in $FORGE_TEST_TOKEN";
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBeNull();
    expect(r.measurements[0]!.evidence.ISSUE_REACTION_TIME).toBe(cause);
    expect(r.failures).toEqual([cause]);
    // The other rules as for WIDGET at E.
    expect(r.measurements[0]!.values.RELEASES).toEqual({ events: [u('2026-10-01T00:00:00Z')] });
    // A member's token reads them (as in the first test).
    await server!.close();
    const member = await measure({ ...WIDGET, issuesAccess: 'private' }, {}, [E]);
    expect(member.measurements[0]!.values.ISSUE_REACTION_TIME).toBe(9.83);
  });

  describe('a registry turned off', () => {
    // WIDGET at E: packages 2026-11-10 (two) and the image tag 2026-11-12 in the 12 months;
    // 2026-06-01 too. So the package registry alone gives three, the container registry one.
    const asked = (what: string) => server!.requests.filter((q) => q.path.includes(what)).length;

    it('with a token, a registry GitLab says is off is not asked and holds no version', async () => {
      const r = await measure(
        { ...WIDGET, packagesEnabled: false, registryAccess: 'disabled' },
        {},
        [E],
      );
      expect(r.failures).toEqual([]);
      expect(r.measurements[0]!.values.PACKAGES).toEqual({ events: [] });
      expect(r.measurements[0]!.evidence.PACKAGES).toBe(
        '0 package versions first published in the 12 months to 2026-11-25; the package registry and the container registry are disabled on this repository',
      );
      expect(asked('/packages') + asked('/registry/')).toBe(0);
    });

    it('with a token, the other registry is still counted', async () => {
      const r = await measure({ ...WIDGET, packagesEnabled: false }, {}, [E]);
      expect(r.failures).toEqual([]);
      expect(r.measurements[0]!.values.PACKAGES).toEqual({ events: [u('2026-11-12T00:00:00Z')] });
      expect(r.measurements[0]!.evidence.PACKAGES).toBe(
        '1 package version first published in the 12 months to 2026-11-25; the package registry is disabled on this repository',
      );
      expect(asked('/packages')).toBe(0);
      await server!.close();
      const images = await measure({ ...WIDGET, registryAccess: 'disabled' }, {}, [E]);
      expect(images.failures).toEqual([]);
      expect(images.measurements[0]!.values.PACKAGES).toEqual({
        events: [u('2026-06-01T10:00:00Z'), u('2026-11-10T00:00:00Z'), u('2026-11-10T01:00:00Z')],
      });
      expect(asked('/registry/')).toBe(0);
    });

    it('an instance without a package registry (404) holds none of it', async () => {
      const r = await measure({ ...WIDGET, instancePackages: false }, {}, [E]);
      expect(r.failures).toEqual([]);
      expect(r.measurements[0]!.values.PACKAGES).toEqual({ events: [u('2026-11-12T00:00:00Z')] });
      expect(r.measurements[0]!.evidence.PACKAGES).toBe(
        '1 package version first published in the 12 months to 2026-11-25; this forge instance has no package registry',
      );
    });

    it('a container registry for members only, hidden from the token, is unknown', async () => {
      const r = await measure({ ...WIDGET, registryAccess: 'private', nonMemberToken: true }, {}, [
        E,
      ]);
      const cause =
        "GitLab API: this project's container registry is visible to its members only, and the token's user is not one: set a member's token in $FORGE_TEST_TOKEN";
      expect(r.measurements[0]!.values.PACKAGES).toBeNull();
      expect(r.measurements[0]!.evidence.PACKAGES).toBe(cause);
      expect(r.failures).toEqual([cause]);
      expect(asked('/registry/')).toBe(0);
    });

    it('without a token, a 403 is unknown, naming the token, never 0', async () => {
      server = await startGitLab({ ...WIDGET, packagesEnabled: false });
      const anonymous = {
        kind: 'gitlab',
        host: 'gitlab.example',
        path: 'acme/tools/widget',
        tokens: '',
      } as const;
      const r = await measureOn(server, { ...anonymous, times: [E], tagNames: ['v1.0.0'] });
      const cause =
        "GitLab API: without a token GitLab does not say whether this project's package registry is on, and answers it 403: set a token in $FORGE_TEST_TOKEN";
      expect(r.measurements[0]!.values.PACKAGES).toBeNull();
      expect(r.measurements[0]!.evidence.PACKAGES).toBe(cause);
      expect(r.failures).toContain(cause);
      // Registries on: measured without a token, as with one.
      await server.close();
      server = await startGitLab(WIDGET);
      const on = await measureOn(server, { ...anonymous, times: [E], tagNames: ['v1.0.0'] });
      expect(on.measurements[0]!.values.PACKAGES).toEqual({
        events: [
          u('2026-06-01T10:00:00Z'),
          u('2026-11-10T00:00:00Z'),
          u('2026-11-10T01:00:00Z'),
          u('2026-11-12T00:00:00Z'),
        ],
      });
      expect(on.failures.filter((f) => f.includes('regist'))).toEqual([]);
    });

    // All four versions of WIDGET at E: 2026-06-01, 2026-11-10 (two) packages, 2026-11-12 image.
    const ALL = [
      u('2026-06-01T10:00:00Z'),
      u('2026-11-10T00:00:00Z'),
      u('2026-11-10T01:00:00Z'),
      u('2026-11-12T00:00:00Z'),
    ];

    it('a package registry for members only, refused to the token, is unknown', async () => {
      // package_registry_access_level `private`: packages_enabled is still true. On a private
      // project only a Reporter member reads it (on a public one, whoever sees the project).
      const hidden = { ...WIDGET, visibility: 'private', packageAccess: 'private' } as const;
      const r = await measure({ ...hidden, nonMemberToken: true }, {}, [E]);
      const cause =
        "GitLab API: this project's package registry is visible to its members only, and the token's user is not one: set a member's token in $FORGE_TEST_TOKEN";
      expect(r.measurements[0]!.values.PACKAGES).toBeNull();
      expect(r.measurements[0]!.evidence.PACKAGES).toBe(cause);
      expect(r.failures).toEqual([cause]);
      // A member's token reads it whole, as does anyone when it is `public`.
      await server!.close();
      const member = await measure(hidden, {}, [E]);
      expect(member.failures).toEqual([]);
      expect(member.measurements[0]!.values.PACKAGES).toEqual({ events: ALL });
      await server!.close();
      const open = await measure({ ...hidden, packageAccess: 'public', nonMemberToken: true }, {}, [
        E,
      ]);
      expect(open.measurements[0]!.values.PACKAGES).toEqual({ events: ALL });
    });

    it('reads package_registry_access_level, else packages_enabled of an older GitLab', async () => {
      const r = await measure({ ...WIDGET, packageAccess: 'disabled' }, {}, [E]);
      expect(r.measurements[0]!.evidence.PACKAGES).toBe(
        '1 package version first published in the 12 months to 2026-11-25; the package registry is disabled on this repository',
      );
      expect(asked('/packages')).toBe(0);
      await server!.close();
      const older = await measure(
        { ...WIDGET, packagesEnabled: false, noPackageLevelField: true },
        {},
        [E],
      );
      expect(older.measurements[0]!.evidence.PACKAGES).toBe(
        '1 package version first published in the 12 months to 2026-11-25; the package registry is disabled on this repository',
      );
      expect(asked('/packages')).toBe(0);
    });

    it('an instance without a container registry holds none of it, not asked', async () => {
      // Its /registry/repositories answers 200 and []; Project has no image prefix.
      const r = await measure({ ...WIDGET, instanceRegistry: false }, {}, [E]);
      expect(r.failures).toEqual([]);
      expect(r.measurements[0]!.values.PACKAGES).toEqual({ events: ALL.slice(0, 3) });
      expect(r.measurements[0]!.evidence.PACKAGES).toBe(
        '3 package versions first published in the 12 months to 2026-11-25; this forge instance has no container registry',
      );
      expect(asked('/registry/')).toBe(0);
      await server!.close();
      const neither = await measure(
        { ...WIDGET, instanceRegistry: false, instancePackages: false },
        {},
        [E],
      );
      expect(neither.measurements[0]!.evidence.PACKAGES).toBe(
        '0 package versions first published in the 12 months to 2026-11-25; this forge instance has no package registry and no container registry',
      );
    });

    it('a 404 from the container registry is no answer about it: named, never none', async () => {
      const r = await measure(
        {
          ...WIDGET,
          override: (t) =>
            t === '/projects/{id}/registry/repositories'
              ? { status: 404, body: { message: '404 Not Found' } }
              : undefined,
        },
        {},
        [E],
      );
      expect(r.measurements[0]!.values.PACKAGES).toBeNull();
      expect(r.failures).toHaveLength(1);
      expect(r.failures[0]).toMatch(/^GitLab API: 404/);
    });
  });

  it('names 401 and 404 for every rule', async () => {
    let r = await measure(
      {
        override: (t) =>
          t === '/projects/{id}'
            ? { status: 401, body: { message: '401 Unauthorized' } }
            : undefined,
      },
      {},
      [E],
    );
    expect(r.failures).toEqual([
      'GitLab API: 401 bad or missing credentials (check the token in $FORGE_TEST_TOKEN)',
    ]);
    expect(Object.values(r.measurements[0]!.values)).toEqual([null, null, null, null]);
    await server!.close();
    r = await measure(
      {
        override: (t) =>
          t === '/projects/{id}'
            ? { status: 404, body: { message: '404 Project Not Found' } }
            : undefined,
      },
      {},
      [E],
    );
    expect(r.failures).toEqual(['GitLab API: 404 not found or not visible to the token']);
  });

  it('waits out a 429 with a short Retry-After; a long one holds the token till its reset', async () => {
    let r = await measure(
      {
        ...WIDGET,
        override: (t, _q, n) =>
          t.endsWith('/pipelines') && n === 1
            ? { status: 429, headers: { 'retry-after': '0' }, body: { message: 'Retry later' } }
            : undefined,
      },
      {},
      [E],
    );
    expect(r.failures).toEqual([]);
    expect(r.measurements[0]!.values.CI_PIPELINE).toEqual({
      events: [u('2026-10-20T00:00:00Z'), u('2026-11-01T00:00:00Z'), u('2026-11-02T00:00:00Z')],
    });
    await server!.close();
    const reset = Math.floor(Date.now() / 1000) + 7200;
    r = await measure(
      {
        ...WIDGET,
        override: (t) =>
          t.endsWith('/pipelines')
            ? {
                status: 429,
                headers: { 'ratelimit-remaining': '0', 'ratelimit-reset': String(reset) },
                body: { message: 'Retry later' },
              }
            : undefined,
      },
      {},
      [E],
    );
    expect(r.failures).toEqual([`GitLab API: 429 rate limit, resets ${resetWording(reset)}`]);
    // Issues came before the limit; the later calls of the same (only) token are not sent.
    expect(r.measurements[0]!.values).toEqual({
      ISSUE_REACTION_TIME: 9.83,
      CI_PIPELINE: null,
      RELEASES: null,
      PACKAGES: null,
    });
    expect(server!.requests.some((q) => q.path.endsWith('/releases'))).toBe(false);
  });

  it('a server that does not answer in time fails with a timeout', async () => {
    const r = await measure(
      {
        ...WIDGET,
        override: (t) =>
          t.endsWith('/packages') ? { status: 200, body: [], delayMs: 1000 } : undefined,
      },
      { timeoutSeconds: 0.2 },
      [E],
    );
    expect(r.failures).toEqual(['GitLab API: no answer within 0.2 s']);
    expect(r.measurements[0]!.values.PACKAGES).toBeNull();
    expect(r.measurements[0]!.values.RELEASES).not.toBeNull();
  });

  it("the stand-in's check rejects an answer off GitLab's documented responses", () => {
    expect(
      gitlabCheck('GET', '/projects/{id}/pipelines', 200, [{ id: 1, status: 'succeeded' }]),
    ).not.toEqual([]);
    expect(
      gitlabCheck('GET', '/projects/{id}/members/all', 200, [
        { id: 1, username: 'x', name: 'x', state: 'active', web_url: 'u', access_level: 25 },
      ]),
    ).not.toEqual([]);
    // A field the adapter reads, missing: the description marks it required, as GitLab's docs list it on every answer.
    expect(
      gitlabCheck('GET', '/projects/{id}/releases', 200, [
        { tag_name: 'v1', name: 'v1', created_at: '2026-10-01T00:00:00Z', upcoming_release: false },
      ]),
    ).toEqual(["GET /projects/{id}/releases 200: /0 must have required property 'released_at'"]);
  });

  it('takes the token of scan.tokens for the host when hosts: names none, and a pool in turn', async () => {
    server = await startGitLab(WIDGET);
    const target = {
      url: 'https://gitlab.example/acme/tools/widget',
      host: 'gitlab.example',
      path: 'acme/tools/widget',
      source: 'repos.txt:1',
    };
    const forge = forgeFor(
      {
        hosts: {
          'gitlab.example': { kind: 'gitlab', apiUrl: server.url, requestsPerSecond: 1000 },
        },
        gitTokens: { 'gitlab.example': 'GIT_SIDE_TOKEN' },
      },
      { GIT_SIDE_TOKEN: 'glpat-a, glpat-b' },
    );
    const r = await forge(target)!.measure({
      target,
      times: [E],
      asOf: E,
      git: { tagNames: new Set() },
      windowMonths: {},
      horizonMonths: 12,
    });
    expect(r.failures).toEqual([]);
    const used = server.requests.map((q) => q.headers['private-token']);
    expect(used.slice(0, 4)).toEqual(['glpat-a', 'glpat-b', 'glpat-a', 'glpat-b']);
  });
});
