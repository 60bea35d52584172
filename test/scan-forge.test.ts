import type { ServerResponse } from 'node:http';
// `badgepress scan` with the forge adapters end to end: one repository made here, listed on a
// GitHub, a GitLab and a Forgejo host whose APIs are loopback stand-ins checked against each
// forge's description, plus ecosyste.ms for DEPENDENTS. The store it writes builds a Shape A
// and a Shape B site with --strict, and every scanned rule of every badge has a value.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from './helpers/cli-in-process.ts';
import { utc, WorkRepo, type Person } from './helpers/git-repo.ts';
import { startForgeServer, type ForgeServer } from '../scripts/lib/forge-peers/server.ts';
import { startEcosystemsIndex } from './helpers/ecosystems-index.ts';
import { GH_ERROR, startGitHub } from '../scripts/lib/forge-peers/github.ts';
import { startGitLab } from '../scripts/lib/forge-peers/gitlab.ts';
import { startGitea } from '../scripts/lib/forge-peers/gitea.ts';
import { tempDir } from './helpers/tmp.ts';

const BOB: Person = { name: 'Bob', email: 'bob@example.org' };
const E = utc(2026, 11, 25);
const URLS = [
  'https://github.com/acme/widget',
  'https://gitlab.example/acme/widget',
  'https://forge.example/acme/widget',
];

