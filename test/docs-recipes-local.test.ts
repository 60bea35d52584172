// docs/guides/scheduled-rebuilds.md's cron line and systemd units, and docs/guides/github.md's
// Plan step, run as written with the real `npx` in a copy of the tracked files after the
// guide's install and `init site` (test/helpers/recipes.ts). The cron and systemd recipes
// scan a repository of their own (a bare repository on disk, listed with mirror=) into the
// site's store, then build it: the site must hold that repository and no demo one, and the
// checkout's examples/ must be left as it was.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from './helpers/cli.ts';
import {
  BAD_RECORD,
  blocks,
  doc,
  GUIDE_NODE,
  guide,
  lastJson,
  listLocalRepository,
  recipeKit,
  TEST_NODE,
} from './helpers/recipes.ts';

const { dir, sh, checkout } = recipeKit();

/** The checkout's demo store, byte for byte, as the clone has it. */
const demoStore = (root: string) =>
  new Map(
    readdirSync(join(root, 'examples/store')).map((f) => [
      f,
      readFileSync(join(root, 'examples/store', f), 'utf8'),
    ]),
  );
/** The repositories a built site has files for (their URLs). */
const builtRepositories = (site: string) =>
  readdirSync(join(site, 'api/v1/repositories')).map(decodeURIComponent).sort();

