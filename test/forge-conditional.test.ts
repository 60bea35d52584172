// Conditional requests (issue 33 item 4): a repository's forge answers of the last scan kept in
// a file beside its mirror (the fields the adapter reads of each), asked again with
// If-None-Match, where the adapter says its forge answers them. The stand-ins validate as each
// forge documents: GitHub answers 304 (free against its limit), GitLab sends ETags but answers
// whole, Gitea/Forgejo sends none on its API: no answer is kept for those two, nothing asked
// conditionally; their issues' reactions are kept instead (the last describe). Expected
// figures are counted by hand.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forgeAnswersPath } from '../src/measure/forge/index.ts';
import type { ForgeResult } from '../src/measure/types.ts';
import { startGitHub, type GhRepository } from '../scripts/lib/forge-peers/github.ts';
import { startGitLab, type GlProject } from '../scripts/lib/forge-peers/gitlab.ts';
import { startGitea, type GtRepository } from '../scripts/lib/forge-peers/gitea.ts';
import type { ForgeServer, Override } from '../scripts/lib/forge-peers/server.ts';
import { measureOn, type MeasureOn } from './helpers/forge-measure.ts';

const u = (iso: string) => Date.parse(iso) / 1000;
const E = u('2026-11-25T00:00:00Z');

const servers: ForgeServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/**
 * Measures as a scan does, the answers kept in the mirrors folder `file` is in: the measurer
 * asks with those `file` holds, then keeps this scan's there.
 */
async function scanOnce(
  server: ForgeServer,
  file: string,
  o: Omit<MeasureOn, 'answersDir'>,
): Promise<ForgeResult> {
  return measureOn(server, { ...o, answersDir: dirname(dirname(file)) });
}

/** The file a repository's answers are kept in, in a new mirrors folder (its host's folder made). */
async function answersFile(o: { host: string; path: string }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bp-etags-'));
  dirs.push(dir);
  const file = forgeAnswersPath(dir, {
    url: `https://${o.host}/${o.path}`,
    host: o.host,
    path: o.path,
    source: '',
  });
  await mkdir(dirname(file), { recursive: true });
  return file;
}

const REPO: GhRepository = {
  issues: [],
  releases: [
    { tag: 'v2.0.0', published: '2026-10-01T00:00:00Z', assets: ['2026-10-01T00:10:00Z'] },
  ],
  runs: [{ created: '2026-11-01T00:00:00Z', event: 'push', conclusion: 'success' }],
};
const GH = {
  kind: 'github',
  host: 'github.com',
  path: 'acme/widget',
  tokens: 'tok-secret-etag',
  times: [E] as number[],
} as const;