describe('badgepress scan with forge APIs', () => {
  const root = tempDir('badgepress-scan-forge-');
  const config = join(root, 'badgepress.yaml');
  const servers: ForgeServer[] = [];

  beforeAll(async () => {
    const repo = WorkRepo.init(join(root, 'widget'));
    repo.commit({ at: utc(2026, 6, 2), files: { 'SECURITY.md': 'mail us' } });
    repo.commit({ author: BOB, at: utc(2026, 7, 3) });
    repo.commit({ at: utc(2026, 8, 4) });
    repo.tag('v1.0.0', { annotatedAt: utc(2026, 8, 5) });
    repo.commit({ author: BOB, at: utc(2026, 9, 6) });
    repo.commit({ at: utc(2026, 10, 7) });
    repo.commit({ author: BOB, at: utc(2026, 11, 8) });
    repo.bareClone(join(root, 'widget.git'));

    // Each forge: one issue answered by a maintainer in 2 days, CI runs, a release git lacks
    // and a published package version.
    const github = await startGitHub({
      issues: [
        {
          number: 1,
          created: '2026-11-01T00:00:00Z',
          updated: '2026-11-03T00:00:00Z',
          author: { login: 'alice' },
          association: 'NONE',
        },
      ],
      comments: [
        {
          issue: 1,
          created: '2026-11-03T00:00:00Z',
          author: { login: 'maint' },
          association: 'OWNER',
        },
      ],
      runs: [
        { created: '2026-11-10T00:00:00Z', event: 'push', conclusion: 'success' },
        { created: '2026-11-11T00:00:00Z', event: 'push', conclusion: 'failure' },
      ],
      releases: [
        { tag: 'v2.0.0', published: '2026-10-01T00:00:00Z', assets: ['2026-10-01T00:00:00Z'] },
      ],
    });
    const gitlab = await startGitLab({
      members: [{ username: 'maint', access: 40 }],
      issues: [{ iid: 1, created: '2026-11-01T00:00:00Z', author: { username: 'alice' } }],
      notes: [
        {
          issue: 1,
          created: '2026-11-03T00:00:00Z',
          author: { username: 'maint' },
          body: 'Looking into it.',
        },
      ],
      pipelines: [{ created: '2026-11-10T00:00:00Z', status: 'success' }],
      releases: [{ tag: 'v2.0.0', released: '2026-10-01T00:00:00Z' }],
      packages: [
        { name: 'widget', version: '2.0.0', type: 'npm', created: '2026-10-01T00:00:00Z' },
      ],
    });
    const gitea = await startGitea({
      owner: 'acme',
      collaborators: [],
      issues: [{ number: 1, created: '2026-11-01T00:00:00Z', author: 'alice' }],
      timeline: [{ issue: 1, type: 'comment', created: '2026-11-03T00:00:00Z', user: 'acme' }],
      runs: [{ created: '2026-11-10T00:00:00Z', status: 'success' }],
      releases: [{ tag: 'v2.0.0', published: '2026-10-01T00:00:00Z' }],
      packages: [
        {
          name: 'widget',
          version: '2.0.0',
          type: 'npm',
          created: '2026-10-01T00:00:00Z',
          repository: 'acme/widget',
        },
      ],
    });
    const index = await startEcosystemsIndex(25);
    servers.push(github, gitlab, gitea, index);
    writeFileSync(
      config,
      [
        'shape: A',
        'store: store',
        'scan:\n  mirrors: mirrors\n  retries: 0',
        'hosts:',
        `  github.com: { kind: github, apiUrl: "${github.url}", tokenEnv: E2E_GITHUB_TOKEN, requestsPerSecond: 1000 }`,
        // A token: without one GitLab answers no notes or members (see the anonymous test).
        `  gitlab.example: { kind: gitlab, apiUrl: "${gitlab.url}", tokenEnv: E2E_GITLAB_TOKEN, requestsPerSecond: 1000 }`,
        `  forge.example: { kind: gitea, apiUrl: "${gitea.url}", requestsPerSecond: 1000 }`,
        `dependents: { source: ecosyste.ms, apiUrl: "${index.url}" }`,
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(root, 'repos.txt'),
      URLS.map((u) => `${u} mirror=widget.git`).join('\n') + '\n',
    );
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('scans every forge kind, and both shapes build with --strict with a value for every scanned rule', async () => {
    const scan = await runCommand(
      [
        'scan',
        '--config',
        config,
        '--repos',
        join(root, 'repos.txt'),
        '--store',
        join(root, 'store'),
        '--as-of',
        String(E),
        '--json',
      ],
      { env: { E2E_GITHUB_TOKEN: 'ghp-e2e-secret', E2E_GITLAB_TOKEN: 'glpat-e2e-secret' } },
    );
    expect(scan.stderr).toBe('');
    expect(scan.code).toBe(0);
    const summary = JSON.parse(scan.stdout);
    expect(summary).toMatchObject({ repositories: 3, measured: 3, failed: 0, unmeasured: [] });
    expect(summary.forgeRequests).toBeGreaterThan(10);
    for (const s of servers) expect(s.violations).toEqual([]);
    expect(
      servers[0]!.requests.every((q) => q.headers.authorization === 'Bearer ghp-e2e-secret'),
    ).toBe(true);

    for (const [i, file] of [
      'github.com/acme/widget',
      'gitlab.example/acme/widget',
      'forge.example/acme/widget',
    ].entries()) {
      const text = readFileSync(join(root, 'store', `${file}.ndjson`), 'utf8');
      expect(text).not.toContain('ghp-e2e-secret');
      const record = JSON.parse(text);
      expect(record.repositoryUrl).toBe(URLS[i]);
      expect(record.values.ISSUE_REACTION_TIME).toBe(2);
      expect(record.values.DEPENDENTS).toBe(25);
      // git's tag and the forge's release, united.
      expect(record.values.RELEASES).toEqual({ events: [utc(2026, 8, 5), utc(2026, 10, 1)] });
      expect(record.values.PACKAGES).toEqual({ events: [utc(2026, 10, 1)] });
      expect((record.values.CI_PIPELINE as { events: number[] }).events.length).toBeGreaterThan(0);
      for (const [rule, v] of Object.entries(record.values))
        expect([rule, v]).not.toEqual([rule, null]);
    }

    for (const shape of ['A', 'B']) {
      const out = join(root, `dist-${shape}`);
      const build = await runCommand([
        'build',
        '--config',
        config,
        '--store',
        join(root, 'store'),
        '--out',
        out,
        '--shape',
        shape,
        '--strict',
        '--now',
        String(E),
      ]);
      expect(build.code, build.stderr).toBe(0);
      for (const url of URLS) {
        const sarif = JSON.parse(
          readFileSync(join(out, 'api/v1/repositories', encodeURIComponent(url), 'sarif'), 'utf8'),
        );
        const results = sarif.runs[0].results as Array<{
          ruleId: string;
          properties: { value: unknown };
        }>;
        const scanned = results.filter((r) => !r.ruleId.startsWith('MANUAL/'));
        expect(scanned.length).toBeGreaterThan(0);
        for (const r of scanned)
          expect([r.ruleId, r.properties.value]).not.toContainEqual(shape === 'A' ? null : '<nil>');
      }
    }
  });

  it("a later scan asks GitHub's lists with the last scan's ETags; no token is kept beside the mirrors", async () => {
    const store = join(root, 'store-etags');
    const args = (at: number) => [
      'scan',
      '--config',
      config,
      '--repos',
      join(root, 'repos.txt'),
      '--store',
      store,
      '--as-of',
      String(at),
      '--json',
    ];
    const env = {
      env: { E2E_GITHUB_TOKEN: 'ghp-e2e-secret', E2E_GITLAB_TOKEN: 'glpat-e2e-secret' },
    };
    await runCommand(args(E), env);
    const before = servers[0]!.notModified();
    const second = JSON.parse((await runCommand(args(E + 86_400), env)).stdout);
    expect(second).toMatchObject({ measured: 3, failed: 0 });
    // A day later, the same month: its run list (asked for whole months) and its releases are
    // the same URLs, both answered 304, not counted against GitHub's limit; the issues' GraphQL
    // query (the repository's lookup too) is asked again.
    const free = servers[0]!.notModified() - before;
    expect(free).toBe(2);
    expect(second.forgeRequestsCounted).toBe(second.forgeRequests - free);
    const kept = readdirSync(join(root, 'mirrors'), { recursive: true }).filter((f) =>
      String(f).endsWith('.forge.json'),
    );
    // GitLab's and Forgejo's APIs answer no conditional request worth sending
    // (docs/reference/scan.md): their files keep no answer, only the reactions their issues'
    // lists yielded, for the issues unchanged at the next scan.
    expect(kept.map((f) => String(f).split(/[\\/]/)[0]).sort()).toEqual([
      'forge.example',
      'github.com',
      'gitlab.example',
    ]);
    for (const f of kept) {
      const text = readFileSync(join(root, 'mirrors', String(f)), 'utf8');
      for (const token of ['ghp-e2e-secret', 'glpat-e2e-secret']) expect(text).not.toContain(token);
      if (!String(f).startsWith('github.com')) expect(JSON.parse(text).answers).toEqual({});
    }
  });

  it('an API failure nulls only the rules that needed it, names its cause once, and exits 1', async () => {
    const refusing = await startGitHub({
      // A bad token: GitHub answers 401 on REST and GraphQL alike.
      override: (t) =>
        t === '/repos/{owner}/{repo}' || t === '/graphql'
          ? { status: 401, body: GH_ERROR('Bad credentials') }
          : undefined,
    });
    servers.push(refusing);
    const cfg = join(root, 'refusing.yaml');
    writeFileSync(
      cfg,
      readFileSync(config, 'utf8').replace(
        /github\.com: \{[^}]*\}/,
        `github.com: { kind: github, apiUrl: "${refusing.url}", tokenEnv: E2E_GITHUB_TOKEN }`,
      ),
    );
    const r = await runCommand(
      [
        'scan',
        '--config',
        cfg,
        '--repos',
        join(root, 'repos.txt'),
        '--store',
        join(root, 'store-refused'),
        '--as-of',
        String(E),
      ],
      {
        env: { E2E_GITHUB_TOKEN: 'ghp-e2e-secret', E2E_GITLAB_TOKEN: 'glpat-e2e-secret' },
      },
    );
    expect(r.code).toBe(1);
    const cause =
      'GitHub API: 401 bad or missing credentials (check the token in $E2E_GITHUB_TOKEN)';
    expect(r.stderr).toBe(
      `badgepress: repos.txt:1 https://github.com/acme/widget: ${cause}\n`.replace(
        'repos.txt',
        join(root, 'repos.txt'),
      ),
    );
    expect(r.stdout).toContain('3 measured');
    expect(r.stdout + r.stderr).not.toContain('ghp-e2e-secret');
    const record = JSON.parse(
      readFileSync(join(root, 'store-refused/github.com/acme/widget.ndjson'), 'utf8'),
    );
    expect(record.values).toMatchObject({
      ISSUE_REACTION_TIME: null,
      CI_PIPELINE: null,
      PACKAGES: null,
      BUS_FACTOR: 1,
      SECURITY_POLICY: true,
      DEPENDENTS: 25,
    });
    expect(record.evidence.CI_PIPELINE).toBe(cause);
    // RELEASES has a value from git: the failure nulls only the rules that needed the API (issue
    // K, item 7), so git's one tag (v1.0.0, tagged 2026-08-05) stands, and the evidence says
    // the forge's releases were not read.
    expect(record.values.RELEASES).toEqual({ events: [utc(2026, 8, 5)] });
    expect(record.evidence.RELEASES).toMatch(
      /^1 tag dated in the 12 months to .*; forge releases not read: GitHub API: 401 bad or missing credentials/,
    );
    const other = JSON.parse(
      readFileSync(join(root, 'store-refused/gitlab.example/acme/widget.ndjson'), 'utf8'),
    );
    expect(other.values.ISSUE_REACTION_TIME).toBe(2);
  });

  it('no token leaves its origin by a redirect, nor reaches the store or output (issue 36 R3-2, R3-3)', async () => {
    // Canary tokens, lower case so that one can stand in a host name a redirect names.
    const [ghToken, glToken, fjToken] = [
      'canary-gh-5a0c19',
      'canary-gl-3b9e71',
      'canary-fj-8c2d45',
    ];
    const elsewhere = await startGitHub({});
    // GitHub through Octokit (its retry and throttling plugins on) and the dependency index,
    // each sent to the other server: the same loopback host on another port, another origin.
    const moved = (to: string) => ({
      status: 0,
      raw: (res: ServerResponse) => res.writeHead(301, { location: to }).end(),
    });
    const github = await startGitHub({
      // A release, so the GraphQL query counts one and the REST release list is asked.
      releases: [{ tag: 'v9.9.9', published: '2026-11-01T00:00:00Z' }],
      override: (t) =>
        t === '/repos/{owner}/{repo}/releases'
          ? moved(`${elsewhere.url}/repos/acme/widget/releases`)
          : undefined,
    });
    const index = await startForgeServer(
      [{ template: '/packages/lookup', reply: () => moved(`${elsewhere.url}/packages/lookup`) }],
      () => [],
    );
    const gitlab = await startGitLab({
      override: (t) =>
        t === '/projects/{id}'
          ? {
              status: 0,
              raw: (res) =>
                res.writeHead(302, { location: `${elsewhere.url}/api/v4/projects/1` }).end(),
            }
          : undefined,
    });
    const gitea = await startGitea({
      owner: 'acme',
      runs: [],
      override: (t) =>
        t === '/repos/{owner}/{repo}/releases'
          ? {
              status: 0,
              raw: (res) =>
                res.writeHead(307, { location: `http://${fjToken}.invalid/releases` }).end(),
            }
          : undefined,
    });
    servers.push(elsewhere, github, index, gitlab, gitea);
    const cfg = join(root, 'redirecting.yaml');
    const text = readFileSync(config, 'utf8')
      .replace(
        /github\.com: \{[^}]*\}/,
        `github.com: { kind: github, apiUrl: "${github.url}", tokenEnv: E2E_GITHUB_TOKEN }`,
      )
      .replace(/apiUrl: "[^"]*" \}\n$/, `apiUrl: "${index.url}" }\n`)
      .replace(
        /gitlab\.example: \{[^}]*\}/,
        `gitlab.example: { kind: gitlab, apiUrl: "${gitlab.url}", tokenEnv: E2E_GITLAB_TOKEN }`,
      )
      .replace(
        /forge\.example: \{[^}]*\}/,
        `forge.example: { kind: gitea, apiUrl: "${gitea.url}", tokenEnv: E2E_GITEA_TOKEN }`,
      );
    writeFileSync(cfg, text);
    const storeDir = join(root, 'store-redirected');
    const r = await runCommand(
      [
        'scan',
        '--config',
        cfg,
        '--repos',
        join(root, 'repos.txt'),
        '--store',
        storeDir,
        '--as-of',
        String(E),
      ],
      {
        env: { E2E_GITHUB_TOKEN: ghToken, E2E_GITLAB_TOKEN: glToken, E2E_GITEA_TOKEN: fjToken },
      },
    );
    expect(r.code).toBe(1);
    expect(elsewhere.requests).toEqual([]);
    // One lookup per repository (three), none followed to the other server.
    expect(index.requests).toHaveLength(3);
    for (const [server, header, token] of [
      [github, 'authorization', `Bearer ${ghToken}`],
      [gitlab, 'private-token', glToken],
      [gitea, 'authorization', `token ${fjToken}`],
    ] as const) {
      expect(server.requests.length).toBeGreaterThan(0);
      for (const q of server.requests) expect(q.headers[header]).toBe(token);
    }
    const gl = new URL(gitlab.url).origin;
    expect(r.stderr).toContain(
      `GitLab API: /projects/acme%2Fwidget answered 302, a redirect to another origin (${new URL(elsewhere.url).origin}); not followed, the token goes to ${gl} only`,
    );
    expect(r.stderr).toContain(
      'Forgejo/Gitea API: /repos/acme/widget/releases answered 307, a redirect to another origin (http://***.invalid); not followed',
    );
    const gh = new URL(github.url).origin;
    const away = new URL(elsewhere.url).origin;
    expect(r.stderr).toContain(
      `GitHub API: /repos/acme/widget/releases answered 301, a redirect to another origin (${away}); not followed, the token goes to ${gh} only`,
    );
    expect(r.stderr).toContain(
      `ecosyste.ms API: /packages/lookup answered 301, a redirect to another origin (${away}); not followed`,
    );
    const stored = ['github.com', 'gitlab.example', 'forge.example']
      .map((h) => readFileSync(join(storeDir, h, 'acme/widget.ndjson'), 'utf8'))
      .join('\n');
    for (const token of [ghToken, glToken, fjToken])
      for (const out of [r.stdout, r.stderr, stored]) expect(out).not.toContain(token);
  });

  it('GitLab without a token: ISSUE_REACTION_TIME unknown, named, issues on or off; the rest measured', async () => {
    // Two public projects, issues on (one issue, a maintainer's note) and off. Anonymously
    // GitLab answers GET /projects/:id in its short form, with no issues field, the issues
    // list with [] when they are off, and notes and members with 401: neither "Issues are
    // disabled" nor "no issue" may be written, nor may the other rules fail.
    const project = {
      pipelines: [{ created: '2026-11-10T00:00:00Z', status: 'success' }],
      releases: [{ tag: 'v2.0.0', released: '2026-10-01T00:00:00Z' }],
      packages: [
        { name: 'widget', version: '2.0.0', type: 'npm', created: '2026-10-01T00:00:00Z' },
      ],
    };
    const on = await startGitLab({
      ...project,
      members: [{ username: 'maint', access: 40 }],
      issues: [{ iid: 1, created: '2026-11-01T00:00:00Z', author: { username: 'alice' } }],
      notes: [
        {
          issue: 1,
          created: '2026-11-03T00:00:00Z',
          author: { username: 'maint' },
          body: 'On it.',
        },
      ],
    });
    const off = await startGitLab({ ...project, issuesAccess: 'disabled' });
    servers.push(on, off);
    const cfg = join(root, 'anonymous.yaml');
    writeFileSync(
      cfg,
      [
        'shape: A',
        'store: store',
        'scan:\n  mirrors: mirrors\n  retries: 0',
        'hosts:',
        `  gitlab.example: { kind: gitlab, apiUrl: "${on.url}", requestsPerSecond: 1000 }`,
        `  gitlab-off.example: { kind: gitlab, apiUrl: "${off.url}", requestsPerSecond: 1000 }`,
        '',
      ].join('\n'),
    );
    const list = join(root, 'anonymous.txt');
    const urls = ['https://gitlab.example/acme/widget', 'https://gitlab-off.example/acme/widget'];
    writeFileSync(list, urls.map((u) => `${u} mirror=widget.git`).join('\n') + '\n');
    const storeDir = join(root, 'store-anonymous');
    const r = await runCommand([
      'scan',
      '--config',
      cfg,
      '--repos',
      list,
      '--store',
      storeDir,
      '--as-of',
      String(E),
    ]);
    for (const s of [on, off]) {
      expect(s.violations).toEqual([]);
      expect(s.requests.every((q) => q.headers['private-token'] === undefined)).toBe(true);
    }
    const cause =
      "GitLab API: without a token GitLab does not say whether this project's issues are on, and answers its members, notes and resource events with 401: set a token through hosts: tokenEnv";
    // Ours, not the projects': named per repository (exit 1), measured again once a token is set.
    expect(r.code).toBe(1);
    // Both repositories are measured at once: the lines come in either order.
    expect(r.stderr.split('\n').filter(Boolean).sort()).toEqual(
      urls.map((u, i) => `badgepress: ${list}:${i + 1} ${u}: ${cause}`).sort(),
    );
    for (const host of ['gitlab.example', 'gitlab-off.example']) {
      const record = JSON.parse(readFileSync(join(storeDir, host, 'acme/widget.ndjson'), 'utf8'));
      expect([
        host,
        record.values.ISSUE_REACTION_TIME,
        record.evidence.ISSUE_REACTION_TIME,
      ]).toEqual([host, null, cause]);
      expect(record.failed).toEqual(['ISSUE_REACTION_TIME']);
      expect(record.values.CI_PIPELINE).toEqual({ events: [utc(2026, 11, 10)] });
      expect(record.values.RELEASES).toEqual({ events: [utc(2026, 8, 5), utc(2026, 10, 1)] });
      expect(record.values.PACKAGES).toEqual({ events: [utc(2026, 10, 1)] });
    }
    // Nothing asked that GitLab refuses a caller signed out: no issues, notes or members.
    for (const s of [on, off])
      expect(
        s.requests.filter((q) => /\/(issues|members)/.test(q.path)).map((q) => q.path),
      ).toEqual([]);
  });

  it('--forge never asks neither the forges nor the dependency index: DEPENDENTS is not asked too', async () => {
    const seen = () => servers.map((s) => s.requests.length);
    const before = seen();
    const r = await runCommand([
      'scan',
      '--config',
      config,
      '--repos',
      join(root, 'repos.txt'),
      '--store',
      join(root, 'store-git-alone'),
      '--as-of',
      String(E),
      '--forge',
      'never',
      '--json',
    ]);
    // What the stand-ins saw: not one request, the index's included.
    expect(seen()).toEqual(before);
    expect(r.stderr).toBe('');
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ measured: 3, failed: 0, exitCode: 0, unmeasured: [] });
    // The summary names the rules the (shipped Shape A) thresholds judge; the record holds every
    // rule not asked, CI_PIPELINE too.
    expect(summary.notAsked).toEqual([
      { rules: ['DEPENDENTS', 'ISSUE_REACTION_TIME'], why: '--forge never (git alone)' },
    ]);
    const record = JSON.parse(
      readFileSync(join(root, 'store-git-alone/forge.example/acme/widget.ndjson'), 'utf8'),
    );
    for (const rule of ['CI_PIPELINE', 'DEPENDENTS'])
      expect([rule, record.values[rule], record.evidence[rule]]).toEqual([
        rule,
        null,
        'not asked: --forge never (git alone)',
      ]);
  });
});
