// Sources within the forge's budget (issue 33): a repository a source listed this run is
// scanned without a lookup of its own (the list said whether its issues are on: GitLab's
// issues_access_level, Gitea's and GitHub's has_issues), the values unchanged; and a listing
// is asked again with the last listing's ETags. The stand-ins list and answer as each forge
// documents; expected counts are worked out by hand.
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SOURCE_DEFAULTS } from '../src/config/load.ts';
import type { SourceSetting, HostConfig } from '../src/config/types.ts';
import { forgeFor } from '../src/measure/forge/index.ts';
import { discoverSources } from '../src/measure/forge/sources.ts';
import type { ForgeResult, ScanTarget } from '../src/measure/types.ts';
import type { Catalogue } from '../scripts/lib/forge-peers/catalogue.ts';
import { startGitHub } from '../scripts/lib/forge-peers/github.ts';
import { type GlProject, startGitLab } from '../scripts/lib/forge-peers/gitlab.ts';
import { startGitea } from '../scripts/lib/forge-peers/gitea.ts';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';

const E = Date.parse('2026-11-25T00:00:00Z') / 1000;

let servers: ForgeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

const source = (url: string): SourceSetting => ({
  ...SOURCE_DEFAULTS,
  url,
  where: '--source',
  include: [],
  exclude: [],
});

interface Case {
  kind: HostConfig['kind'];
  host: string;
  /** The token, or '' for none. */
  token: string;
  start(issuesOn: boolean): Promise<ForgeServer>;
  /** The lookup's path for acme/widget, below the API's. */
  lookup: string;
}

const catalogue = (web: string): Catalogue => ({ web, repos: [{ path: 'acme/widget' }] });

/** `target` measured at E by `kind`'s adapter on `server`, with `token` ('' for none). */
function measureAtE(
  kind: HostConfig['kind'],
  host: string,
  server: ForgeServer,
  token: string,
  target: ScanTarget,
): Promise<ForgeResult> {
  const hosts = { [host]: { kind, apiUrl: server.url, tokenEnv: 'T', requestsPerSecond: 0 } };
  return forgeFor(
    { hosts },
    { T: token },
  )(target)!.measure({
    target,
    times: [E],
    asOf: E,
    git: { tagNames: new Set() },
    windowMonths: {},
    horizonMonths: 12,
  });
}

const CASES: Case[] = [
  {
    kind: 'gitlab',
    host: 'gitlab.example',
    token: 'glpat-reuse',
    start: (on) =>
      startGitLab({
        catalogue: catalogue('https://gitlab.example'),
        issuesAccess: on ? 'enabled' : 'disabled',
        members: [],
        issues: [],
        releases: [{ tag: 'v2.0.0', released: '2026-10-01T00:00:00Z' }],
      }),
    lookup: '/projects/acme%2Fwidget',
  },
  {
    kind: 'gitea',
    host: 'forge.example',
    token: 'fj-reuse',
    start: (on) =>
      startGitea({
        owner: 'acme',
        catalogue: catalogue('https://forge.example'),
        hasIssues: on,
        members: [],
        collaborators: [],
        issues: [],
        releases: [{ tag: 'v2.0.0', published: '2026-10-01T00:00:00Z' }],
      }),
    lookup: '/repos/acme/widget',
  },
  {
    // Without a token: GitHub's GraphQL answers no anonymous request, so the lookup is REST's.
    kind: 'github',
    host: 'github.com',
    token: '',
    start: (on) =>
      startGitHub({
        catalogue: catalogue('https://github.com'),
        hasIssues: on,
        issues: [],
        releases: [{ tag: 'v2.0.0', published: '2026-10-01T00:00:00Z' }],
      }),
    lookup: '/repos/acme/widget',
  },
];

