// The GitHub adapter against a loopback stand-in whose every answer matches GitHub's OpenAPI
// description. Expected values are worked out by hand in the comments.
import { afterEach, describe, expect, it } from 'vitest';
import type { ForgeResult } from '../src/measure/types.ts';
import { measureOn, resetWording } from './helpers/forge-measure.ts';
import {
  loadJson,
  startForgeServer,
  type ForgeServer,
  type Reply,
} from '../scripts/lib/forge-peers/server.ts';
import { rateLimitFailure } from '../src/measure/http/errors.ts';
import { ApiClient, QueueRegistry } from '../src/measure/http/client.ts';
import {
  GH_ERROR,
  githubCheck,
  startGitHub,
  type GhRepository,
  type GhRun,
} from '../scripts/lib/forge-peers/github.ts';
import type { HostConfig } from '../src/config/types.ts';

const u = (iso: string) => Date.parse(iso) / 1000;
const E1 = u('2026-10-25T00:00:00Z');
const E = u('2026-11-25T00:00:00Z');
const TOKENS = 'tok-secret-one,tok-secret-two';

let server: ForgeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function measure(
  repo: GhRepository,
  host: Partial<HostConfig> = {},
  times = [E1, E],
): Promise<ForgeResult> {
  server = await startGitHub(repo);
  return measureOn(server, {
    kind: 'github',
    host: 'github.com',
    path: 'acme/widget',
    tokens: TOKENS,
    times,
    tagNames: ['v1.0.0'],
    hostConfig: host,
  });
}

const alice = { login: 'alice' };
const bob = { login: 'bob' };
const carol = { login: 'carol' };
const dave = { login: 'dave' };
const erin = { login: 'erin' };
const maint = { login: 'maint' };
const depbot = { login: 'dependabot[bot]', bot: true };

const WIDGET: GhRepository = {
  pageCap: 3,
  issues: [
    {
      number: 1,
      created: '2026-09-01T00:00:00Z',
      updated: '2026-09-03T12:00:00Z',
      author: alice,
      association: 'NONE',
    },
    {
      number: 2,
      created: '2026-10-01T00:00:00Z',
      updated: '2026-10-04T00:00:00Z',
      author: bob,
      association: 'CONTRIBUTOR',
    },
    { number: 3, created: '2026-10-10T00:00:00Z', author: carol, association: 'COLLABORATOR' },
    {
      number: 4,
      created: '2026-10-11T00:00:00Z',
      author: { login: 'renovate[bot]', bot: true },
      association: 'NONE',
    },
    { number: 5, created: '2026-10-15T00:00:00Z', author: dave, association: 'NONE', pull: true },
    { number: 6, created: '2026-11-20T00:00:00Z', author: dave, association: 'NONE' },
    {
      number: 7,
      created: '2026-10-20T00:00:00Z',
      updated: '2026-11-01T00:00:00Z',
      author: erin,
      association: 'FIRST_TIMER',
    },
    // Opened before either window, updated inside: listed by `since`, left out by its opening.
    {
      number: 8,
      created: '2026-07-01T00:00:00Z',
      updated: '2026-09-01T00:00:00Z',
      author: bob,
      association: 'NONE',
    },
  ],
  comments: [
    { issue: 1, created: '2026-09-01T01:00:00Z', author: alice, association: 'NONE' },
    { issue: 1, created: '2026-09-01T02:00:00Z', author: depbot, association: 'COLLABORATOR' },
    { issue: 1, created: '2026-09-03T12:00:00Z', author: maint, association: 'OWNER' },
    { issue: 2, created: '2026-10-04T00:00:00Z', author: carol, association: 'COLLABORATOR' },
    { issue: 5, created: '2026-10-15T01:00:00Z', author: maint, association: 'OWNER' },
    { issue: 7, created: '2026-11-01T00:00:00Z', author: maint, association: 'MEMBER' },
  ],
  events: [
    { issue: 2, event: 'labeled', created: '2026-10-02T00:00:00Z', actor: maint },
    { issue: 7, event: 'closed', created: '2026-10-21T00:00:00Z', actor: erin },
    { issue: 7, event: 'renamed', created: '2026-10-20T06:00:00Z', actor: maint },
  ],
  releases: [
    { tag: 'v1.0.0', published: '2026-05-01T00:00:00Z', assets: ['2026-05-01T00:30:00Z'] },
    {
      tag: 'v1.1.0',
      published: '2026-09-15T00:00:00Z',
      assets: ['2026-09-15T02:00:00Z', '2026-09-15T01:00:00Z'],
    },
    { tag: 'v1.2.0-rc', published: null, draft: true, assets: ['2026-11-02T00:00:00Z'] },
    // Its only asset is still uploading: no published package yet.
    {
      tag: 'v1.2.0',
      published: '2026-11-01T00:00:00Z',
      assets: [{ created: '2026-11-01T00:10:00Z', state: 'open' }],
    },
  ],
  runs: [
    { created: '2026-10-24T00:00:00Z', event: 'push', conclusion: 'success' },
    { created: '2026-10-26T00:00:00Z', event: 'pull_request', conclusion: 'failure' },
    { created: '2026-10-27T00:00:00Z', event: 'dynamic', conclusion: 'success' },
    { created: '2026-10-28T00:00:00Z', event: 'push', conclusion: 'cancelled' },
    { created: '2026-10-29T00:00:00Z', event: 'push', conclusion: null },
    { created: '2025-11-20T00:00:00Z', event: 'push', conclusion: 'success' },
  ],
};