describe("conditional requests with the last scan's ETags", () => {
  it('GitHub: an unchanged rescan is answered 304 throughout, counted against no limit, same values', async () => {
    const file = await answersFile(GH);
    const first = await scanOnce((servers[0] = await startGitHub(REPO)), file, GH);
    const second = await scanOnce((servers[1] = await startGitHub(REPO)), file, GH);
    expect(first.failures).toEqual([]);
    expect(second.measurements).toEqual(first.measurements);
    // First scan: nothing stored, no 304. The REST lists it asked (runs, releases; the GraphQL
    // query is the repository's lookup): each asked again with its ETag and each answered 304.
    expect(servers[0]!.notModified()).toBe(0);
    const rest = servers[1]!.requests.filter((q) => q.method === 'GET');
    expect(rest.map((q) => q.path)).toEqual([
      '/repos/acme/widget/actions/runs',
      '/repos/acme/widget/releases',
    ]);
    expect(rest.every((q) => typeof q.headers['if-none-match'] === 'string')).toBe(true);
    expect(servers[1]!.notModified()).toBe(rest.length);
    expect(second.notModified).toBe(rest.length);
    expect(second.counted).toBe(second.requests - rest.length);
    // The file holds the answers, never the token.
    const kept = await readFile(file, 'utf8');
    expect(kept).toContain('v2.0.0');
    expect(kept).not.toContain('tok-secret');
  });

  // Every field the adapter reads of each REST list varies here: a bot's issue, a pull request,
  // a maintainer's comment, triage and other events, a run of GitHub's own ("dynamic"), one
  // cancelled, a draft, an asset still uploading.
  const RICH: GhRepository = {
    issues: [
      { number: 1, created: '2026-11-02T00:00:00Z', author: { login: 'ann' }, association: 'NONE' },
      {
        number: 2,
        created: '2026-11-03T00:00:00Z',
        author: { login: 'ci[bot]', bot: true },
        association: 'NONE',
      },
      {
        number: 3,
        created: '2026-11-04T00:00:00Z',
        author: { login: 'bob' },
        association: 'NONE',
        pull: true,
      },
      {
        number: 4,
        created: '2026-11-05T00:00:00Z',
        author: { login: 'kim' },
        association: 'OWNER',
      },
      {
        number: 5,
        created: '2026-11-06T00:00:00Z',
        author: { login: 'cy' },
        association: 'CONTRIBUTOR',
      },
    ],
    comments: [
      {
        issue: 1,
        created: '2026-11-02T05:00:00Z',
        author: { login: 'kim' },
        association: 'MEMBER',
      },
      { issue: 5, created: '2026-11-06T02:00:00Z', author: { login: 'ann' }, association: 'NONE' },
    ],
    events: [
      { issue: 5, event: 'subscribed', created: '2026-11-06T01:00:00Z', actor: { login: 'kim' } },
      { issue: 5, event: 'labeled', created: '2026-11-06T03:00:00Z', actor: { login: 'kim' } },
    ],
    runs: [
      { created: '2026-11-01T00:00:00Z', event: 'push', conclusion: 'success' },
      { created: '2026-11-02T00:00:00Z', event: 'dynamic', conclusion: 'success' },
      { created: '2026-11-03T00:00:00Z', event: 'push', conclusion: 'cancelled' },
      { created: '2026-11-04T00:00:00Z', event: 'pull_request', conclusion: 'failure' },
    ],
    releases: [
      {
        tag: 'v2.0.0',
        published: '2026-10-01T00:00:00Z',
        assets: ['2026-10-01T00:10:00Z', { created: '2026-10-02T00:00:00Z', state: 'open' }],
      },
      {
        tag: 'v2.1.0',
        published: '2026-11-10T00:00:00Z',
        assets: [{ created: '2026-11-12T00:00:00Z', state: 'open' }],
      },
      { tag: 'v3.0.0', published: null, draft: true, assets: ['2026-11-20T00:00:00Z'] },
    ],
  };

  it.each([
    ['with a token (issues through GraphQL)', 'tok-secret-etag'],
    ['without one (issues, comments and events through REST)', ''],
  ])(
    'GitHub %s: a kept answer holds the fields read, and gives the same values',
    async (_, tokens) => {
      const file = await answersFile(GH);
      const o = { ...GH, tokens };
      const first = await scanOnce((servers[0] = await startGitHub(RICH)), file, o);
      const second = await scanOnce((servers[1] = await startGitHub(RICH)), file, o);
      expect(first.failures).toEqual([]);
      expect(second.measurements).toEqual(first.measurements);
      // Every GET answered 304: the values above came from the kept answers.
      const gets = servers[1]!.requests.filter((q) => q.method === 'GET');
      expect(gets.length).toBeGreaterThan(tokens ? 1 : 4);
      expect(servers[1]!.notModified()).toBe(gets.length);
      // The stand-in answers as GitHub's OpenAPI examples, with fields no rule reads (every
      // object's node_id, a release's body and author, a run's head commit): none is kept.
      const kept = Object.values(
        JSON.parse(await readFile(file, 'utf8')).answers as Record<string, { body: string }>,
      );
      expect(kept).toHaveLength(gets.length);
      for (const { body } of kept)
        for (const unread of ['node_id', '"body"', '"author"', 'head_commit', 'avatar_url'])
          expect(body).not.toContain(unread);
    },
  );

  it('GitHub: a stored page names its next page on the origin asked now, not the one it came from', async () => {
    // Releases two a page: page 1 links page 2. The second scan's server listens on another
    // port; the reused page 1's link must lead there (another origin would be refused).
    const paged: GhRepository = {
      ...REPO,
      pageCap: 2,
      releases: [
        ...REPO.releases!,
        { tag: 'v2.1.0', published: '2026-11-10T00:00:00Z' },
        { tag: 'v2.2.0', published: '2026-11-12T00:00:00Z' },
      ],
    };
    const file = await answersFile(GH);
    const first = await scanOnce((servers[0] = await startGitHub(paged)), file, GH);
    const second = await scanOnce((servers[1] = await startGitHub(paged)), file, GH);
    expect(second.failures).toEqual([]);
    expect(second.measurements).toEqual(first.measurements);
    const pages = servers[1]!.requests
      .filter((q) => q.path.endsWith('/releases'))
      .map((q) => q.query.get('page') ?? '1');
    expect(pages).toEqual(['1', '2']);
    expect(servers[1]!.notModified()).toBe(
      servers[1]!.requests.filter((q) => q.method === 'GET').length,
    );
  });

  it('GitHub: a changed list is answered whole and read anew', async () => {
    const file = await answersFile(GH);
    await scanOnce((servers[0] = await startGitHub(REPO)), file, GH);
    const later = {
      ...REPO,
      releases: [...REPO.releases!, { tag: 'v2.1.0', published: '2026-11-10T00:00:00Z' }],
    };
    const second = await scanOnce((servers[1] = await startGitHub(later)), file, GH);
    // v2.0.0 and v2.1.0 are no git tags here: both forge releases count.
    expect(second.measurements[0]!.values.RELEASES).toEqual({
      events: [u('2026-10-01T00:00:00Z'), u('2026-11-10T00:00:00Z')],
    });
    const releases = servers[1]!.requests.filter((q) => q.path.endsWith('/releases'));
    expect(releases.length).toBe(1);
    // Asked with the old ETag, answered whole (200): one 304 fewer than the GET requests.
    expect(releases[0]!.headers['if-none-match']).toBeDefined();
    const gets = servers[1]!.requests.filter((q) => q.method === 'GET').length;
    expect(servers[1]!.notModified()).toBe(gets - 1);
  });

  it('GitLab sends ETags, but a 304 would save nothing: none kept, none asked, an old file removed', async () => {
    const project = {
      members: [],
      issues: [],
      releases: [{ tag: 'v2.0.0', released: '2026-10-01T00:00:00Z' }],
    };
    const o = {
      kind: 'gitlab',
      host: 'gitlab.example',
      path: 'acme/widget',
      tokens: 'glpat-secret-etag',
      times: [E] as number[],
    } as const;
    const file = await answersFile(o);
    const first = await scanOnce((servers[0] = await startGitLab(project)), file, o);
    expect(first.failures).toEqual([]);
    expect(existsSync(file)).toBe(false);
    // A file as a version that kept GitLab's answers left it: every GET the first scan sent,
    // filed as the transport files it (a stored answer of a key is sent with its ETag, whatever
    // the ETag is). None of it is sent.
    const answers: Record<string, unknown> = {};
    for (const q of servers[0]!.requests.filter((r) => r.method === 'GET'))
      answers[`token application/json ${q.path}${q.query.size > 0 ? `?${q.query}` : ''}`] = {
        etag: 'W/"kept-by-an-older-version"',
        status: 200,
        headers: [],
        body: '[]',
      };
    await writeFile(file, JSON.stringify({ version: 1, answers }));
    const second = await scanOnce((servers[1] = await startGitLab(project)), file, o);
    expect(second.measurements).toEqual(first.measurements);
    expect(servers[1]!.requests.some((q) => q.headers['if-none-match'] !== undefined)).toBe(false);
    expect(second.counted).toBe(second.requests);
    expect(second.requests).toBe(first.requests);
    expect(existsSync(file)).toBe(false);
  });

  it('Gitea/Forgejo sends no ETag on its API: nothing is kept, nothing asked conditionally', async () => {
    const repo = {
      owner: 'acme',
      members: [],
      collaborators: [],
      issues: [],
      releases: [{ tag: 'v2.0.0', published: '2026-10-01T00:00:00Z' }],
    };
    const o = {
      kind: 'gitea',
      host: 'forge.example',
      path: 'acme/widget',
      tokens: 'fj-secret-etag',
      times: [E] as number[],
    } as const;
    const file = await answersFile(o);
    await scanOnce((servers[0] = await startGitea(repo)), file, o);
    const second = await scanOnce((servers[1] = await startGitea(repo)), file, o);
    expect(servers[1]!.requests.some((q) => q.headers['if-none-match'] !== undefined)).toBe(false);
    expect(second.counted).toBe(second.requests);
    expect(existsSync(file)).toBe(false);
  });

  it('past the byte bound an answer is not kept, and asked whole at the next scan; the values the same', async () => {
    const file = await answersFile(GH);
    const paged: GhRepository = { ...RICH, pageCap: 1 };
    const first = await scanOnce((servers[0] = await startGitHub(paged)), file, GH);
    // A bound one byte short of what the first scan kept: its last answer (the file's last
    // entry, kept in the order asked) no longer fits.
    const kept = Object.entries(
      JSON.parse(await readFile(file, 'utf8')).answers as Record<string, { body: string }>,
    );
    const bytes = kept.reduce((n, [, a]) => n + Buffer.byteLength(a.body), 0);
    const [lastKey] = kept[kept.length - 1]!;
    const bounded = (server: ForgeServer) =>
      measureOn(server, { ...GH, answersDir: dirname(dirname(file)), keptAnswerBytes: bytes - 1 });
    await bounded((servers[1] = await startGitHub(paged)));
    const third = await bounded((servers[2] = await startGitHub(paged)));
    expect(third.measurements).toEqual(first.measurements);
    const gets = servers[2]!.requests.filter((q) => q.method === 'GET');
    // Every answer but the last asked with its ETag and answered 304; the last asked whole.
    const last = new URL(lastKey.slice(lastKey.lastIndexOf(' ') + 1), 'http://stand-in');
    const whole = gets.filter((q) => q.headers['if-none-match'] === undefined);
    expect(whole.map((q) => [q.path, [...q.query]])).toEqual([
      [last.pathname, [...last.searchParams]],
    ]);
    expect(servers[2]!.notModified()).toBe(gets.length - 1);
  });

  it('a file that is not JSON is read as no answers: every list asked afresh', async () => {
    const file = await answersFile(GH);
    await writeFile(file, '{not json');
    const r = await scanOnce((servers[0] = await startGitHub(REPO)), file, GH);
    expect(r.failures).toEqual([]);
    expect(servers[0]!.requests.some((q) => q.headers['if-none-match'] !== undefined)).toBe(false);
  });

  it('answers it cannot keep are a note, never a failure: the values stand', async () => {
    const file = await answersFile(GH);
    // A folder where the file goes: the file is read as none, and written nowhere.
    await mkdir(file);
    const r = await scanOnce((servers[0] = await startGitHub(REPO)), file, GH);
    expect(r.failures).toEqual([]);
    expect(r.measurements[0]!.values.RELEASES).toEqual({ events: [u('2026-10-01T00:00:00Z')] });
    expect(r.notes).toHaveLength(1);
    expect(r.notes![0]).toMatch(/^the forge's answers were not kept for the next scan \(/);
    expect(r.notes![0]).toContain(`(${file}): EISDIR`);
  });
});

// Reactions kept between scans (issue 33, "Budget"): GitLab and Gitea/Forgejo answer no
// conditional request, so an issue unchanged since the last scan (its `updated_at` and comment
// count as the issues list gives them) takes what its per-issue lists yielded then. The
// stand-ins date an issue as the forges' source does (scripts/lib/forge-peers/gitlab.ts and
// gitea.ts); every expected value is a scan of the same state with nothing kept.
describe('reactions kept between scans where no conditional request is answered', () => {
  /** A scan of `server` with nothing kept: what a kept finding must give byte for byte. */
  const fresh = (server: ForgeServer, o: Omit<MeasureOn, 'answersDir'>) => measureOn(server, o);
  /** The per-issue lists (notes, resource events, timeline) among `server`'s requests from `from`. */
  const perIssue = (server: ForgeServer, from: number) =>
    server.requests
      .slice(from)
      .map((q) => q.path)
      .filter((p) => /\/issues\/\d+\//.test(p));
  /** The issues whose lists were asked among `server`'s requests from `from`. */
  const issuesRead = (server: ForgeServer, from: number) =>
    new Set(perIssue(server, from).map((p) => p.split('/issues/')[1]!.split('/')[0]));
  const reaction = (r: ForgeResult) => r.measurements[0]!.values.ISSUE_REACTION_TIME;

  const GL = {
    kind: 'gitlab',
    host: 'gitlab.example',
    path: 'acme/widget',
    tokens: 'glpat-secret-kept',
    times: [E] as number[],
  } as const;
  /** Four issues by outsiders, one by a maintainer (never read); answered by `maint` and `tri`. */
  const gitlabProject = (): GlProject => ({
    members: [
      { username: 'maint', access: 40 },
      { username: 'tri', access: 20 },
    ],
    issues: [
      { iid: 1, created: '2026-10-01T00:00:00Z', author: { username: 'ann' } },
      { iid: 2, created: '2026-10-02T00:00:00Z', author: { username: 'bob' } },
      { iid: 3, created: '2026-10-03T00:00:00Z', author: { username: 'cy' } },
      { iid: 4, created: '2026-10-04T00:00:00Z', author: { username: 'dee' } },
      { iid: 5, created: '2026-10-05T00:00:00Z', author: { username: 'maint' } },
    ],
    notes: [
      { issue: 1, created: '2026-10-03T00:00:00Z', author: { username: 'maint' }, body: 'Thanks' },
      { issue: 2, created: '2026-10-02T06:00:00Z', author: { username: 'bob' }, body: 'Any news?' },
      { issue: 3, created: '2026-10-05T00:00:00Z', author: { username: 'tri' }, body: 'Looking' },
    ],
    events: [
      {
        kind: 'label',
        action: 'add',
        issue: 1,
        created: '2026-10-02T00:00:00Z',
        user: { username: 'tri' },
      },
      {
        kind: 'state',
        state: 'closed',
        issue: 3,
        created: '2026-10-04T00:00:00Z',
        user: { username: 'maint' },
      },
    ],
  });

  it('GitLab: an unchanged rescan asks no per-issue list; a new note re-reads its issue alone', async () => {
    const project = gitlabProject();
    const server = (servers[0] = await startGitLab(project));
    const file = await answersFile(GL);
    const first = await scanOnce(server, file, GL);
    expect(first.failures).toEqual([]);
    // Four outsiders' issues, four lists each (notes, label, milestone and state events).
    expect(perIssue(server, 0)).toHaveLength(16);

    let from = server.requests.length;
    const second = await scanOnce(server, file, GL);
    expect(perIssue(server, from)).toEqual([]);
    expect(second.requests).toBe(first.requests - 16);
    expect(second.measurements).toEqual(first.measurements);

    // A maintainer answers issue 2 (GitLab touches the issue: its updated_at moves).
    project.notes!.push({
      issue: 2,
      created: '2026-10-02T12:00:00Z',
      author: { username: 'maint' },
      body: 'On it',
    });
    from = server.requests.length;
    const third = await scanOnce(server, file, GL);
    expect(issuesRead(server, from)).toEqual(new Set(['2']));
    expect(perIssue(server, from)).toHaveLength(4);
    expect(reaction(third)).not.toEqual(reaction(second));
    expect(third.measurements).toEqual((await fresh(server, GL)).measurements);
  });

  it('GitLab: a deleted note (no touch, one note fewer) re-reads its issue; the values as a fresh scan', async () => {
    const project = gitlabProject();
    const server = (servers[0] = await startGitLab(project));
    const file = await answersFile(GL);
    await scanOnce(server, file, GL);
    // Notes::DestroyService destroys the note: updated_at stays, user_notes_count drops.
    project.notes![0]!.deleted = true;
    const from = server.requests.length;
    const after = await scanOnce(server, file, GL);
    expect(issuesRead(server, from)).toEqual(new Set(['1']));
    expect(after.measurements).toEqual((await fresh(server, GL)).measurements);
  });

  it('a kept finding not of its shape is read as none: its issue asked again, the values the same', async () => {
    const server = (servers[0] = await startGitLab(gitlabProject()));
    const file = await answersFile(GL);
    const first = await scanOnce(server, file, GL);
    const doc = JSON.parse(await readFile(file, 'utf8')) as { findings: Record<string, unknown> };
    const keys = Object.keys(doc.findings);
    expect(keys).toHaveLength(4);
    doc.findings[keys[0]!] = { r: [['soon', 'maint']], u: 0 };
    doc.findings[keys[1]!] = { r: [], u: -1 };
    await writeFile(file, JSON.stringify(doc));
    const from = server.requests.length;
    const again = await scanOnce(server, file, GL);
    expect(perIssue(server, from)).toHaveLength(8);
    expect(again.measurements).toEqual(first.measurements);
  });

  it('GitLab: a bot pattern that makes a maintainer a bot re-reads every issue; one that names nobody, none', async () => {
    const server = (servers[0] = await startGitLab(gitlabProject()));
    const file = await answersFile(GL);
    await scanOnce(server, file, GL);
    let from = server.requests.length;
    const nobody = { ...GL, botPatterns: ['^nobody$'] };
    const unchanged = await scanOnce(server, file, nobody);
    expect(perIssue(server, from)).toEqual([]);
    expect(unchanged.measurements).toEqual((await fresh(server, nobody)).measurements);

    from = server.requests.length;
    const triBot = { ...GL, botPatterns: ['^tri$'] };
    const changed = await scanOnce(server, file, triBot);
    expect(perIssue(server, from)).toHaveLength(16);
    expect(changed.measurements).toEqual((await fresh(server, triBot)).measurements);
    expect(reaction(changed)).not.toEqual(reaction(unchanged));
  });

  const GT = {
    kind: 'gitea',
    host: 'forge.example',
    path: 'acme/widget',
    tokens: 'fj-secret-kept',
    times: [E] as number[],
  } as const;
  const giteaRepository = (): GtRepository => ({
    owner: 'acme',
    members: ['maint'],
    collaborators: ['tri'],
    issues: [
      { number: 1, created: '2026-10-01T00:00:00Z', author: 'ann' },
      { number: 2, created: '2026-10-02T00:00:00Z', author: 'bob' },
      { number: 3, created: '2026-10-03T00:00:00Z', author: 'cy' },
      { number: 4, created: '2026-10-04T00:00:00Z', author: 'maint' },
    ],
    timeline: [
      { issue: 1, type: 'comment', created: '2026-10-03T00:00:00Z', user: 'maint' },
      { issue: 1, type: 'label', created: '2026-10-02T00:00:00Z', user: 'tri' },
      { issue: 2, type: 'comment', created: '2026-10-02T06:00:00Z', user: 'bob' },
      { issue: 3, type: 'close', created: '2026-10-04T00:00:00Z', user: 'maint' },
    ],
  });

  it('Gitea/Forgejo: an unchanged rescan asks no timeline; a new comment re-reads its issue alone', async () => {
    const repo = giteaRepository();
    const server = (servers[0] = await startGitea(repo));
    const file = await answersFile(GT);
    const first = await scanOnce(server, file, GT);
    expect(first.failures).toEqual([]);
    expect(perIssue(server, 0)).toHaveLength(3);

    let from = server.requests.length;
    const second = await scanOnce(server, file, GT);
    expect(perIssue(server, from)).toEqual([]);
    expect(second.requests).toBe(first.requests - 3);
    expect(second.measurements).toEqual(first.measurements);

    repo.timeline!.push({
      issue: 2,
      type: 'comment',
      created: '2026-10-02T12:00:00Z',
      user: 'maint',
    });
    from = server.requests.length;
    const third = await scanOnce(server, file, GT);
    expect(perIssue(server, from)).toEqual(['/api/v1/repos/acme/widget/issues/2/timeline']);
    expect(reaction(third)).not.toEqual(reaction(second));
    expect(third.measurements).toEqual((await fresh(server, GT)).measurements);

    from = server.requests.length;
    const triBot = { ...GT, botPatterns: ['^tri$'] };
    const changed = await scanOnce(server, file, triBot);
    expect(perIssue(server, from)).toHaveLength(3);
    expect(changed.measurements).toEqual((await fresh(server, triBot)).measurements);
  });

  /**
   * The issues a second scan reads again after a first, when issue 4's author commented at
   * `msAgo` before this machine's clock (the stand-in's Date header `forgeBehindMs` behind it).
   */
  async function readAgain(msAgo: number, forgeBehindMs = 0): Promise<Set<string | undefined>> {
    const project = gitlabProject();
    const now = Date.now();
    project.notes!.push({
      issue: 4,
      created: new Date(now - msAgo).toISOString(),
      author: { username: 'dee' },
      body: 'Still broken',
    });
    if (forgeBehindMs > 0) {
      const date = new Date(now - forgeBehindMs).toUTCString();
      project.override = (_t, _q, _n, normal) => {
        const r = normal();
        return { ...r, headers: { ...r.headers, date } };
      };
    }
    const server = await startGitLab(project);
    servers.push(server);
    const file = await answersFile(GL);
    await scanOnce(server, file, GL);
    const from = server.requests.length;
    await scanOnce(server, file, GL);
    return issuesRead(server, from);
  }

  it('an issue changed in the last minutes is read again next time: GitLab skips a touch within a minute of the last', async () => {
    expect(await readAgain(60_000)).toEqual(new Set(['4']));
  });

  it("how long an issue has been unchanged is the forge's clock's to say (its Date header), not ours", async () => {
    // Changed 7 minutes ago by this machine's clock; the forge's runs 5 minutes behind, so by
    // its clock the issue changed 2 minutes ago: within GitLab's reach of a skipped touch.
    expect(await readAgain(7 * 60_000, 5 * 60_000)).toEqual(new Set(['4']));
    // With the clocks agreeing, 7 minutes is long enough: nothing is read again.
    expect(await readAgain(7 * 60_000)).toEqual(new Set());
  });

  /** Every answer of `server`'s project sent with no Date header, or with `date` as its Date. */
  const withDate =
    (date?: string): Override =>
    (_t, _q, _n, normal) => {
      const r = normal();
      return date === undefined
        ? { ...r, noDate: true }
        : { ...r, headers: { ...r.headers, date } };
    };
  /** The findings `file` keeps (none when it keeps no file or no findings). */
  const findingsKept = async (file: string) =>
    existsSync(file)
      ? Object.keys(
          (JSON.parse(await readFile(file, 'utf8')) as { findings?: object }).findings ?? {},
        )
      : [];

  it("without the forge's clock (no Date header, or one that is no HTTP-date) no finding is kept: every issue read again", async () => {
    // Our clock may run minutes ahead of the forge's: settled by ours is not settled by GitLab's
    // throttled touch. The issues all changed weeks ago, so only a missing clock re-reads them.
    // '2099-01-01' is no HTTP-date (RFC 9110 section 5.6.7), though Date.parse reads it.
    for (const date of [undefined, '2099-01-01', 'Fri, 27 Nov 2099 10:00:00']) {
      const project = { ...gitlabProject(), override: withDate(date) };
      const server = await startGitLab(project);
      servers.push(server);
      const file = await answersFile(GL);
      const first = await scanOnce(server, file, GL);
      expect(first.failures).toEqual([]);
      expect(await findingsKept(file)).toEqual([]);
      const from = server.requests.length;
      const second = await scanOnce(server, file, GL);
      expect(issuesRead(server, from)).toEqual(new Set(['1', '2', '3', '4']));
      expect(perIssue(server, from)).toHaveLength(16);
      expect(second.measurements).toEqual(first.measurements);
    }

    const repo = { ...giteaRepository(), override: withDate() };
    const server = await startGitea(repo);
    servers.push(server);
    const file = await answersFile(GT);
    const first = await scanOnce(server, file, GT);
    expect(first.failures).toEqual([]);
    const from = server.requests.length;
    const second = await scanOnce(server, file, GT);
    expect(issuesRead(server, from)).toEqual(new Set(['1', '2', '3']));
    expect(second.measurements).toEqual(first.measurements);
  });
});