describe.each(CASES)('$kind: a repository a source listed', (c) => {
  const scan = (server: ForgeServer, target: ScanTarget): Promise<ForgeResult> =>
    measureAtE(c.kind, c.host, server, c.token, target);

  it.each([true, false])(
    'is scanned without a lookup, the same values (issues on: %s)',
    async (on) => {
      const server = await c.start(on);
      servers.push(server);
      const hosts = {
        [c.host]: { kind: c.kind, apiUrl: server.url, tokenEnv: 'T', requestsPerSecond: 0 },
      };
      const found = await discoverSources(
        [source(`https://${c.host}/acme`)],
        { hosts, gitTokens: {} },
        { T: c.token },
      );
      expect(found.problems).toEqual([]);
      expect(found.targets.map((t) => [t.url, t.issuesEnabled])).toEqual([
        [`https://${c.host}/acme/widget`, on],
      ]);
      const listedAt = server.requests.length;
      const fromSource = await scan(server, found.targets[0]!);
      const lookups = () => server.requests.filter((q) => q.path.endsWith(c.lookup)).length;
      expect(lookups()).toBe(0);
      const sourceRequests = server.requests.length - listedAt;
      // The same repository as a repos file names it: the lookup is asked, one request more.
      const { issuesEnabled: _listed, registries: _registries, ...asListed } = found.targets[0]!;
      const fromFile = await scan(server, { ...asListed, source: 'repos.txt:1' });
      expect(lookups()).toBe(1);
      expect(fromFile.requests).toBe(sourceRequests + 1);
      expect(fromSource.requests).toBe(sourceRequests);
      expect(fromSource.failures).toEqual([]);
      expect(fromSource.measurements).toEqual(fromFile.measurements);
      // v2.0.0 is no git tag here: one forge release; issues off says so.
      expect(fromSource.measurements[0]!.values.RELEASES).toEqual({
        events: [Date.parse('2026-10-01T00:00:00Z') / 1000],
      });
      if (!on)
        expect(fromSource.measurements[0]!.evidence.ISSUE_REACTION_TIME).toBe(
          'Issues are disabled on this repository',
        );
      expect(server.violations).toEqual([]);
    },
  );
});