describe('GitHub adapter', () => {
  it('measures every forge rule for each time from one pass', async () => {
    const r = await measure(WIDGET);
    expect(r.failures).toEqual([]);
    const [at1, at2] = r.measurements;
    // At E (window 2026-08-25..11-25): #1 2.5 days (the owner's comment; alice's own and the
    // bot's do not count), #2 1 day (labelled), #6 5 days (no reaction: its age), #7 12 days
    // (the member's comment; closing it herself does not count): 20.5 / 4 = 5.125 → 5.13.
    expect(at2!.values.ISSUE_REACTION_TIME).toBe(5.13);
    expect(at2!.evidence.ISSUE_REACTION_TIME).toContain('4 issues');
    expect(at2!.evidence.ISSUE_REACTION_TIME).toContain('1 without');
    // At E1 (window 2026-07-25..10-25): #1 2.5, #2 1, #7 unanswered by then: 5 days → 8.5 / 3.
    expect(at1!.values.ISSUE_REACTION_TIME).toBe(2.83);
    // Runs: success or failure only, `dynamic` left out; the one of 2025-11-20 is outside E's
    // 12 months (from 2025-11-25) but inside E1's (from 2025-10-25).
    expect(at2!.values.CI_PIPELINE).toEqual({
      events: [u('2026-10-24T00:00:00Z'), u('2026-10-26T00:00:00Z')],
    });
    expect(at1!.values.CI_PIPELINE).toEqual({
      events: [u('2025-11-20T00:00:00Z'), u('2026-10-24T00:00:00Z')],
    });
    // v1.0.0 is a git tag already; the draft has no publish time.
    expect(at2!.values.RELEASES).toEqual({
      events: [u('2026-09-15T00:00:00Z'), u('2026-11-01T00:00:00Z')],
    });
    expect(at1!.values.RELEASES).toEqual({ events: [u('2026-09-15T00:00:00Z')] });
    // Releases with uploaded assets, at the later of publishing and the first upload; v1.2.0's
    // asset is `open` (still uploading), so v1.2.0 is no package.
    expect(at2!.values.PACKAGES).toEqual({
      events: [u('2026-05-01T00:30:00Z'), u('2026-09-15T01:00:00Z')],
    });
    expect(r.rules).toEqual(['ISSUE_REACTION_TIME', 'CI_PIPELINE', 'RELEASES', 'PACKAGES']);
    expect(r.requests).toBe(server!.requests.length);
    // One pass for both times and all four rules: each list read once (4 releases, 3 a page).
    // No REST lookup of the repository: the GraphQL query said whether issues are on.
    const count = (suffix: string) =>
      server!.requests.filter((q) => q.path === `/repos/acme/widget${suffix}`).length;
    expect([count(''), count('/releases'), count('/actions/runs')]).toEqual([0, 2, 2]);
    expect(server!.requests).toHaveLength(5);
    // The issues with their comments and triage actions: one GraphQL query (7 issues, a page
    // of 100), where REST took 3 pages of issues, 2 of comments and one list of events per issue.
    expect(server!.requests.filter((q) => q.path === '/graphql')).toHaveLength(1);
    expect(server!.requests.filter((q) => q.path.includes('/issues'))).toEqual([]);
    // Tokens of the pool in turn, as a bearer header, never in a URL.
    const auth = server!.requests.map((q) => q.headers.authorization);
    expect(new Set(auth)).toEqual(new Set(['Bearer tok-secret-one', 'Bearer tok-secret-two']));
    expect(
      server!.requests.every(
        (q) =>
          !q.path.includes('tok-secret') &&
          ![...q.query.values()].some((v) => v.includes('tok-secret')),
      ),
    ).toBe(true);
  });

  it('pages issues through GraphQL: 150 issues take two queries of 1 point each, same values', async () => {
    // 150 issues by outsiders, one a day from 2026-08-27; the maintainer labels each 1 day
    // after it opened, a bot comments after 1 hour. At E (window from 2026-08-25) every issue
    // counts with 1 day: the mean is 1.00.
    const day = (n: number) =>
      new Date(Date.UTC(2026, 7, 27) + n * 86_400_000).toISOString().replace('.000Z', 'Z');
    const issues = Array.from({ length: 150 }, (_, n) => ({
      number: n + 1,
      created: day(n / 2),
      author: { login: `user${n}` },
      association: 'NONE',
    }));
    const events = issues.map((i) => ({
      issue: i.number,
      event: 'labeled',
      created: new Date(Date.parse(i.created) + 86_400_000).toISOString(),
      actor: maint,
    }));
    const comments = issues.map((i) => ({
      issue: i.number,
      created: new Date(Date.parse(i.created) + 3_600_000).toISOString(),
      author: depbot,
      association: 'NONE',
    }));
    const r = await measure({ issues, events, comments }, {}, [E]);
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBe(1);
    expect(r.measurements[0]!.evidence.ISSUE_REACTION_TIME).toContain('150 issues');
    const queries = server!.requests
      .filter((q) => q.path === '/graphql')
      .map((q) => JSON.parse(q.body!) as { variables: { after: string | null } });
    expect(queries).toHaveLength(2);
    expect(queries[0]!.variables.after).toBeNull();
    expect(typeof queries[1]!.variables.after).toBe('string');
  });

  it("reads an issue's timeline past its first 100 items with a query of its own", async () => {
    // One outsider's issue of 2026-11-01 with 120 comments by the outsider herself, then the
    // owner's comment on 2026-11-04: 3 days, found on the timeline's second page.
    const at = (h: number) =>
      new Date(Date.UTC(2026, 10, 1) + h * 3_600_000).toISOString().replace('.000Z', 'Z');
    const comments = [
      ...Array.from({ length: 120 }, (_, h) => ({
        issue: 1,
        created: at(h / 2 + 1),
        author: alice,
        association: 'NONE',
      })),
      { issue: 1, created: at(72), author: maint, association: 'OWNER' },
    ];
    const r = await measure(
      { issues: [{ number: 1, created: at(0), author: alice, association: 'NONE' }], comments },
      {},
      [E],
    );
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBe(3);
    expect(server!.requests.filter((q) => q.path === '/graphql')).toHaveLength(2);
  });

  it('passes the 1,000-result cap of the run list by splitting the range', async () => {
    // 1,100 runs six hours apart from 2026-01-01: every tenth is `dynamic`, every tenth+5
    // cancelled, so 1,100 − 110 − 110 = 880 count. One query would reach only 1,000.
    const runs: GhRun[] = [];
    for (let i = 0; i < 1100; i++) {
      const created = new Date(Date.UTC(2026, 0, 1) + i * 6 * 3600_000)
        .toISOString()
        .replace('.000Z', 'Z');
      runs.push({
        created,
        event: i % 10 === 0 ? 'dynamic' : 'push',
        conclusion: i % 10 === 5 ? 'cancelled' : i % 2 ? 'success' : 'failure',
      });
    }
    const r = await measure({ runs, issues: [] }, {}, [E]);
    expect((r.measurements[0]!.values.CI_PIPELINE as { events: number[] }).events).toHaveLength(
      880,
    );
    const queries = server!.requests.filter(
      (q) => q.path.endsWith('/actions/runs') && (q.query.get('page') ?? '1') === '1',
    );
    expect(queries.length).toBeGreaterThan(1);
  });

  it('splits a range whose total_count is capped at 1,000 too (GitHub does not say it is not)', async () => {
    // 1,100 runs six hours apart from 2026-01-01, all pushes that succeeded: a range's
    // total_count says 1,000 whenever it holds more. All 1,100 count.
    const runs: GhRun[] = Array.from({ length: 1100 }, (_, i) => ({
      created: new Date(Date.UTC(2026, 0, 1) + i * 6 * 3600_000)
        .toISOString()
        .replace('.000Z', 'Z'),
      event: 'push',
      conclusion: 'success',
    }));
    const r = await measure({ runs, issues: [], runTotal: 'capped' }, {}, [E]);
    expect((r.measurements[0]!.values.CI_PIPELINE as { events: number[] }).events).toHaveLength(
      1100,
    );
  });

  it('leaves ISSUE_REACTION_TIME null when issues are disabled, the rest measured', async () => {
    const r = await measure({ ...WIDGET, hasIssues: false }, {}, [E]);
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBeNull();
    expect(r.measurements[0]!.evidence.ISSUE_REACTION_TIME).toBe(
      'Issues are disabled on this repository',
    );
    expect(r.measurements[0]!.values.RELEASES).toEqual({
      events: [u('2026-09-15T00:00:00Z'), u('2026-11-01T00:00:00Z')],
    });
    expect(r.failures).toEqual([]);
    expect(server!.requests.some((q) => q.path.endsWith('/issues'))).toBe(false);
  });

  it('names 401 with the variable to check, for every rule, without the token', async () => {
    // A bad token: GitHub answers 401 on REST and GraphQL alike.
    const r = await measure(
      {
        override: (t) =>
          t === '/repos/{owner}/{repo}' || t === '/graphql'
            ? { status: 401, body: GH_ERROR('Bad credentials') }
            : undefined,
      },
      {},
      [E],
    );
    const cause =
      'GitHub API: 401 bad or missing credentials (check the token in $FORGE_TEST_TOKEN)';
    expect(r.failures).toEqual([cause]);
    expect(r.measurements[0]!.values).toEqual({
      ISSUE_REACTION_TIME: null,
      CI_PIPELINE: null,
      RELEASES: null,
      PACKAGES: null,
    });
    expect(r.measurements[0]!.evidence.CI_PIPELINE).toBe(cause);
  });

  it('names a missing repository', async () => {
    // A catalogue without acme/widget: REST answers 404, GraphQL null with an error NOT_FOUND.
    const r = await measure({ catalogue: { web: 'https://github.com', repos: [] } }, {}, [E]);
    expect(r.failures).toEqual(['GitHub API: 404 not found or not visible to the token']);
    expect(r.measurements[0]!.values).toEqual({
      ISSUE_REACTION_TIME: null,
      CI_PIPELINE: null,
      RELEASES: null,
      PACKAGES: null,
    });
    // The query was the lookup: nothing else asked.
    expect(server!.requests.map((q) => q.path)).toEqual(['/graphql']);
  });

  it('asks no REST release list of a repository the query says has no release', async () => {
    // WIDGET without releases: RELEASES and PACKAGES have no event; the runs as in the first test.
    const r = await measure({ ...WIDGET, releases: [] }, {}, [E]);
    expect(r.failures).toEqual([]);
    expect(r.measurements[0]!.values.RELEASES).toEqual({ events: [] });
    expect(r.measurements[0]!.values.PACKAGES).toEqual({ events: [] });
    expect(r.measurements[0]!.values.CI_PIPELINE).toEqual({
      events: [u('2026-10-24T00:00:00Z'), u('2026-10-26T00:00:00Z')],
    });
    // The GraphQL query (lookup, issues, the count of releases) and the runs in 2 pages.
    expect(server!.requests.map((q) => q.path)).toEqual([
      '/graphql',
      '/repos/acme/widget/actions/runs',
      '/repos/acme/widget/actions/runs',
    ]);
  });

  it('measures a renamed repository under its old path: GraphQL follows the rename as REST redirects', async () => {
    const r = await measure(
      {
        ...WIDGET,
        catalogue: {
          web: 'https://github.com',
          repos: [{ path: 'acme/gadget' }],
          renamed: { 'acme/widget': 'acme/gadget' },
        },
      },
      {},
      [E],
    );
    expect(r.failures).toEqual([]);
    // The values worked out for the first test, at E.
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBe(5.13);
  });

  it('a rate limit far off fails only the rule that needed the call, with its reset time', async () => {
    const reset = Math.floor(Date.now() / 1000) + 3600;
    const r = await measure(
      {
        ...WIDGET,
        override: (t) =>
          t.endsWith('/actions/runs')
            ? {
                status: 403,
                headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
                body: GH_ERROR('API rate limit exceeded for user ID 1.'),
              }
            : undefined,
      },
      {},
      [E],
    );
    const cause = `GitHub API: 403 rate limit, resets ${resetWording(reset)}`;
    expect(r.failures).toEqual([cause]);
    expect(r.measurements[0]!.values.CI_PIPELINE).toBeNull();
    expect(r.measurements[0]!.evidence.CI_PIPELINE).toBe(cause);
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBe(5.13);
  });

  it('without a token reads the issues through REST (GraphQL answers no anonymous request), same values', async () => {
    server = await startGitHub(WIDGET);
    const r = await measureOn(server, {
      kind: 'github',
      host: 'github.com',
      path: 'acme/widget',
      tokens: '',
      times: [E1, E],
      tagNames: ['v1.0.0'],
    });
    expect(r.failures).toEqual([]);
    // The values worked out for the first test: 2.83 at E1, 5.13 at E.
    expect(r.measurements.map((m) => m.values.ISSUE_REACTION_TIME)).toEqual([2.83, 5.13]);
    expect(server.requests.some((q) => q.path === '/graphql')).toBe(false);
    // 8 issues three a page, the comments, and the events of the 4 counted issues (#1, #2, #6, #7; #8 opened before the window).
    expect(server.requests.filter((q) => q.path === '/repos/acme/widget/issues').length).toBe(3);
    expect(server.requests.filter((q) => /\/issues\/\d+\/events$/.test(q.path)).length).toBe(4);
  });

  it("GraphQL's point budget used up fails ISSUE_REACTION_TIME alone, with the reset time", async () => {
    // The stand-in has 0 points left: GitHub answers 200 with an error of type RATE_LIMITED
    // and x-ratelimit-remaining 0 for the graphql resource. One token: its REST requests (the
    // core resource, limited apart) go on.
    server = await startGitHub({ ...WIDGET, graphqlPoints: 0 });
    const r = await measureOn(server, {
      kind: 'github',
      host: 'github.com',
      path: 'acme/widget',
      tokens: 'tok-secret-one',
      times: [E],
      tagNames: ['v1.0.0'],
    });
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]).toMatch(/^GitHub API: 403 rate limit, resets /);
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBeNull();
    expect(r.measurements[0]!.evidence.ISSUE_REACTION_TIME).toBe(r.failures[0]);
    expect(r.measurements[0]!.values.RELEASES).toEqual({
      events: [u('2026-09-15T00:00:00Z'), u('2026-11-01T00:00:00Z')],
    });
  });

  it('a token that may not read issues fails ISSUE_REACTION_TIME alone, the rest measured', async () => {
    // A GitHub App or fine-grained token without the Issues permission (a workflow's
    // GITHUB_TOKEN with `issues: none`): GitHub answers the query 200, the field it may not
    // read null beside an error of type FORBIDDEN at its path ("Resource not accessible by
    // integration"); the repository's other fields are answered.
    const r = await measure(
      {
        ...WIDGET,
        override: (t, _q, _n, normal): Reply | undefined => {
          if (t !== '/graphql') return undefined;
          const answer = normal();
          const data = (answer.body as { data: { repository: Record<string, unknown> } }).data;
          data.repository.issues = null;
          return {
            ...answer,
            body: {
              data,
              errors: [
                {
                  type: 'FORBIDDEN',
                  path: ['repository', 'issues'],
                  extensions: { saml_failure: false },
                  locations: [{ line: 5, column: 5 }],
                  message: 'Resource not accessible by integration',
                },
              ],
            },
          };
        },
      },
      {},
      [E],
    );
    expect(r.failures).toEqual(['GitHub API: the GraphQL query was refused (FORBIDDEN)']);
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBeNull();
    expect(r.measurements[0]!.evidence.ISSUE_REACTION_TIME).toBe(r.failures[0]);
    // The same releases and runs as the first test's at E: nothing of theirs needs issues.
    expect(r.measurements[0]!.values.RELEASES).toEqual({
      events: [u('2026-09-15T00:00:00Z'), u('2026-11-01T00:00:00Z')],
    });
    expect(r.measurements[0]!.values.CI_PIPELINE).toEqual({
      events: [u('2026-10-24T00:00:00Z'), u('2026-10-26T00:00:00Z')],
    });
  });

  it('a GraphQL query GitHub gave up on (502) fails ISSUE_REACTION_TIME alone', async () => {
    // "Timeouts" (GitHub's GraphQL rate limits page): a query taking GitHub more than 10
    // seconds is stopped; its answer is a 502. Asked again once, it fails again.
    const r = await measure(
      {
        ...WIDGET,
        override: (t): Reply | undefined =>
          t === '/graphql'
            ? { status: 502, headers: {}, body: { message: 'Server Error' } }
            : undefined,
      },
      {},
      [E],
    );
    expect(r.failures).toEqual(['GitHub API: 502 server error']);
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBeNull();
    expect(r.measurements[0]!.values.RELEASES).toEqual({
      events: [u('2026-09-15T00:00:00Z'), u('2026-11-01T00:00:00Z')],
    });
  });

  it('waits out a secondary limit (429, Retry-After) and a near reset, then goes on', async () => {
    const r = await measure(
      {
        ...WIDGET,
        override: (t, _q, n): Reply | undefined => {
          if (t.endsWith('/releases') && n === 1)
            return {
              status: 429,
              headers: { 'retry-after': '1' },
              body: GH_ERROR(
                'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
              ),
            };
          if (t.endsWith('/actions/runs') && n === 1)
            return {
              status: 403,
              headers: {
                'x-ratelimit-remaining': '0',
                'x-ratelimit-reset': String(Math.floor(Date.now() / 1000)),
              },
              body: GH_ERROR('API rate limit exceeded'),
            };
          return undefined;
        },
      },
      {},
      [E],
    );
    expect(r.failures).toEqual([]);
    expect(r.measurements[0]!.values.RELEASES).toEqual({
      events: [u('2026-09-15T00:00:00Z'), u('2026-11-01T00:00:00Z')],
    });
    expect(r.measurements[0]!.values.CI_PIPELINE).toEqual({
      events: [u('2026-10-24T00:00:00Z'), u('2026-10-26T00:00:00Z')],
    });
    // Two pages of three, the first asked twice.
    expect(
      server!.requests
        .filter((q) => q.path.endsWith('/releases'))
        .map((q) => q.query.get('page') ?? '1'),
    ).toEqual(['1', '1', '2']);
  });

  it('gives up on a secondary limit longer than maxWaitSeconds', async () => {
    const r = await measure(
      {
        ...WIDGET,
        override: (t) =>
          t.endsWith('/releases')
            ? {
                status: 403,
                headers: { 'retry-after': '600' },
                body: GH_ERROR('You have exceeded a secondary rate limit.'),
              }
            : undefined,
      },
      {},
      [E],
    );
    expect(r.failures).toHaveLength(1);
    // Ten minutes on: the next UTC day's date comes first when the test runs just before midnight.
    expect(r.failures[0]).toMatch(
      /^GitHub API: 403 secondary rate limit, resets (\d{4}-\d\d-\d\d )?\d\d:\d\dZ$/,
    );
    expect(r.measurements[0]!.values.RELEASES).toBeNull();
    expect(r.measurements[0]!.values.PACKAGES).toBeNull();
    expect(r.measurements[0]!.values.CI_PIPELINE).toEqual({
      events: [u('2026-10-24T00:00:00Z'), u('2026-10-26T00:00:00Z')],
    });
  });

  it('a server that does not answer in time fails with a timeout', async () => {
    const r = await measure(
      {
        ...WIDGET,
        override: (t) =>
          t.endsWith('/releases') ? { status: 200, body: [], delayMs: 1500 } : undefined,
      },
      { timeoutSeconds: 0.2 },
      [E],
    );
    expect(r.failures).toEqual(['GitHub API: no answer within 0.2 s']);
    expect(r.measurements[0]!.values.RELEASES).toBeNull();
  });

  it("the stand-in's check rejects an answer off GitHub's description", () => {
    expect(
      githubCheck('GET', '/repos/{owner}/{repo}/actions/runs', 200, {
        total_count: 1,
        workflow_runs: [{ id: 1 }],
      }),
    ).not.toEqual([]);
    expect(githubCheck('GET', '/repos/{owner}/{repo}/issues', 200, [{ number: 1 }])).not.toEqual(
      [],
    );
  });

  it('follows the Link headers GitHub really sent (@octokit/fixtures paginate-issues)', async () => {
    // Five pages recorded from api.github.com: the first under /repos/…, the next ones under
    // /repositories/1000/… as GitHub links them. Replayed with their headers, links pointed here.
    type Recorded = {
      path: string;
      status: number;
      headers: Record<string, string>;
      response: unknown;
    };
    const recorded = loadJson(
      '@octokit/fixtures/scenarios/api.github.com/paginate-issues/normalized-fixture.json',
    ) as unknown as Recorded[];
    let served = 0;
    const replay = (_p: Record<string, string>, _q: unknown, base: string): Reply => {
      const r = recorded[served++]!;
      const keep = [
        'link',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'x-ratelimit-used',
        'x-ratelimit-resource',
        'etag',
      ];
      const headers = Object.fromEntries(
        keep
          .filter((k) => r.headers[k] !== undefined)
          .map((k) => [k, String(r.headers[k]).split('https://api.github.com').join(base)]),
      );
      return { status: r.status, headers, body: r.response };
    };
    server = await startForgeServer(
      [
        { template: '/repos/{owner}/{repo}/issues', reply: replay },
        {
          template: '/repositories/{id}/issues',
          answersAs: '/repos/{owner}/{repo}/issues',
          reply: replay,
        },
      ],
      githubCheck,
    );
    const access = {
      kind: 'github' as const,
      apiUrl: server.url,
      tokens: ['tok-secret-one'],
      requestsPerSecond: 0,
      timeoutSeconds: 2,
      maxWaitSeconds: 5,
    };
    const http = new ApiClient(access, 'GitHub API', new QueueRegistry(), (t) => [
      'authorization',
      `Bearer ${t}`,
    ]);
    const issues: Array<{ created_at: string; author_association: string }> = [];
    for await (const items of http.pages<(typeof issues)[number]>(
      '/repos/octokit-fixture-org/paginate-issues/issues',
      {},
    ))
      issues.push(...items);
    expect(server.violations).toEqual([]);
    // 3 + 3 + 3 + 3 + 1 issues, all opened on 2017-10-10 by a MEMBER.
    expect(issues).toHaveLength(13);
    expect(
      issues.every(
        (i) => i.author_association === 'MEMBER' && i.created_at.startsWith('2017-10-10'),
      ),
    ).toBe(true);
    expect(server.requests.map((q) => q.path)).toEqual([
      '/repos/octokit-fixture-org/paginate-issues/issues',
      '/repositories/1000/issues',
      '/repositories/1000/issues',
      '/repositories/1000/issues',
      '/repositories/1000/issues',
    ]);
    expect(server.requests.slice(1, 5).map((q) => q.query.get('page'))).toEqual([
      '2',
      '3',
      '4',
      '5',
    ]);
  });

  it('refuses a next-page link to another origin: the rules it feeds are null with the cause', async () => {
    const elsewhere = await startGitHub({
      releases: [{ tag: 'v9.0.0', published: '2026-11-10T00:00:00Z' }],
    });
    try {
      const r = await measure(
        {
          ...WIDGET,
          override: (t, q) =>
            t.endsWith('/releases') && !q.query.has('page')
              ? {
                  status: 200,
                  headers: {
                    link: `<${elsewhere.url}/repos/acme/widget/releases?per_page=100&page=1>; rel="next"`,
                  },
                  body: [],
                }
              : undefined,
        },
        {},
        [E],
      );
      // Not a value from the foreign answer (v9.0.0): RELEASES and PACKAGES read that list.
      expect(r.measurements[0]!.values.RELEASES).toBeNull();
      expect(r.measurements[0]!.values.PACKAGES).toBeNull();
      expect(r.measurements[0]!.evidence.RELEASES).toBe(
        `GitHub API: a next-page link of /repos/acme/widget/releases points to another origin (${new URL(elsewhere.url).origin}); not followed, only ${new URL(server!.url).origin} is asked`,
      );
      expect(r.measurements[0]!.values.CI_PIPELINE).not.toBeNull();
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('a token whose last request used up its hour is skipped; the pool goes on with the other', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 3600);
    const r = await measure(
      {
        ...WIDGET,
        // The first page of runs is the last REST request its token may send this hour.
        override: (t, q, _n, normal) =>
          t === '/repos/{owner}/{repo}/actions/runs' && (q.query.get('page') ?? '1') === '1'
            ? { ...normal(), headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } }
            : undefined,
      },
      {},
      [E],
    );
    expect(r.failures).toEqual([]);
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBe(5.13);
    const rest = server!.requests.filter((q) => q.method === 'GET');
    const [first, ...after] = rest.map((q) => q.headers.authorization);
    // Runs in 2 pages, releases in 2 (3 a page): the 3 after the first with the other token.
    expect(after.length).toBe(3);
    expect(new Set(after)).toEqual(
      new Set([
        first === 'Bearer tok-secret-one' ? 'Bearer tok-secret-two' : 'Bearer tok-secret-one',
      ]),
    );
  });
});

describe('the reset time in a rate-limit failure', () => {
  // 2026-11-26T21:57:18Z; the expectations are written out by hand.
  const now = 1795730238;
  it('is the clock time alone on the same UTC day', () => {
    expect(rateLimitFailure('GitHub API', 403, now + 3600, now).message).toBe(
      'GitHub API: 403 rate limit, resets 22:57Z',
    );
  });
  it('carries the date when the reset falls after midnight UTC', () => {
    expect(rateLimitFailure('GitLab API', 429, now + 3 * 3600, now).message).toBe(
      'GitLab API: 429 rate limit, resets 2026-11-27 00:57Z',
    );
  });
});
