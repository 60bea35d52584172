// docs/guides/scheduled-rebuilds.md's GitHub Actions workflow, run as written: every shard's
// steps, then the site job's, with bash -e and the real `npx`, in a copy of the tracked files
// after the guide's install and `init site` (test/helpers/recipes.ts), against s3rver
// (AWS_ENDPOINT_URL_S3 points the standard AWS chain at it), with a store holding one bad record.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCommand } from './helpers/cli-in-process.ts';
import { blocks, holdLease, lastJson, recipeKit, scansPeer, served } from './helpers/recipes.ts';
import { readTree } from './helpers/site.ts';

const { dir, sh, checkout } = recipeKit();
const s3 = scansPeer();

describe('docs/guides/scheduled-rebuilds.md: GitHub Actions, run against an S3 peer', () => {
  it('the GitHub Actions workflow, in a checkout after npm ci: every shard succeeds despite a bad record, the site job completes one unsharded build, a second run changes nothing, a held lease fails no shard', async () => {
    const repo = checkout('actions-checkout');
    const workflow = blocks('yaml')
      .map((y) => parse(y))
      .find((y) => y?.jobs);
    const stepsOf = (job: string) => {
      const all = workflow.jobs[job].steps as Array<{ run?: string; uses?: string }>;
      expect(all.map((s) => s.uses ?? s.run).slice(0, 3)).toEqual([
        'actions/checkout@v4',
        'actions/setup-node@v4',
        'npm ci --omit=dev',
      ]);
      return all
        .map((s) => s.run)
        .filter((r): r is string => r?.includes('npx badgepress') ?? false);
    };
    const shardSteps = stepsOf('shards');
    const [siteStep, ...more] = stepsOf('site');
    expect(shardSteps).toHaveLength(3);
    expect(more).toHaveLength(0);
    const matrix = workflow.jobs.shards.strategy.matrix.shard as number[];
    for (const step of shardSteps)
      expect(step).toContain(`--shard \${{ matrix.shard }}/${matrix.length}`);
    const forShard = (step: string, i: number) => step.replaceAll('${{ matrix.shard }}', String(i));
    const planStep = shardSteps.find((s) => s.includes(' plan '))!;
    const buildStep = shardSteps.find((s) => s.includes(' build '))!;
    const alone = (step: string) => step.replace(/ \|\|.*$/, '');
    // GitHub runs each step with bash -e.
    const bash = (step: string, again = true) =>
      sh(step, { cwd: repo, env: s3.env, shell: ['bash', '-e', '-c'], again });
    let skipped = 0;
    for (const i of matrix) {
      for (const step of shardSteps) {
        const r = bash(forShard(step, i), i !== matrix[0]);
        expect(r.code, `${step}\n${r.stderr}`).toBe(0);
        if (step === buildStep) skipped += lastJson(r.stdout).skipped as number;
        if (step.includes(' scan '))
          expect(lastJson(r.stdout)).toMatchObject({ shard: `${i}/${matrix.length}`, exitCode: 0 });
      }
    }
    expect(skipped).toBe(1);
    const site = bash(siteStep!, false);
    expect(site.code, site.stderr).toBe(0);
    const local = join(dir, 'unsharded-actions');
    expect(
      (
        await runCommand([
          'build',
          '--config',
          join(repo, 'site/config/badgepress.yaml'),
          '--store',
          join(repo, 'examples/store'),
          '--out',
          local,
          '--json',
        ])
      ).code,
    ).toBe(0);
    const published = served(await s3.peer.objects('badges', 'site/'));
    const expected = served(readTree(local));
    expect([...published.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, body] of expected)
      expect(published.get(key)!.body.equals(body), key).toBe(true);
    // A second run: a shard's plan, alone, has nothing to change (exit 0) and says so (the
    // plan is the same command for every shard); each build publishes nothing again.
    const plan = bash(alone(forShard(planStep, matrix[0]!)));
    expect(plan.code).toBe(0);
    expect(lastJson(plan.stdout)).toMatchObject({ added: 0, changed: 0, removed: 0 });
    const codes: number[] = [];
    for (const i of matrix) {
      const build = bash(forShard(buildStep, i));
      expect(build.code).toBe(0);
      expect(lastJson(build.stdout)).toMatchObject({ written: 0, removed: 0 });
      // What the step alone would exit with: the exit code its JSON line reports, which is the
      // process's own (the systemd and CronJob cases above run a command alone and check both).
      codes.push(lastJson(build.stdout).exitCode as number);
    }
    // Without the recipe's `|| { rc=$?; … }` the shard holding the bad record would fail the job.
    expect(codes.sort()).toEqual([0, 0, 0, 1]);
    // Another build holds shard 0's lease: the step succeeds (exit 5 in its JSON line); alone it would fail.
    await holdLease(s3.peer, 'site/.badgepress/lease-shard-0-of-4.json', async () => {
      const held = bash(forShard(buildStep, 0));
      expect(held.code, held.stderr).toBe(0);
      expect(lastJson(held.stdout)).toMatchObject({ exitCode: 5 });
      expect(bash(alone(forShard(buildStep, 0))).code).toBe(5);
    });
  }, 240_000);
});
