// The Gitea/Forgejo adapter against a loopback stand-in whose every answer matches the documented
// fields in test/fixtures/forgejo/responses.v1.json. Expected values are worked out by hand in the comments.
import { afterEach, describe, expect, it } from 'vitest';
import type { ForgeResult } from '../src/measure/types.ts';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';
import { giteaCheck, startGitea, type GtRepository } from '../scripts/lib/forge-peers/gitea.ts';
import { measureOn } from './helpers/forge-measure.ts';
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
  repo: GtRepository,
  host: Partial<HostConfig> = {},
  times = [E1, E],
): Promise<ForgeResult> {
  await server?.close();
  server = await startGitea(repo);
  return measureOn(server, {
    kind: 'gitea',
    host: 'forge.example',
    path: 'acme/widget',
    tokens: 'fj-secret-one',
    times,
    tagNames: ['v1.0.0'],
    hostConfig: host,
  });
}

const WIDGET: GtRepository = {
  owner: 'acme',
  pageCap: 2,
  members: ['maint'],
  collaborators: ['helper'],
  issues: [
    { number: 1, created: '2026-09-01T00:00:00Z', author: 'alice' },
    { number: 2, created: '2026-09-05T00:00:00Z', author: 'Maint' },
    { number: 3, created: '2026-11-24T00:00:00Z', author: 'bob' },
    { number: 4, created: '2026-10-01T00:00:00Z', author: 'bob', pull: true },
    { number: 5, created: '2026-10-10T00:00:00Z', author: 'carol' },
  ],
  timeline: [
    { issue: 1, type: 'comment', created: '2026-09-01T01:00:00Z', user: 'renovate-bot' },
    { issue: 1, type: 'change_title', created: '2026-09-01T02:00:00Z', user: 'maint' },
    { issue: 1, type: 'label', created: '2026-09-02T06:00:00Z', user: 'helper' },
    { issue: 5, type: 'close', created: '2026-10-11T00:00:00Z', user: 'carol' },
    { issue: 5, type: 'comment', created: '2026-10-12T00:00:00Z', user: 'acme' },
  ],
  runs: [
    { created: '2026-11-01T00:00:00Z', status: 'success' },
    { created: '2026-11-02T00:00:00Z', status: 'failure' },
    { created: '2026-11-03T00:00:00Z', status: 'cancelled' },
    { created: '2025-11-01T00:00:00Z', status: 'success' },
    { created: '2026-10-01T00:00:00Z', status: 'running' },
  ],
  releases: [
    { tag: 'v1.0.0', published: '2026-06-01T00:00:00Z' },
    { tag: 'v1.1.0', published: '2026-10-15T00:00:00Z' },
    { tag: 'v1.2.0', published: '2026-11-20T00:00:00Z', draft: true },
  ],
  packages: [
    {
      name: 'widget',
      version: '1.0.0',
      type: 'npm',
      created: '2026-10-01T00:00:00Z',
      repository: 'acme/widget',
    },
    {
      name: 'other',
      version: '2.0.0',
      type: 'npm',
      created: '2026-10-02T00:00:00Z',
      repository: 'acme/other',
    },
    { name: 'widget', version: '1.1.0', type: 'npm', created: '2026-10-03T00:00:00Z' },
  ],
};