describe('docs/guides/scheduled-rebuilds.md: cron and systemd, run', () => {
  it('name a maintained Node of their own, and the site config init writes', () => {
    const cron = /^\*\/30 \* \* \* \* (.+)$/m.exec(guide)![1]!;
    const service = blocks('ini').find((u) => u.includes('[Service]'))!;
    for (const recipe of [cron, service]) {
      expect(recipe).toContain(`${GUIDE_NODE}/bin`);
      expect(recipe).not.toMatch(/\/usr\/bin\/(npx|node)/);
      // Every badgepress command reads the site's own config, never the checkout's demo one.
      const commands = recipe.match(/(?:npx badgepress|bin\/badgepress\.js) \w+ [^;\n']*/g)!;
      expect(commands.map((c) => /badgepress(?:\.js)? (\w+)/.exec(c)![1])).toEqual([
        'scan',
        'build',
      ]);
      for (const command of commands)
        expect(command).toContain('--config site/config/badgepress.yaml');
    }
    expect(GUIDE_NODE).toMatch(/node(22|24|26)$/);
  });

  it('the cron line scans then builds the repositories listed, one JSON summary each a run; the second run writes nothing; no demo record reaches the site', () => {
    const line = /^\*\/30 \* \* \* \* (.+)$/m.exec(guide);
    expect(line, 'cron line in the guide').not.toBeNull();
    const srv = checkout('srv-cron');
    const url = listLocalRepository(srv);
    const logs = join(dir, 'log');
    mkdirSync(logs);
    // cron itself turns \% into % before the shell sees the line; Node is where this test's is.
    const command = line![1]!
      .replaceAll('/srv/badgepress', srv)
      .replaceAll('/var/log/', `${logs}/`)
      .replaceAll('\\%', '%')
      .replaceAll(GUIDE_NODE, TEST_NODE);
    expect(command).not.toContain('/var/');
    // The line cds into the checkout itself; the second run goes through the bin npx resolves to there.
    for (let i = 0; i < 2; i++) expect(sh(command, { cwd: srv, again: i > 0 }).code).toBe(0);
    const lines = readFileSync(join(logs, 'badgepress.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // Each run: the scan's line, then the build's. The first scan measures the repository as
    // of midnight UTC; the second finds that record stored and writes none.
    const midnight = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) / 1000;
    const scans = lines.filter((l) => 'records' in l);
    expect(scans).toHaveLength(2);
    expect(scans[0]).toMatchObject({ repositories: 1, records: 1, exitCode: 0, asOf: midnight });
    expect(scans[1]).toMatchObject({ repositories: 1, records: 0, exitCode: 0, asOf: midnight });
    const runs = lines.filter((l) => 'written' in l);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ repositories: 1, exitCode: 0 });
    expect(runs[0].written).toBeGreaterThan(0);
    expect(runs[1]).toMatchObject({ written: 0, exitCode: 0 });
    expect(readFileSync(join(logs, 'badgepress.err'), 'utf8')).toBe('');
    // The site holds the listed repository and nothing of the demo store, which is untouched.
    expect(builtRepositories(join(srv, 'site/dist'))).toEqual([url]);
    expect(readdirSync(join(srv, 'site/store/example.org/me'))).toEqual(['my-project.ndjson']);
    expect(demoStore(srv)).toEqual(demoStore(ROOT));
  });

  it.skipIf(spawnSync('sh', ['-c', 'command -v systemd-analyze']).status !== 0)(
    'the systemd units verify, and the ExecStart lines, in order, scan then build in WorkingDirectory with the unit PATH',
    () => {
      const units = blocks('ini');
      const service = units.find((u) => u.includes('[Service]'))!;
      const timer = units.find((u) => u.includes('[Timer]'));
      expect(service && timer).toBeTruthy();
      const srv = checkout('srv-systemd');
      const url = listLocalRepository(srv);
      // One record the build skips (exit 1, which the unit counts as success).
      writeFileSync(join(srv, 'site/store/zz-bad.ndjson'), BAD_RECORD);
      const unitDir = join(dir, 'units');
      mkdirSync(unitDir);
      const here = service
        .replace('WorkingDirectory=/srv/badgepress', `WorkingDirectory=${srv}`)
        .replaceAll(GUIDE_NODE, TEST_NODE);
      writeFileSync(join(unitDir, 'badgepress.service'), here);
      writeFileSync(join(unitDir, 'badgepress.timer'), timer!);
      const verify = spawnSync(
        'systemd-analyze',
        ['verify', join(unitDir, 'badgepress.service'), join(unitDir, 'badgepress.timer')],
        { encoding: 'utf8' },
      );
      expect(verify.stderr).toBe('');
      expect(verify.status).toBe(0);
      // Each ExecStart as systemd runs it: no shell of its own ($$ and %% are its $ and %), and
      // systemd's own PATH, whatever Node that holds (here /usr/bin/node, Node 20).
      const path = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
      const execs = [...here.matchAll(/^ExecStart=(.+)$/gm)].map((m) =>
        m[1]!.replaceAll('$$', '$').replaceAll('%%', '%'),
      );
      expect(execs).toHaveLength(2);
      expect(execs[0]).toContain(' scan ');
      expect(execs[1]).toContain(' build ');
      const success = [
        0,
        ...(/^SuccessExitStatus=(.+)$/m.exec(here)?.[1]?.split(/\s+/).map(Number) ?? []),
      ];
      const [scan, build] = execs.map((exec) => sh(exec, { cwd: srv, env: { PATH: path } }));
      expect(scan!.code, scan!.stderr).toBe(0);
      expect(lastJson(scan!.stdout)).toMatchObject({ repositories: 1, records: 1 });
      expect(build!.code, build!.stderr).toBe(1);
      expect(success).toContain(build!.code);
      expect(lastJson(build!.stdout)).toMatchObject({ skipped: 1, exitCode: 1, repositories: 1 });
      expect(builtRepositories(join(srv, 'site/dist'))).toEqual([url]);
      expect(demoStore(srv)).toEqual(demoStore(ROOT));
    },
  );
});

describe('docs/guides/github.md: plan in review', () => {
  it('the Plan step, in a checkout whose thresholds changed, writes the Markdown table to plan.md and the job summary', () => {
    const github = doc('docs/guides/github.md');
    const workflow = [...github.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => parse(m[1]!))
      .find((y) => y?.name === 'threshold impact');
    expect(workflow.on.pull_request.paths).toEqual(['config/**']);
    const step = (workflow.jobs.plan.steps as Array<{ name?: string; run?: string }>).find(
      (s) => s.name === 'Plan',
    )!.run!;
    const repo = checkout('github-plan');
    // The published site the pull request is compared with: the default config's build.
    expect(sh('npx badgepress build --json', { cwd: repo }).code).toBe(0);
    // The pull request: REUSED's gold band moves from 20 to 5 dependents (silver shrinks to nothing above bronze).
    const thresholds = join(repo, 'config/thresholds-a.yaml');
    const edited = readFileSync(thresholds, 'utf8').replace(
      '{ min: 5, max: 19, status: silver }\n      - { min: 20, max: null, status: gold }',
      '{ min: 5, max: 5, status: silver }\n      - { min: 6, max: null, status: gold }',
    );
    expect(edited).not.toBe(readFileSync(thresholds, 'utf8'));
    writeFileSync(thresholds, edited);
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '');
    // GitHub runs each step with bash -e.
    const r = sh(step, {
      cwd: repo,
      env: { GITHUB_STEP_SUMMARY: summary },
      shell: ['bash', '-e', '-c'],
    });
    expect(r.code, r.stderr).toBe(0);
    const plan = readFileSync(join(repo, 'plan.md'), 'utf8');
    expect(plan).toMatch(/\| REUSED \|/);
    expect(plan).toMatch(/\|\s*-+\s*\|/);
    expect(readFileSync(summary, 'utf8')).toBe(plan);
  }, 120_000);
});
