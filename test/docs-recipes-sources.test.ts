// The source-based recipe of docs/guides/scheduled-rebuilds.md ("A source instead of a
// list"), run as written by `sh`: its YAML is the config (addresses pointed at loopback), its
// cron line runs twice with `npx badgepress` the checkout's bin. The GitLab stand-in lists a
// group with a subgroup, a private and an archived project; the public ones are served by git's
// own HTTP server, so the scan fetches and measures them, and the build publishes them.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ROOT } from './helpers/cli.ts';
import { GUIDE_NODE, TEST_NODE } from './helpers/recipes.ts';
import { startGitHttp, type GitHttpServer } from './helpers/git-http.ts';
import { utc, WorkRepo } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';
import { startGitLab } from '../scripts/lib/forge-peers/gitlab.ts';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';

const guide = readFileSync(join(ROOT, 'docs/guides/scheduled-rebuilds.md'), 'utf8');
const section = guide.slice(guide.indexOf('## A source instead of a list'));
const recipe = section.slice(
  0,
  section.indexOf('\n## ', 10) > 0 ? section.indexOf('\n## ', 10) : undefined,
);

describe('docs/guides/scheduled-rebuilds.md: a source instead of a list, run', () => {
  const dir = tempDir('badgepress-recipe-sources-');
  let git: GitHttpServer;
  let gitlab: ForgeServer;

  beforeAll(async () => {
    const work = WorkRepo.init(join(dir, 'work'));
    work.commit({ at: utc(2026, 9, 1) });
    for (const path of ['acme/widget', 'acme/tools/lint']) {
      mkdirSync(join(dir, 'served', path, '..'), { recursive: true });
      work.bareClone(join(dir, 'served', path));
    }
    git = await startGitHttp(join(dir, 'served'));
    gitlab = await startGitLab({
      catalogue: {
        web: git.url,
        repos: [
          { path: 'acme/widget' },
          { path: 'acme/tools/lint' },
          { path: 'acme/tools/secret', visibility: 'private' },
          { path: 'acme/attic', archived: true },
        ],
      },
    });
  });
  afterAll(async () => {
    await git?.close();
    await gitlab?.close();
  });

  /** The line through `sh`, without blocking this process: the stand-ins answer from it. */
  const sh = (line: string, env: NodeJS.ProcessEnv) =>
    new Promise<number | null>((done, fail) => {
      const child = spawn('sh', ['-c', line], { env, stdio: 'ignore' });
      child.on('error', fail);
      child.on('close', done);
    });

  it("the config and the cron line scan the group's public projects and build them, twice", async () => {
    const yaml = /```yaml\n([\s\S]*?)```/.exec(recipe)?.[1];
    const cron = /^0 3 \* \* \* (.+)$/m.exec(recipe)?.[1];
    expect(yaml && cron).toBeTruthy();
    // As every recipe: a maintained Node of its own, and the site's config (never the
    // checkout's, whose store is the demo's examples/store).
    expect(cron).toContain(`export PATH=${GUIDE_NODE}/bin:$PATH`);
    const commands = cron!.match(/npx badgepress \w+ [^;]*/g)!;
    expect(commands.map((c) => /badgepress (\w+)/.exec(c)![1])).toEqual(['scan', 'build']);
    for (const command of commands)
      expect(command).toContain('--config site/config/badgepress.yaml');
    expect(yaml).toMatch(/^# site\/config\/badgepress\.yaml/);
    // The recipe's config, its addresses on loopback: the group's pages on git's server, the API on the stand-in.
    const config = parse(yaml!) as {
      sources: Array<{ url: string }>;
      hosts: Record<string, { apiUrl: string }>;
    };
    expect(config.sources).toEqual([{ url: 'https://gitlab.example.org/acme' }]);
    const host = new URL(git.url).host;
    config.sources[0]!.url = `${git.url}/acme`;
    config.hosts = { [host]: { ...config.hosts['gitlab.example.org']!, apiUrl: gitlab.url } };
    const srv = join(dir, 'srv');
    mkdirSync(join(srv, 'site/config'), { recursive: true });
    // store: and out: as `badgepress init site` writes them.
    writeFileSync(
      join(srv, 'site/config/badgepress.yaml'),
      `store: ../store\nout: ../dist\nscan:\n  retries: 0\n${stringify(config)}`,
    );
    writeFileSync(join(dir, 'badgepress.env'), 'export GITLAB_TOKEN=glpat-recipe\n');
    const logs = join(dir, 'log');
    mkdirSync(logs);
    const line = cron!
      .replaceAll('/srv/badgepress', srv)
      .replaceAll('/etc/badgepress.env', join(dir, 'badgepress.env'))
      .replaceAll('/var/log/', `${logs}/`)
      .replaceAll('\\%', '%')
      .replaceAll(GUIDE_NODE, TEST_NODE)
      .replaceAll('npx badgepress ', `'${process.execPath}' '${join(ROOT, 'bin/badgepress.js')}' `);
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^npm_|^GITLAB_TOKEN$/i.test(k)),
    );
    for (let i = 0; i < 2; i++) expect(await sh(line, { ...env, CI: 'true' })).toBe(0);
    expect(readFileSync(join(logs, 'badgepress.err'), 'utf8')).toBe('');
    const lines = readFileSync(join(logs, 'badgepress.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const scans = lines.filter((l) => 'records' in l);
    // Public, not archived: widget and tools/lint; listed in one request each run.
    expect(scans[0]).toMatchObject({
      repositories: 2,
      measured: 2,
      failed: 0,
      exitCode: 0,
      sources: { repositories: 2, moved: [], left: [], requests: 1 },
    });
    expect(scans[1]).toMatchObject({ repositories: 2, measured: 0, upToDate: 2, exitCode: 0 });
    const builds = lines.filter((l) => 'written' in l);
    expect(builds.map((b) => b.exitCode)).toEqual([0, 0]);
    expect(builds[0]).toMatchObject({ repositories: 2 });
    expect(readdirSync(join(srv, 'site/dist/api/v1/repositories'))).toHaveLength(2);
    // The token went to the API (the stand-in saw it), from the file the line sources.
    expect(gitlab.requests.every((q) => q.headers['private-token'] === 'glpat-recipe')).toBe(true);
    expect(gitlab.violations).toEqual([]);
  }, 60_000);
});