describe('Gitea/Forgejo adapter', () => {
  it('measures every forge rule for each time from one pass', async () => {
    const r = await measure(WIDGET);
    expect(r.failures).toEqual([]);
    const [at1, at2] = r.measurements;
    // At E (3 months by default): #1 1.25 days (the collaborator's label; the bot's comment
    // and a title change do not count), #3 unanswered: 1 day, #5 2 days (the owning
    // organisation's comment; closing it herself does not count). #2 is by an org member
    // (names compare without case), #4 is a pull request. 4.25 / 3 = 1.4167 → 1.42.
    expect(at2!.values.ISSUE_REACTION_TIME).toBe(1.42);
    // At E1: #1 1.25 and #5 2 → 1.625 → 1.63.
    expect(at1!.values.ISSUE_REACTION_TIME).toBe(1.63);
    expect(at2!.values.CI_PIPELINE).toEqual({
      events: [u('2026-11-01T00:00:00Z'), u('2026-11-02T00:00:00Z')],
    });
    expect(at1!.values.CI_PIPELINE).toEqual({ events: [u('2025-11-01T00:00:00Z')] });
    expect(at2!.values.RELEASES).toEqual({ events: [u('2026-10-15T00:00:00Z')] });
    // Only the version linked to this repository.
    expect(at2!.values.PACKAGES).toEqual({ events: [u('2026-10-01T00:00:00Z')] });
    expect(server!.requests.every((q) => q.headers.authorization === 'token fj-secret-one')).toBe(
      true,
    );
    // Five runs two a page: three pages by the body's total_count (the list sends no Link).
    expect(server!.requests.filter((q) => q.path.endsWith('/actions/runs'))).toHaveLength(3);
  });

  it("reads every page of Forgejo's run list by the body's total_count (no Link, no X-Total-Count)", async () => {
    // 45 runs, 20 a page: 3 pages. Every third run failed, the others succeeded, all in the
    // 45 days before E: all 45 count.
    const runs = Array.from({ length: 45 }, (_, i) => ({
      created: new Date((E - (i + 1) * 86400) * 1000).toISOString(),
      status: i % 3 ? 'success' : 'failure',
    }));
    const r = await measure({ ...WIDGET, pageCap: 20, runs }, {}, [E]);
    expect(r.failures).toEqual([]);
    expect((r.measurements[0]!.values.CI_PIPELINE as { events: number[] }).events).toHaveLength(45);
    expect(
      server!.requests
        .filter((q) => q.path.endsWith('/actions/runs'))
        .map((q) => q.query.get('page')),
    ).toEqual(['1', '2', '3']);
  });

  it('dates Gitea 1.24/1.25 runs, which have no created_at, by started_at; an undated one is no silent 0', async () => {
    // 40 runs of Gitea's list (outcome in `conclusion`), 15 a page; run i started i + 1 days
    // before E. Runs 0–29 succeeded or failed, 30–34 were cancelled, 35–39 still wait (never
    // started: started_at is the epoch). 30 count.
    const runs = Array.from({ length: 40 }, (_, i) => ({
      status: i < 30 ? (i % 2 ? 'success' : 'failure') : i < 35 ? 'cancelled' : 'waiting',
      ...(i < 35 ? { started: new Date((E - (i + 1) * 86400) * 1000).toISOString() } : {}),
    }));
    let r = await measure({ ...WIDGET, pageCap: 15, runList: 'gitea', runs }, {}, [E]);
    expect(r.failures).toEqual([]);
    const events = (r.measurements[0]!.values.CI_PIPELINE as { events: number[] }).events;
    expect(events).toHaveLength(30);
    expect(events[0]).toBe(E - 30 * 86400);
    expect(r.measurements[0]!.evidence.CI_PIPELINE).toBe(
      'Forgejo/Gitea Actions: 30 runs that succeeded or failed in the 12 months to 2026-11-25',
    );
    // A succeeded run without any time: no value, and the evidence says why.
    r = await measure(
      { ...WIDGET, runList: 'gitea', runs: [...runs.slice(0, 3), { status: 'success' }] },
      {},
      [E],
    );
    expect(r.failures).toEqual([]);
    expect(r.measurements[0]!.values.CI_PIPELINE).toBeNull();
    expect(r.measurements[0]!.evidence.CI_PIPELINE).toBe(
      'Forgejo/Gitea API: 1 of 4 runs that succeeded or failed carry no time (neither created, created_at nor started_at)',
    );
  });

  it('an instance without the Actions run list leaves CI_PIPELINE null with evidence, not a failure', async () => {
    const r = await measure({ ...WIDGET, runs: undefined }, {}, [E]);
    expect(r.failures).toEqual([]);
    expect(r.measurements[0]!.values.CI_PIPELINE).toBeNull();
    expect(r.measurements[0]!.evidence.CI_PIPELINE).toBe(
      'Forgejo/Gitea API: this instance has no Actions run list (/repos/acme/widget/actions/runs answered 404)',
    );
  });

  it('a user-owned repository: the owner and collaborators maintain it', async () => {
    const r = await measure(
      { ...WIDGET, members: undefined, collaborators: [], owner: 'acme' },
      {},
      [E],
    );
    // #2 by "Maint" now counts (no organisation), unanswered: 81 days; #1 gets no maintainer
    // reaction (helper is no collaborator): 85 days; #3 1 day; #5 2 days (acme, the owner).
    // (85 + 81 + 1 + 2) / 4 = 42.25.
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBe(42.25);
  });

  it('issues disabled, 401, 404, a short 429 and a timeout', async () => {
    let r = await measure({ ...WIDGET, hasIssues: false }, {}, [E]);
    expect(r.measurements[0]!.values.ISSUE_REACTION_TIME).toBeNull();
    expect(r.failures).toEqual([]);
    r = await measure(
      {
        ...WIDGET,
        override: (t) =>
          t === '/repos/{owner}/{repo}'
            ? { status: 401, body: { message: 'token is required', url: '' } }
            : undefined,
      },
      {},
      [E],
    );
    expect(r.failures).toEqual([
      'Forgejo/Gitea API: 401 bad or missing credentials (check the token in $FORGE_TEST_TOKEN)',
    ]);
    r = await measure(
      {
        ...WIDGET,
        override: (t) =>
          t === '/repos/{owner}/{repo}'
            ? { status: 404, body: { message: 'not found', url: '', errors: [] } }
            : undefined,
      },
      {},
      [E],
    );
    expect(r.failures).toEqual(['Forgejo/Gitea API: 404 not found or not visible to the token']);
    r = await measure(
      {
        ...WIDGET,
        override: (t, _q, n) =>
          t.endsWith('/releases') && n === 1
            ? {
                status: 429,
                headers: { 'retry-after': '0' },
                body: { message: 'rate limited', url: '' },
              }
            : undefined,
      },
      {},
      [E],
    );
    expect(r.failures).toEqual([]);
    expect(r.measurements[0]!.values.RELEASES).toEqual({ events: [u('2026-10-15T00:00:00Z')] });
    r = await measure(
      {
        ...WIDGET,
        override: (t) =>
          t === '/packages/{owner}' ? { status: 200, body: [], delayMs: 1000 } : undefined,
      },
      { timeoutSeconds: 0.2 },
      [E],
    );
    expect(r.failures).toEqual(['Forgejo/Gitea API: no answer within 0.2 s']);
    expect(r.measurements[0]!.values.PACKAGES).toBeNull();
  });

  it("the stand-in's check rejects an answer off the documented fields", () => {
    expect(
      giteaCheck('GET', '/repos/{owner}/{repo}/actions/runs', 200, {
        total_count: '5',
        workflow_runs: [],
      }),
    ).not.toEqual([]);
    expect(giteaCheck('GET', '/repos/{owner}/{repo}/issues', 200, [{ number: 'one' }])).not.toEqual(
      [],
    );
    expect(
      giteaCheck('GET', '/repos/{owner}/{repo}/issues/{index}/timeline', 200, [
        { type: 'comment', created_at: 'yesterday' },
      ]),
    ).not.toEqual([]);
    expect(
      giteaCheck('GET', '/packages/{owner}', 200, [
        { name: 'widget', repository: { full_name: 7 } },
      ]),
    ).not.toEqual([]);
    expect(
      giteaCheck('GET', '/repos/{owner}/{repo}', 404, { message: 'not found', errors: 'none' }),
    ).not.toEqual([]);
    // A field the adapter reads, missing (Forgejo's structs send each of them on every answer).
    const user = { id: 1, login: 'ann', visibility: 'public' };
    const issue = {
      id: 1,
      number: 1,
      title: 't',
      state: 'open',
      created_at: '2026-10-01T00:00:00Z',
      updated_at: '2026-10-01T00:00:00Z',
      user,
    };
    expect(giteaCheck('GET', '/repos/{owner}/{repo}/issues', 200, [issue])).toEqual([]);
    for (const field of ['number', 'created_at', 'user']) {
      const { [field as keyof typeof issue]: _, ...without } = issue;
      expect(giteaCheck('GET', '/repos/{owner}/{repo}/issues', 200, [without])).toEqual([
        `GET /repos/{owner}/{repo}/issues 200: /0 must have required property '${field}'`,
      ]);
    }
    expect(
      giteaCheck('GET', '/repos/{owner}/{repo}/issues/{index}/timeline', 200, [
        { id: 1, type: 'comment', created_at: '2026-10-01T00:00:00Z' },
      ]),
    ).toEqual([
      "GET /repos/{owner}/{repo}/issues/{index}/timeline 200: /0 must have required property 'user'",
    ]);
    expect(
      giteaCheck('GET', '/repos/{owner}/{repo}/releases', 200, [
        { id: 1, tag_name: 'v1', draft: false, prerelease: false },
      ]),
    ).toEqual([
      "GET /repos/{owner}/{repo}/releases 200: /0 must have required property 'published_at'",
    ]);
    // A run of either list (Forgejo's or Gitea's) without its outcome.
    expect(
      giteaCheck('GET', '/repos/{owner}/{repo}/actions/runs', 200, {
        total_count: 1,
        workflow_runs: [{ id: 1, created: '2026-10-01T00:00:00Z' }],
      }),
    ).toContain(
      "GET /repos/{owner}/{repo}/actions/runs 200: /workflow_runs/0 must have required property 'status'",
    );
    const listed = {
      html_url: 'https://forge.example/a/w',
      private: false,
      internal: false,
      fork: false,
      mirror: false,
      archived: false,
      topics: null,
    };
    expect(
      giteaCheck('GET', '/repos/{owner}/{repo}', 200, {
        id: 1,
        name: 'w',
        full_name: 'a/w',
        owner: user,
        ...listed,
      }),
    ).toEqual(["GET /repos/{owner}/{repo} 200:  must have required property 'has_issues'"]);
  });

  it('never follows a next-page link to another host (the token would go with it)', async () => {
    const r = await measure(
      {
        ...WIDGET,
        override: (t, q) =>
          t === '/repos/{owner}/{repo}/releases' && !q.query.has('page')
            ? {
                status: 200,
                headers: {
                  link: '<http://elsewhere.example/api/v1/repos/acme/widget/releases?page=2>; rel="next"',
                },
                body: [
                  {
                    id: 1,
                    tag_name: 'v1.1.0',
                    name: 'v1.1.0',
                    draft: false,
                    prerelease: false,
                    created_at: '2026-10-15T00:00:00Z',
                    published_at: '2026-10-15T00:00:00Z',
                  },
                ],
              }
            : undefined,
      },
      {},
      [E],
    );
    expect(r.failures).toEqual([
      `Forgejo/Gitea API: a next-page link of /repos/acme/widget/releases points to another origin (http://elsewhere.example); not followed, only ${new URL(server!.url).origin} is asked`,
    ]);
    expect(r.measurements[0]!.values.RELEASES).toBeNull();
  });
});