describe('GitLab: registries a group listing says are off or absent', () => {
  // A group's projects come in the full Project to anyone (present_projects in
  // lib/api/groups.rb): packages_enabled and container_registry_access_level are there even
  // without a token, and neither registry is asked. Without the listing, an anonymous lookup
  // answers the short form and the package registry's 403 is unknown (test/forge-gitlab.test.ts).
  /** The project of group acme with `registries`, listed and measured with `token`. */
  async function listedAndMeasured(registries: Partial<GlProject>, token: string) {
    const server = await startGitLab({
      catalogue: catalogue('https://gitlab.example'),
      issues: [],
      ...registries,
      packages: [
        { name: 'widget', version: '1.0.0', type: 'npm', created: '2026-10-01T00:00:00Z' },
      ],
    });
    servers.push(server);
    const hosts = {
      'gitlab.example': { kind: 'gitlab', apiUrl: server.url, tokenEnv: 'T', requestsPerSecond: 0 },
    };
    const found = await discoverSources(
      [source('https://gitlab.example/acme')],
      { hosts, gitTokens: {} },
      { T: token },
    );
    expect(found.problems).toEqual([]);
    const r = await measureAtE('gitlab', 'gitlab.example', server, token, found.targets[0]!);
    expect(r.failures).toEqual([]);
    expect(server.violations).toEqual([]);
    return { server, listed: found.targets[0]!.registries, r };
  }

  it.each(['glpat-reuse', ''])('are not asked: no version, said so (token: %j)', async (token) => {
    const { server, listed, r } = await listedAndMeasured(
      { packagesEnabled: false, registryAccess: 'disabled' },
      token,
    );
    expect(listed).toEqual({ packages: 'off', containers: 'off' });
    expect(r.measurements[0]!.values.PACKAGES).toEqual({ events: [] });
    expect(r.measurements[0]!.evidence.PACKAGES).toBe(
      '0 package versions first published in the 12 months to 2026-11-25; the package registry and the container registry are disabled on this repository',
    );
    expect(server.requests.filter((q) => /\/packages|\/registry\//.test(q.path))).toEqual([]);
  });

  // An instance without a container registry: its Project has no
  // container_registry_image_prefix (exposed only if Gitlab.config.registry.enabled), and its
  // /registry/repositories would answer 200 and [], as a registry without images.
  it.each(['glpat-reuse', ''])('no container registry: not asked (token: %j)', async (token) => {
    const { server, listed, r } = await listedAndMeasured({ instanceRegistry: false }, token);
    expect(listed).toEqual({ packages: 'on', containers: 'absent' });
    expect(r.measurements[0]!.values.PACKAGES).toEqual({
      events: [Date.parse('2026-10-01T00:00:00Z') / 1000],
    });
    expect(r.measurements[0]!.evidence.PACKAGES).toBe(
      '1 package version first published in the 12 months to 2026-11-25; this forge instance has no container registry',
    );
    expect(server.requests.filter((q) => q.path.includes('/registry/'))).toEqual([]);
  });
});

describe("a source's listing asked again with the last listing's ETags", () => {
  // 5 public repositories, 2 a page: 3 pages. Kept beside the mirrors, as a scan keeps them.
  const many = (web: string): Catalogue => ({
    web,
    repos: ['a', 'b', 'c', 'd', 'e'].map((n) => ({ path: `acme/${n}` })),
  });

  /** Lists `url` twice from fresh stand-ins, keeping the answers in `dir` as a scan does. */
  async function twice(
    kind: string,
    host: string,
    url: string,
    start: () => Promise<ForgeServer>,
    dir: string,
  ) {
    const list = async () => {
      const server = await start();
      servers.push(server);
      const hosts = { [host]: { kind, apiUrl: server.url, tokenEnv: 'T', requestsPerSecond: 0 } };
      const found = await discoverSources(
        [source(url)],
        { hosts, gitTokens: {} },
        { T: 'tok-listing-secret' },
        [],
        undefined,
        dir,
      );
      expect(found.problems).toEqual([]);
      return { found, server };
    };
    const first = await list();
    return { first, again: await list() };
  }

  it.each([
    // GitHub answers an unchanged page 304, not counted against its limit: 3 pages.
    ['github', 'github.com', (c: Catalogue) => startGitHub({ catalogue: c, pageCap: 2 }), 3],
    // GitLab sends ETags, but a 304 would save nothing; Gitea/Forgejo sends none on its API:
    // neither is asked conditionally, and nothing is kept for them.
    ['gitlab', 'gitlab.example', (c: Catalogue) => startGitLab({ catalogue: c, pageCap: 2 }), 0],
    [
      'gitea',
      'forge.example',
      (c: Catalogue) => startGitea({ owner: 'acme', catalogue: c, pageCap: 2 }),
      0,
    ],
  ] as const)(
    '%s: the same list again, its pages answered 304 where the forge honours ETags',
    async (kind, host, start, free) => {
      const dir = await mkdtemp(join(tmpdir(), 'bp-listing-'));
      try {
        const { first, again } = await twice(
          kind,
          host,
          `https://${host}/acme`,
          () => start(many(`https://${host}`)),
          dir,
        );
        expect(again.found.targets).toEqual(first.found.targets);
        expect(first.found.targets).toHaveLength(5);
        expect(first.found.requests).toBe(3);
        expect(first.found.notModified).toBe(0);
        expect(again.found.requests).toBe(3);
        expect(again.found.notModified).toBe(free);
        expect(again.server.notModified()).toBe(free);
        // Every page asked again with its ETag where the forge answers 304; elsewhere none.
        const conditional = again.server.requests.filter(
          (q) => q.headers['if-none-match'] !== undefined,
        ).length;
        expect(conditional).toBe(free);
        // The file beside the mirrors holds the answers, never the token; none for the others.
        const files = (await readdir(dir, { recursive: true })).filter((f) =>
          f.endsWith('.listing.json'),
        );
        expect(files).toHaveLength(kind === 'github' ? 1 : 0);
        for (const f of files)
          expect(await readFile(join(dir, f), 'utf8')).not.toContain('tok-listing');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('github: an organisation of 4,000 listed again unchanged, every one of its 40 pages answered 304', async () => {
    // A page keeps each repository's eight fields discovery reads (~190 bytes), not the ~11 KB
    // of the stand-in's minimal-repository (GitHub's example): 4,000 raw are 44 MB, past the
    // 32 MiB raw bodies were bounded at (its last 11 pages asked whole every time); kept so,
    // they fit the bound a hundred times over. The bench lists 10,000 (docs/performance.md).
    const dir = await mkdtemp(join(tmpdir(), 'bp-listing-'));
    try {
      const repos = Array.from({ length: 4000 }, (_, i) => ({ path: `acme/r${i}` }));
      const start = () => startGitHub({ catalogue: { web: 'https://github.com', repos } });
      const { first, again } = await twice(
        'github',
        'github.com',
        'https://github.com/acme',
        start,
        dir,
      );
      expect(first.found.targets).toHaveLength(4000);
      expect(again.found.targets).toEqual(first.found.targets);
      // 4,000 at 100 a page (per_page=100): 40 pages, each asked again and answered 304.
      expect(again.found.requests).toBe(40);
      expect(again.found.notModified).toBe(40);
      const [file] = (await readdir(dir, { recursive: true })).filter((f) =>
        f.endsWith('.listing.json'),
      );
      // 4,000 × about 190 bytes with the file's own framing: under 2 MiB (bound: 16 MiB).
      expect((await stat(join(dir, file!))).size).toBeLessThan(2 * 1024 * 1024);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
