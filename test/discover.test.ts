// `badgepress discover` and `scan --source`: the repositories of a GitLab group (nested
// subgroups), a GitHub organisation, user or Enterprise Server, a Forgejo organisation, user
// or instance, listed by loopback stand-ins that answer as each forge documents (paging
// included) and hold archived ones, forks, mirrors, private and internal ones. Expected lists
// are written out by hand from the catalogues below.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from './helpers/cli-in-process.ts';
import { childEnv, CLI, ROOT } from './helpers/cli.ts';
import { spawn, spawnSync } from 'node:child_process';
import { loadSettings } from '../src/config/load.ts';
import { listingProgress } from '../src/measure/forge/sources.ts';
import { startGitHttp, type GitHttpServer } from './helpers/git-http.ts';
import { utc, WorkRepo } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';
import { storeFileName } from '../src/store/record-line.ts';
import type { Catalogue, CatalogueRepo } from '../scripts/lib/forge-peers/catalogue.ts';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';
import { startGitHub } from '../scripts/lib/forge-peers/github.ts';
import { startGitLab } from '../scripts/lib/forge-peers/gitlab.ts';
import { startGitea } from '../scripts/lib/forge-peers/gitea.ts';

const GITLAB: Catalogue = {
  web: 'https://gitlab.example',
  repos: [
    { path: 'acme/Widget' },
    { path: 'acme/tools/deep/Gadget', topics: ['cli'] },
    { path: 'acme/tools/old', archived: true },
    { path: 'acme/tools/fork', fork: true },
    { path: 'acme/mirror', mirror: true },
    { path: 'acme/tools/secret', visibility: 'private' },
    { path: 'acme/inner', visibility: 'internal' },
    { path: 'acme/tools/deep/moved-here' },
    { path: 'other/thing' },
    { path: 'alice/notes' },
  ],
  renamed: { 'acme/moved': 'acme/tools/deep/moved-here' },
  users: ['alice'],
};

const GITHUB: Catalogue = {
  web: 'https://github.com',
  repos: [
    { path: 'Acme/Widget' },
    { path: 'Acme/New-Name' },
    { path: 'Acme/archive', archived: true },
    { path: 'Acme/private-plans', visibility: 'private' },
    { path: 'Acme/inner-source', visibility: 'internal' },
    { path: 'Acme/fork', fork: true },
    { path: 'bob/dotfiles' },
    { path: 'bob/hidden', visibility: 'private' },
  ],
  renamed: { 'acme/old-name': 'Acme/New-Name' },
  users: ['bob'],
};

const FORGEJO: Catalogue = {
  web: 'https://forge.example',
  repos: [
    { path: 'forge/app' },
    { path: 'forge/private-app', visibility: 'private' },
    { path: 'forge/members-only', visibility: 'internal' },
    { path: 'forge/attic', archived: true },
    { path: 'forge/upstream-copy', mirror: true },
    { path: 'forge/renamed-now' },
    { path: 'carol/site' },
    // Not private, in an organisation signed-in users alone may see (`limited`).
    { path: 'guild/plans', visibility: 'internal' },
  ],
  renamed: { 'forge/renamed-then': 'forge/renamed-now' },
  users: ['carol'],
  limitedOwners: ['guild'],
};

describe('badgepress discover', () => {
  const root = tempDir('badgepress-discover-');
  const config = join(root, 'badgepress.yaml');
  let gitlab: ForgeServer;
  let github: ForgeServer;
  let forgejo: ForgeServer;
  // Every token sees every repository: the stand-ins take a token as a member's.
  const env = { T_GL: 'glpat-discover', T_GH: 'ghp_discover', T_FJ: 'fj-discover' };

  const writeConfig = (file: string, extra: string[] = []) =>
    writeFileSync(
      file,
      [
        'hosts:',
        `  gitlab.example: { kind: gitlab, apiUrl: "${gitlab.url}", tokenEnv: T_GL, requestsPerSecond: 1000 }`,
        `  github.com: { kind: github, apiUrl: "${github.url}", tokenEnv: T_GH, requestsPerSecond: 1000 }`,
        `  forge.example: { kind: gitea, apiUrl: "${forgejo.url}", tokenEnv: T_FJ, requestsPerSecond: 1000 }`,
        ...extra,
        '',
      ].join('\n'),
    );
  const discover = (args: string[], file = config) =>
    runCommand(['discover', '--config', file, ...args], { env });

  beforeAll(async () => {
    // Small pages: every list is read over several pages to its end.
    gitlab = await startGitLab({ catalogue: GITLAB, pageCap: 2 });
    github = await startGitHub({ catalogue: GITHUB, pageCap: 2 });
    forgejo = await startGitea({ owner: 'forge', catalogue: FORGEJO, pageCap: 2 });
    writeConfig(config);
  });
  afterAll(async () => {
    for (const s of [gitlab, github, forgejo]) await s?.close();
  });

  it('lists the public projects of a GitLab group and all its subgroups, sorted, paged to the end', async () => {
    const before = gitlab.requests.length;
    const r = await discover(['https://gitlab.example/acme']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'https://gitlab.example/acme/Widget',
        'https://gitlab.example/acme/tools/deep/Gadget',
        'https://gitlab.example/acme/tools/deep/moved-here',
        '',
      ].join('\n'),
    );
    const asked = gitlab.requests.slice(before);
    // Public, not archived: acme/Widget, tools/deep/Gadget, tools/fork, mirror, moved-here: 5, 2 a page.
    expect(asked.map((q) => q.query.get('page') ?? '1')).toEqual(['1', '2', '3']);
    for (const q of asked) {
      expect(q.path).toBe('/api/v4/groups/acme/projects');
      expect(Object.fromEntries(q.query)).toMatchObject({
        include_subgroups: 'true',
        with_shared: 'false',
        archived: 'false',
        visibility: 'public',
      });
    }
    expect(gitlab.violations).toEqual([]);
  });

  it("keeps what a source's filters say, and warns that private and internal names are published", async () => {
    const file = join(root, 'filters.yaml');
    writeConfig(file, [
      'sources:',
      '  - url: https://gitlab.example/acme/tools',
      '    archived: true',
      '    forks: true',
      '    visibility: [public, private]',
      '    exclude: ["/deep/"]',
      '  - url: https://gitlab.example/acme',
      '    topics: [cli]',
    ]);
    const r = await discover([], file);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'https://gitlab.example/acme/tools/deep/Gadget',
        'https://gitlab.example/acme/tools/fork',
        'https://gitlab.example/acme/tools/old',
        'https://gitlab.example/acme/tools/secret',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe(
      `badgepress: warning: ${file}:6: https://gitlab.example/acme/tools keeps private repositories: the site publishes their names, URLs and badges to anyone who can read it\n`,
    );
  });

  it('names a pattern RE2 refuses with file:line', async () => {
    const file = join(root, 'bad-pattern.yaml');
    writeConfig(file, [
      'sources:',
      '  - url: https://gitlab.example/acme',
      '    include: ["(?=x)"]',
    ]);
    const r = await discover([], file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${file}:7 sources[0].include[0]: "(?=x)" is an invalid regular expression (RE2 syntax)`,
    );
  });

  it('never lists private or internal repositories by default, though the token sees them', async () => {
    // A Forgejo organisation's list has no visibility filter: the token sees all of them.
    const before = forgejo.requests.length;
    const org = await discover(['https://forge.example/forge']);
    expect(org.code).toBe(0);
    expect(org.stdout).toBe(
      'https://forge.example/forge/app\nhttps://forge.example/forge/renamed-now\n',
    );
    expect(
      forgejo.requests.slice(before).every((q) => q.headers.authorization === 'token fj-discover'),
    ).toBe(true);
    // An Enterprise Server's /repositories lists internal ones to a signed-in user.
    const all = await discover(['https://github.com/']);
    expect(all.code).toBe(0);
    expect(all.stdout).toBe(
      [
        'https://github.com/Acme/New-Name',
        'https://github.com/Acme/Widget',
        'https://github.com/bob/dotfiles',
        '',
      ].join('\n'),
    );
    expect(github.violations).toEqual([]);
    expect(forgejo.violations).toEqual([]);
  });

  it("never lists a Forgejo repository that only the instance's signed-in users may see", async () => {
    // Forgejo answers guild/plans with private: false and internal: false (internal is for an
    // owner of members only); its owner's visibility, limited, is what keeps anonymous out.
    const org = await discover(['https://forge.example/guild', 'https://forge.example/']);
    expect(org.stderr).toBe('');
    expect(org.stdout).toBe(
      [
        'https://forge.example/carol/site',
        'https://forge.example/forge/app',
        'https://forge.example/forge/renamed-now',
        '',
      ].join('\n'),
    );
    const file = join(root, 'limited.yaml');
    writeConfig(file, [
      'sources:',
      '  - url: https://forge.example/guild',
      '    visibility: [public, internal]',
    ]);
    const kept = await discover([], file);
    expect(kept.stdout).toBe('https://forge.example/guild/plans\n');
    expect(forgejo.violations).toEqual([]);
  });

  it("lists a GitHub organisation or user in the forge's own case, whatever the source's", async () => {
    const r = await discover(['https://github.com/ACME', 'https://github.com/bob']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        'https://github.com/Acme/New-Name',
        'https://github.com/Acme/Widget',
        'https://github.com/bob/dotfiles',
        '',
      ].join('\n'),
    );
    const paths = github.requests.map((q) => `${q.path}?${q.query.get('type')}`);
    expect(paths).toContain('/orgs/ACME/repos?public');
    // bob is a user: the organisation list answers 404, the user's list follows.
    expect(paths).toContain('/orgs/bob/repos?public');
    expect(paths).toContain('/users/bob/repos?owner');
  });

  it("lists a GitLab user's namespace when no group has the path", async () => {
    const r = await discover(['https://gitlab.example/alice']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('https://gitlab.example/alice/notes\n');
    expect(gitlab.requests.slice(-2).map((q) => q.path)).toEqual([
      '/api/v4/groups/alice/projects',
      '/api/v4/users/alice/projects',
    ]);
  });

  it('lists a GitLab instance and user without a token, from the short form GitLab answers then', async () => {
    // Anonymous, GitLab lists /projects and /users/:id/projects in its short form (no
    // visibility, archived, forked_from_project or mirror): only public projects, archived
    // ones left out by the server when asked (archived=false); forks and mirrors cannot be
    // told apart, so this source keeps them. A group's list comes whole to anyone.
    const anonymous = { ...env, T_GL: undefined };
    const file = join(root, 'anonymous.yaml');
    const keepAll = ['    forks: true', '    mirrors: true'];
    writeConfig(file, [
      'sources:',
      '  - url: https://gitlab.example/',
      ...keepAll,
      '  - url: https://gitlab.example/alice',
      ...keepAll,
    ]);
    const before = gitlab.requests.length;
    const r = await runCommand(['discover', '--config', file], { env: anonymous });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'https://gitlab.example/acme/Widget',
        'https://gitlab.example/acme/mirror',
        'https://gitlab.example/acme/tools/deep/Gadget',
        'https://gitlab.example/acme/tools/deep/moved-here',
        'https://gitlab.example/acme/tools/fork',
        'https://gitlab.example/alice/notes',
        'https://gitlab.example/other/thing',
        '',
      ].join('\n'),
    );
    const asked = gitlab.requests.slice(before);
    expect(asked.every((q) => q.headers['private-token'] === undefined)).toBe(true);
    expect(asked.find((q) => q.path === '/api/v4/projects')?.query.get('archived')).toBe('false');
    expect(
      asked.find((q) => q.path === '/api/v4/users/alice/projects')?.query.get('archived'),
    ).toBe('false');
    // A group's projects come whole: its forks and mirrors are left out as by default.
    const group = await runCommand(
      ['discover', '--config', config, 'https://gitlab.example/acme'],
      {
        env: anonymous,
      },
    );
    expect(group.stdout).toBe(
      [
        'https://gitlab.example/acme/Widget',
        'https://gitlab.example/acme/tools/deep/Gadget',
        'https://gitlab.example/acme/tools/deep/moved-here',
        '',
      ].join('\n'),
    );
    // A known project the group no longer lists is looked up: GitLab answers an anonymous
    // GET /projects/:id without visibility or archived, yet only for a public project.
    const repos = join(root, 'anonymous-kept.txt');
    writeFileSync(repos, 'https://gitlab.example/acme/tools/old\n');
    const left = await runCommand(
      ['discover', '--config', config, '--repos', repos, '--json', 'https://gitlab.example/acme'],
      { env: anonymous },
    );
    expect(JSON.parse(left.stdout).left).toEqual([
      { url: 'https://gitlab.example/acme/tools/old', why: 'the source no longer lists it' },
    ]);
    expect(gitlab.violations).toEqual([]);
  });

  it('names the filters an anonymous GitLab list cannot apply, and lists nothing from it', async () => {
    const r = await runCommand(
      ['discover', '--config', config, 'https://gitlab.example/', 'https://gitlab.example/alice'],
      { env: { ...env, T_GL: undefined } },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    for (const source of ['https://gitlab.example', 'https://gitlab.example/alice'])
      expect(r.stderr).toContain(
        `argument: ${source}: GitLab API: without a token GitLab lists these projects in its short form, with no forked_from_project or mirror field: the source's forks: false and mirrors: false cannot be applied; set a token in $T_GL, or keep forks and mirrors (forks: true, mirrors: true); nothing listed`,
      );
    expect(gitlab.violations).toEqual([]);
  });

  it("the guide's config blocks load as written", async () => {
    const guide = readFileSync(join(ROOT, 'docs/guides/whole-organisation.md'), 'utf8');
    const blocks = [...guide.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    for (const [i, block] of blocks.entries()) {
      const file = join(root, `guide-${i}.yaml`);
      writeFileSync(file, block);
      const settings = await loadSettings(file, { store: '.' });
      if (block.includes('sources:')) expect(settings.sources.length).toBeGreaterThan(0);
    }
  });

  it('lists a Forgejo user and a whole instance (GET /repos/search)', async () => {
    const r = await discover(['https://forge.example/carol', 'https://forge.example']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        'https://forge.example/carol/site',
        'https://forge.example/forge/app',
        'https://forge.example/forge/renamed-now',
        '',
      ].join('\n'),
    );
    expect(forgejo.violations).toEqual([]);
  });

  it('reports a renamed or transferred repository old → new, and why one left', async () => {
    const repos = join(root, 'kept.txt');
    writeFileSync(
      repos,
      [
        'https://github.com/acme/old-name', // renamed: 301 to /repositories/{id}
        'https://github.com/acme/widget', // the forge's case is Acme/Widget
        'https://github.com/Acme/archive', // archived since
        'https://github.com/Acme/gone', // deleted
        'https://gitlab.example/acme/moved', // transferred into a subgroup
        'https://gitlab.example/acme/Widget.git', // the same project, named with .git
        'https://forge.example/forge/renamed-then', // renamed: 307 to the new path
        'https://forge.example/forge/private-app', // made private
        'https://elsewhere.example/x/y', // on no source's host: not asked
        '',
      ].join('\n'),
    );
    const r = await discover([
      '--repos',
      repos,
      '--json',
      'https://github.com/acme',
      'https://gitlab.example/acme',
      'https://forge.example/forge',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.moved).toEqual([
      {
        from: 'https://forge.example/forge/renamed-then',
        to: 'https://forge.example/forge/renamed-now',
      },
      { from: 'https://github.com/acme/old-name', to: 'https://github.com/Acme/New-Name' },
      { from: 'https://github.com/acme/widget', to: 'https://github.com/Acme/Widget' },
      { from: 'https://gitlab.example/acme/Widget.git', to: 'https://gitlab.example/acme/Widget' },
      {
        from: 'https://gitlab.example/acme/moved',
        to: 'https://gitlab.example/acme/tools/deep/moved-here',
      },
    ]);
    expect(out.left).toEqual([
      { url: 'https://forge.example/forge/private-app', why: 'private (the source keeps public)' },
      {
        url: 'https://github.com/Acme/archive',
        why: 'archived (the source leaves archived ones out)',
      },
      {
        url: 'https://github.com/Acme/gone',
        why: 'the forge answers 404: deleted, or not visible to the token (made private?)',
      },
    ]);
    expect([github, gitlab, forgejo].flatMap((s) => s.violations)).toEqual([]);
  });

  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'draws a live line on a terminal while it lists, and clears it',
    async () => {
      // A pseudo-terminal from util-linux `script`, run without blocking: the stand-in answers from this process.
      const cmd = [...CLI, 'discover', '--config', config, 'https://gitlab.example/acme']
        .map((a) => `'${a}'`)
        .join(' ');
      const out = await new Promise<string>((done, fail) => {
        const child = spawn('script', ['-qec', cmd, '/dev/null'], {
          env: childEnv({ ...env, CI: undefined }),
        });
        let text = '';
        child.stdout.on('data', (b: Buffer) => (text += b.toString('utf8')));
        child.on('error', fail);
        child.on('close', () => done(text));
      });
      expect(out).toContain('\r\x1b[Kdiscover: 2 repositories listed');
      // Cleared before the list: the list's lines are whole.
      expect(out).toContain('\r\x1b[Khttps://gitlab.example/acme/Widget');
    },
  );

  it('names a source it cannot list and lists the others', async () => {
    const r = await discover([
      'https://gitlab.example/nobody',
      'https://unknown.example/x',
      'https://github.com/acme/widget',
      'https://codeberg.org/',
      'https://forge.example/carol',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('https://forge.example/carol/site\n');
    expect(r.stderr).toContain(
      'argument: https://gitlab.example/nobody: GitLab API: 404 not found or not visible to the token; nothing listed',
    );
    expect(r.stderr).toContain(
      'argument: https://unknown.example/x: no forge API is known for unknown.example; add hosts: unknown.example:',
    );
    // A known public forge's root would list millions; a configured host's root is its instance.
    expect(r.stderr).toContain(
      'argument: https://codeberg.org: names every repository of codeberg.org, a public forge; name an organisation, user or group (https://codeberg.org/NAME)',
    );
    expect(r.stderr).toContain(
      'argument: https://github.com/acme/widget: names a repository, not an organisation or user; list it in the repos file, or name https://github.com/acme',
    );
  });

  it('discovers 10,000 projects across nested subgroups in 100 requests (100 a page, public and not archived asked of the server)', async () => {
    // 10,000 projects in 3 levels of subgroups; every 7th private, every 11th archived, every 13th a fork.
    const repos: CatalogueRepo[] = [];
    for (let i = 0; i < 10_000; i++) {
      repos.push({
        path: `big/g${i % 10}/s${i % 9}/d${i % 4}/p${i}`,
        ...(i % 7 === 0 ? { visibility: 'private' as const } : {}),
        ...(i % 11 === 0 ? { archived: true } : {}),
        ...(i % 13 === 0 ? { fork: true } : {}),
      });
    }
    let served = 0;
    let kept = 0;
    for (let i = 0; i < 10_000; i++) {
      if (i % 7 !== 0 && i % 11 !== 0) served++;
      if (i % 7 !== 0 && i % 11 !== 0 && i % 13 !== 0) kept++;
    }
    const big = await startGitLab({ catalogue: { web: 'https://big.example', repos } });
    try {
      const file = join(root, 'big.yaml');
      writeFileSync(
        file,
        `hosts:\n  big.example: { kind: gitlab, apiUrl: "${big.url}", tokenEnv: T_GL, requestsPerSecond: 1000 }\n`,
      );
      const group = await discover(['--json', 'https://big.example/big'], file);
      const out = JSON.parse(group.stdout);
      expect(out.repositories).toHaveLength(kept);
      expect(out.repositories).toEqual([...out.repositories].sort());
      expect(out.requests).toBe(Math.ceil(served / 100));
      expect(big.requests).toHaveLength(Math.ceil(served / 100));
      // The whole instance by keyset pagination: the same projects, the same count.
      const instance = await discover(['--json', 'https://big.example/'], file);
      expect(JSON.parse(instance.stdout).repositories).toEqual(out.repositories);
      expect(JSON.parse(instance.stdout).requests).toBe(Math.ceil(served / 100));
      expect(big.violations).toEqual([]);
    } finally {
      await big.close();
    }
  }, 60_000);
});

describe('badgepress scan --source', () => {
  const root = tempDir('badgepress-scan-source-');
  let git: GitHttpServer;
  let forgejo: ForgeServer;

  beforeAll(async () => {
    const work = WorkRepo.init(join(root, 'work'));
    work.commit({ at: utc(2026, 10, 1) });
    mkdirSync(join(root, 'served', 'team'), { recursive: true });
    for (const name of ['one', 'two', 'three', 'deux'])
      work.bareClone(join(root, 'served', 'team', name));
    git = await startGitHttp(join(root, 'served'));
    forgejo = await startGitea({
      owner: 'team',
      catalogue: {
        web: git.url,
        repos: [
          { path: 'team/one' },
          { path: 'team/two' },
          { path: 'team/three' },
          { path: 'team/private', visibility: 'private' },
        ],
      },
      pageCap: 2,
    });
    const host = new URL(git.url).host;
    writeFileSync(
      join(root, 'badgepress.yaml'),
      [
        'store: store',
        'scan:\n  mirrors: mirrors\n  retries: 0',
        'hosts:',
        `  "${host}": { kind: gitea, apiUrl: "${forgejo.url}", tokenEnv: T_FJ, requestsPerSecond: 1000 }`,
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await git?.close();
    await forgejo?.close();
  });

  it('scans every public repository of a source, and n shards together scan each once', async () => {
    const config = join(root, 'badgepress.yaml');
    const run = (store: string, more: string[]) =>
      runCommand(
        [
          'scan',
          '--config',
          config,
          '--source',
          `${git.url}/team`,
          '--store',
          join(root, store),
          '--as-of',
          String(utc(2026, 11, 1)),
          '--forge',
          'never',
          '--json',
          ...more,
        ],
        { env: { T_FJ: 'fj-scan' } },
      );
    const whole = await run('store-whole', []);
    expect(whole.stderr).toBe('');
    const summary = JSON.parse(whole.stdout);
    expect(summary).toMatchObject({
      repositories: 3,
      measured: 3,
      failed: 0,
      exitCode: 0,
      sources: { repositories: 3, moved: [], left: [], requests: 2 },
    });
    const shards = await Promise.all([
      run('store-shards', ['--shard', '0/2']),
      run('store-shards', ['--shard', '1/2']),
    ]);
    const counts = shards.map((s) => JSON.parse(s.stdout).repositories as number);
    expect(counts[0]! + counts[1]!).toBe(3);
    expect(forgejo.violations).toEqual([]);
  });

  it("scans a GitLab instance's public projects without a token", async () => {
    // GitLab lists an anonymous GET /projects in its short form: every project public, the
    // archived one left out by the server; this source keeps forks and mirrors, which the
    // short form cannot tell apart.
    const gitlab = await startGitLab({
      catalogue: {
        web: git.url,
        repos: [
          { path: 'team/one' },
          { path: 'team/two', archived: true },
          { path: 'team/three' },
          { path: 'team/private', visibility: 'private' },
        ],
      },
      pageCap: 2,
    });
    try {
      const config = join(root, 'gitlab-anonymous.yaml');
      writeFileSync(
        config,
        [
          'store: store',
          'scan:\n  mirrors: mirrors\n  retries: 0',
          'hosts:',
          `  "${new URL(git.url).host}": { kind: gitlab, apiUrl: "${gitlab.url}", requestsPerSecond: 1000 }`,
          'sources:',
          `  - url: ${git.url}/`,
          '    forks: true',
          '    mirrors: true',
          '',
        ].join('\n'),
      );
      // No tokenEnv: the requests go without a token.
      const r = await runCommand([
        'scan',
        '--config',
        config,
        '--store',
        join(root, 'store-gitlab'),
        '--as-of',
        String(utc(2026, 11, 1)),
        '--forge',
        'never',
        '--json',
      ]);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toMatchObject({
        repositories: 2,
        measured: 2,
        failed: 0,
        exitCode: 0,
      });
      expect(gitlab.requests.every((q) => q.headers['private-token'] === undefined)).toBe(true);
      expect(gitlab.violations).toEqual([]);
    } finally {
      await gitlab.close();
    }
  });

  it("scans a GitLab group's projects without a token: issues readable, who answered not", async () => {
    // A group lists the full Project to anyone: issues on, readable by an anonymous caller, so
    // no lookup; an issue in the window needs members and notes, which answer 401 signed out.
    const gitlab = await startGitLab({
      catalogue: { web: git.url, repos: [{ path: 'team/one' }] },
      members: [{ username: 'maint', access: 40 }],
      issues: [{ iid: 1, created: '2026-10-10T00:00:00Z', author: { username: 'alice' } }],
      notes: [
        {
          issue: 1,
          created: '2026-10-11T00:00:00Z',
          author: { username: 'maint' },
          body: 'On it.',
        },
      ],
      pipelines: [{ created: '2026-10-12T00:00:00Z', status: 'success' }],
    });
    try {
      const config = join(root, 'gitlab-group-anonymous.yaml');
      const host = new URL(git.url).host;
      writeFileSync(
        config,
        [
          'store: store',
          'scan:\n  mirrors: mirrors\n  retries: 0',
          'hosts:',
          `  "${host}": { kind: gitlab, apiUrl: "${gitlab.url}", requestsPerSecond: 1000 }`,
          'sources:',
          `  - url: ${git.url}/team`,
          '',
        ].join('\n'),
      );
      const store = join(root, 'store-gitlab-group');
      const r = await runCommand([
        'scan',
        '--config',
        config,
        '--store',
        store,
        '--as-of',
        String(utc(2026, 11, 1)),
      ]);
      const cause =
        "GitLab API: without a token GitLab does not say whether this project's issues are on, and answers its members, notes and resource events with 401: set a token through hosts: tokenEnv";
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${git.url}/team/one: ${cause}`);
      const record = JSON.parse(readFileSync(join(store, storeFileName(host, 'team/one')), 'utf8'));
      expect([record.values.ISSUE_REACTION_TIME, record.evidence.ISSUE_REACTION_TIME]).toEqual([
        null,
        cause,
      ]);
      expect(record.values.CI_PIPELINE).toEqual({ events: [utc(2026, 10, 12)] });
      // The list, from the group's answer, then neither members nor notes.
      const paths = gitlab.requests.map((q) => q.path);
      expect(paths.filter((x) => x.includes('/issues'))).toEqual([
        '/api/v4/projects/team%2Fone/issues',
      ]);
      expect(paths.some((x) => x === '/api/v4/projects/team%2Fone')).toBe(false);
      expect(gitlab.requests.every((q) => q.headers['private-token'] === undefined)).toBe(true);
      expect(gitlab.violations).toEqual([]);
    } finally {
      await gitlab.close();
    }
  });

  it('refuses --fetch never with a source: listing asks the forge', async () => {
    const before = forgejo.requests.length;
    const r = await runCommand([
      'scan',
      '--config',
      join(root, 'badgepress.yaml'),
      '--source',
      `${git.url}/team`,
      '--store',
      join(root, 'store-never'),
      '--fetch',
      'never',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "--fetch never asks no server, and a source is listed through its forge's API: give --repos FILE instead (badgepress discover writes one)",
    );
    expect(forgejo.requests.length).toBe(before);
  });

  it('names what left the source or moved since the last scan, from the URLs the store holds', async () => {
    // Since: team/two renamed team/deux, team/three archived, team/one made private.
    const later = await startGitea({
      owner: 'team',
      catalogue: {
        web: git.url,
        repos: [
          { path: 'team/one', visibility: 'private' },
          { path: 'team/deux' },
          { path: 'team/three', archived: true },
        ],
        renamed: { 'team/two': 'team/deux' },
      },
    });
    try {
      const host = new URL(git.url).host;
      const config = join(root, 'later.yaml');
      writeFileSync(
        config,
        [
          'store: store',
          'scan:\n  mirrors: mirrors\n  retries: 0',
          'hosts:',
          `  "${host}": { kind: gitea, apiUrl: "${later.url}", tokenEnv: T_FJ, requestsPerSecond: 1000 }`,
          '',
        ].join('\n'),
      );
      const r = await runCommand(
        [
          'scan',
          '--config',
          config,
          '--source',
          `${git.url}/team`,
          '--store',
          join(root, 'store-whole'),
          '--as-of',
          String(utc(2026, 11, 2)),
          '--forge',
          'never',
          '--json',
        ],
        { env: { T_FJ: 'fj-scan' } },
      );
      const summary = JSON.parse(r.stdout);
      expect(summary).toMatchObject({ repositories: 1, measured: 1, exitCode: 0 });
      expect(summary.sources.moved).toEqual([
        { from: `${git.url}/team/two`, to: `${git.url}/team/deux` },
      ]);
      expect(summary.sources.left).toEqual([
        { url: `${git.url}/team/one`, why: 'private (the source keeps public)' },
        { url: `${git.url}/team/three`, why: 'archived (the source leaves archived ones out)' },
      ]);
      // One listing page, then a lookup for each of the three the store holds (team/two's
      // answers 307, and the new address is asked too).
      expect(summary.sources.requests).toBe(5);
      expect(r.stderr).toContain(
        `badgepress: warning: moved: ${git.url}/team/two → ${git.url}/team/deux (the old URL's records stay under it in the store; the new one is scanned from now on)`,
      );
      expect(r.stderr).toContain(
        `badgepress: warning: left: ${git.url}/team/three: archived (the source leaves archived ones out) (no longer scanned; its records stay in the store, and on the site until its store file is deleted and build --prune runs)`,
      );
      expect(later.violations).toEqual([]);
    } finally {
      await later.close();
    }
  });
});

describe("discover's live line", () => {
  it('counts the repositories listed with the noun in number and the digits grouped', () => {
    const written: string[] = [];
    const stream = { write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
    // One line each: a line redraws at most ten times a second.
    listingProgress(stream, true)!(1, false);
    listingProgress(stream, true)!(1500, false);
    expect(written).toEqual([
      '\r\x1b[Kdiscover: 1 repository listed',
      '\r\x1b[Kdiscover: 1,500 repositories listed',
    ]);
  });
});
