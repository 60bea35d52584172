// The documentation's recipes: they parse and name real flags, and the scheduled-rebuild ones
// (docs/guides/scheduled-rebuilds.md) are tried as written, with the real `npx`: in a copy of
// this checkout's tracked files (what `git clone` gives) after the guide's own install line
// (`npm ci --omit=dev`, TypeScript not installed), or in the image the guide's Dockerfile
// makes when its instructions run in order without a container engine (test/helpers/
// dockerfile.ts), against a real S3 peer where the recipe names buckets
// (AWS_ENDPOINT_URL_S3 points the standard AWS chain at s3rver), and with a store holding one
// bad record where the recipe must treat exit 1 (built, records skipped) as success.
// The "Publishing to S3" guide's recipe (docs/guides/publishing-to-s3.md) runs here too, every
// command line of its shell blocks in order against s3rver, from a copy of the same install
// (its install line is the same `npm ci --omit=dev`: one install serves every recipe).
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT, spawnChecked } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { copyTracked } from './helpers/checkout.ts';
import { buildImage, ignored } from './helpers/dockerfile.ts';
import { readTree } from './helpers/site.ts';
import { reusedGoldFrom } from '../scripts/lib/thresholds-variant.ts';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { tempDir } from './helpers/tmp.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';

const doc = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const guide = doc('docs/guides/scheduled-rebuilds.md');
const cliReference = doc('docs/reference/cli.md');
/** Every Markdown page a user reads: the README and docs/. */
const allDocs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]
  .map(doc)
  .join('\n');
const blocks = (lang: string) => [...guide.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

describe('documentation recipes', () => {
  it('the YAML recipes parse and name real flags', () => {
    const yamls = blocks('yaml').map((y) => parse(y));
    const workflow = yamls.find((y) => y?.jobs);
    expect(workflow.jobs.shards.steps.some((s: { run?: string }) => s.run?.includes('npx badgepress build --store s3://'))).toBe(true);
    // The scan step comes first, sharded like the build.
    const scanStep = workflow.jobs.shards.steps.find((s: { run?: string }) => s.run?.includes('npx badgepress'));
    expect(scanStep?.run).toContain('npx badgepress scan --repos config/repositories.txt --store s3://scans/values --shard ${{ matrix.shard }}/4');
    // The GitHub API answers 60 requests an hour without a token: the scan gets the workflow's.
    expect(scanStep?.env).toEqual({ GITHUB_TOKEN: '${{ secrets.GITHUB_TOKEN }}' });
    // The scheduler's own guard beside the lease, and the site step after every shard.
    expect(workflow.concurrency).toEqual({ group: 'badgepress-publish', 'cancel-in-progress': false });
    expect(workflow.jobs.site.needs).toBe('shards');
    expect(workflow.jobs.site.steps.some((s: { run?: string }) => s.run?.includes(`npx badgepress site --shards ${workflow.jobs.shards.strategy.matrix.shard.length}`))).toBe(true);
    const crons = yamls.filter((y) => y?.kind === 'CronJob');
    expect(crons).toHaveLength(2);
    const [shards, site] = [crons.find((c) => c.spec.jobTemplate.spec.completionMode === 'Indexed'), crons.find((c) => c.spec.jobTemplate.spec.completionMode === undefined)];
    expect(shards.spec.jobTemplate.spec.template.spec.containers[0].args[0]).toContain('--shard "$JOB_COMPLETION_INDEX/4"');
    expect(shards.spec.jobTemplate.spec.template.spec.initContainers[0].args[0]).toContain('npx badgepress scan --repos config/repositories.txt --store s3://scans/values --shard "$JOB_COMPLETION_INDEX/4"');
    expect(site.spec.jobTemplate.spec.template.spec.containers[0].args[0]).toContain('npx badgepress site --shards 4 ');
    for (const cron of crons) expect(cron.spec.concurrencyPolicy).toBe('Forbid');
  });

  it('every badgepress flag the README and docs/ use exists in the command usage', async () => {
    const { BUILD_USAGE } = await import('../src/commands/build.ts');
    const { PLAN_USAGE } = await import('../src/commands/plan.ts');
    const { SERVE_USAGE } = await import('../src/commands/serve.ts');
    const { SITE_USAGE } = await import('../src/commands/site.ts');
    const { SCAN_USAGE } = await import('../src/commands/scan.ts');
    const usage = `${BUILD_USAGE} ${PLAN_USAGE} ${SERVE_USAGE} ${SITE_USAGE} ${SCAN_USAGE} --help`;
    const used = new Set([...allDocs.matchAll(/npx badgepress (?:build|plan|serve|site|scan)[^\n`]*/g)].flatMap((m) => [...m[0].matchAll(/--[a-z0-9-]+/g)].map((f) => f[0])));
    expect(used.size).toBeGreaterThan(5);
    for (const flag of used) expect(usage, flag).toContain(flag);
  });
});

const dir = tempDir();
// This machine's ~/.npmrc carries a key npm warns about on stderr, which the cron recipe's
// error log would record: the recipes run with an empty npm user config instead, and without
// the npm_config_* variables `npx vitest` passes down (cron, systemd or a pod has none).
const npmrc = join(dir, 'npmrc');
writeFileSync(npmrc, '');
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

/**
 * Runs a recipe line. The first run of each step goes through the real `npx`, which proves the
 * command resolves as written; `again` runs the same step with what `npx badgepress` resolves
 * to in a checkout (its bin, by the same Node), because npm's own start costs about a second
 * of CPU a call and a recipe's repeated runs (more shards, a second run) add nothing to that proof.
 */
function sh(script: string, opts: { cwd: string; env?: Record<string, string>; shell?: string[]; again?: boolean }) {
  const [shell, ...flags] = opts.shell ?? ['sh', '-c'];
  if (opts.again) {
    expect(script).toContain('npx badgepress ');
    script = script.replaceAll('npx badgepress ', `'${process.execPath}' '${join(opts.cwd, 'bin/badgepress.js')}' `);
  }
  const r = spawnChecked(shell!, [...flags, script], { cwd: opts.cwd, env: { ...baseEnv, CI: 'true', NPM_CONFIG_USERCONFIG: npmrc, ...opts.env }, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;

/** The packages come from npm's cache when it has them (a test environment's choice, not the recipe's). */
const installEnv = { npm_config_prefer_offline: 'true' };

/** The guide's install, once: a clone of the tracked files, then its install line as written. */
let installed: string | undefined;
function installedCheckout(): string {
  if (installed) return installed;
  const lines = /```sh\n(git clone \S+ \/srv\/badgepress)\n(.+)\n```/.exec(guide);
  expect(lines, 'the install lines in the guide').not.toBeNull();
  const srv = copyTracked(join(dir, 'srv-installed'));
  const r = sh(lines![2]!.replaceAll('/srv/badgepress', srv), { cwd: dir, env: installEnv });
  expect(r.code, r.stderr).toBe(0);
  // The production install holds no compiler, and fetches none: Node stripped the types
  // (scripts/compile.mjs), with no `npm exec` of TypeScript and no experimental warning.
  expect(existsSync(join(srv, 'node_modules/typescript'))).toBe(false);
  expect(existsSync(join(srv, 'lib/cli.js'))).toBe(true);
  expect(r.stderr).not.toMatch(/typescript|npm exec|ExperimentalWarning/i);
  installed = srv;
  return srv;
}

/**
 * A checkout as the recipes assume one (/srv/badgepress): a copy of the installed one, its
 * production packages linked rather than copied (the recipes only read them; copying and
 * removing thousands of files per checkout cost more CPU than the recipes' own steps).
 */
function checkout(name: string): string {
  const installed = installedCheckout();
  const copy = join(dir, name);
  cpSync(installed, copy, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true, filter: (src) => src !== join(installed, 'node_modules') });
  symlinkSync(join(installed, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
}

/** One record the loader refuses (a timestamp that is no number), of a repository the store holds. */
const BAD_RECORD = `${JSON.stringify({ repositoryUrl: 'https://github.com/acme/widget', timestamp: 'yesterday', values: {} })}\n`;

/** Without the `.badgepress/` bookkeeping (shard summaries), which is never served and differs between a sharded and an unsharded build. */
/** Runs `fn` while a live build of this host (this test's own process) holds the lease at `key` of the badges bucket. */
async function holdLease(peer: S3Peer, key: string, fn: () => Promise<void>) {
  // A client per request: the peer closes a keep-alive socket left idle while the recipe runs.
  const send = async (command: PutObjectCommand | DeleteObjectCommand) => {
    const client = peer.client();
    await client.send(command as PutObjectCommand);
    client.destroy();
  };
  const now = Math.floor(Date.now() / 1000);
  const record = { host: hostname(), pid: process.pid, token: 'held-by-the-test', acquiredAt: now, expiresAt: now + 600 };
  await send(new PutObjectCommand({ Bucket: 'badges', Key: key, Body: JSON.stringify(record), ContentType: 'application/json' }));
  try {
    await fn();
  } finally {
    await send(new DeleteObjectCommand({ Bucket: 'badges', Key: key }));
  }
}

async function emptyPrefix(peer: S3Peer, bucket: string, prefix: string) {
  const client = peer.client();
  for (const key of (await peer.objects(bucket, prefix)).keys()) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: `${prefix}${key}` }));
  client.destroy();
}

const served = <T>(tree: Map<string, T>) => new Map([...tree].filter(([key]) => !key.startsWith('.badgepress/')));

describe('plan sample in docs/reference/cli.md', () => {
  it('is what plan prints for the store and threshold change it names', async () => {
    const sample = /```\n(badgepress plan: [^]*?)```/.exec(cliReference)?.[1];
    expect(sample).toBeDefined();
    expect(cliReference).toContain("`npm run gen-store -- --repos 200 --scans 10` after moving REUSED's gold band\nfrom 20 to 21 dependents");
    const store = join(dir, 'plan-sample-store');
    generateStore({ repos: 200, scans: 10, out: store, seed: 1 });
    const out = join(dir, 'plan-sample-site');
    // Built as the CLI builds (pages and openapi.json included: plan counts them too).
    expect((await runCommand(['build', '--store', store, '--out', out, '--now', '1763600000'])).code).toBe(0);
    const r = await runCommand(['plan', '--config', reusedGoldFrom(join(dir, 'plan-sample-cfg'), 21), '--store', store, '--out', out]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe(sample);
  }, 120_000);
});

describe('docs/guides/scheduled-rebuilds.md recipes, run', () => {
  it('the cron line builds, appends one JSON summary per run, and the second run writes nothing', () => {
    const line = /^\*\/30 \* \* \* \* (.+)$/m.exec(guide);
    expect(line, 'cron line in the guide').not.toBeNull();
    const srv = checkout('srv-cron');
    const logs = join(dir, 'log');
    mkdirSync(logs);
    // cron itself turns \% into % before the shell sees the line.
    const command = line![1]!.replaceAll('/srv/badgepress', srv).replaceAll('/var/log/', `${logs}/`).replaceAll('\\%', '%');
    expect(command).not.toContain('/var/');
    // The line cds into the checkout itself; the second run goes through the bin npx resolves to there.
    for (let i = 0; i < 2; i++) expect(sh(command, { cwd: srv, again: i > 0 }).code).toBe(0);
    const lines = readFileSync(join(logs, 'badgepress.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // Each run: the scan's line (the checkout's list names no repository yet), then the build's.
    const scans = lines.filter((l) => 'records' in l);
    expect(scans).toHaveLength(2);
    for (const s of scans) expect(s).toMatchObject({ repositories: 0, records: 0, exitCode: 0, asOf: Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) / 1000 });
    const runs = lines.filter((l) => 'written' in l);
    expect(runs).toHaveLength(2);
    expect(runs[0].written).toBeGreaterThan(0);
    // Nothing changed: no file written, every repository skipped from the build state.
    expect(runs[1]).toMatchObject({ written: 0, reused: runs[0].repositories, exitCode: 0 });
    expect(readFileSync(join(logs, 'badgepress.err'), 'utf8')).toBe('');
    expect(readdirSync(join(srv, 'dist/api/v1/repositories')).length).toBeGreaterThan(0);
  });

  it.skipIf(spawnSync('sh', ['-c', 'command -v systemd-analyze']).status !== 0)('the systemd units verify, and ExecStart succeeds in WorkingDirectory', () => {
    const units = blocks('ini');
    const service = units.find((u) => u.includes('[Service]'));
    const timer = units.find((u) => u.includes('[Timer]'));
    expect(service && timer).toBeTruthy();
    const srv = checkout('srv-systemd');
    writeFileSync(join(srv, 'examples/store/zz-bad.ndjson'), BAD_RECORD);
    const unitDir = join(dir, 'units');
    mkdirSync(unitDir);
    writeFileSync(join(unitDir, 'badgepress.service'), service!.replace('WorkingDirectory=/srv/badgepress', `WorkingDirectory=${srv}`));
    writeFileSync(join(unitDir, 'badgepress.timer'), timer!);
    const verify = spawnSync('systemd-analyze', ['verify', join(unitDir, 'badgepress.service'), join(unitDir, 'badgepress.timer')], { encoding: 'utf8' });
    expect(verify.stderr).toBe('');
    expect(verify.status).toBe(0);
    // ExecStart as written (its npx path included, which systemd-analyze checked exists).
    const exec = /^ExecStart=(\S+ badgepress .+)$/m.exec(service!)![1]!;
    const success = [0, ...(/^SuccessExitStatus=(.+)$/m.exec(service!)?.[1]?.split(/\s+/).map(Number) ?? [])];
    const r = sh(exec, { cwd: srv });
    expect(r.code, r.stderr).toBe(1);
    expect(success).toContain(r.code);
    expect(lastJson(r.stdout)).toMatchObject({ skipped: 1, exitCode: 1 });
    expect(lastJson(r.stdout).written).toBeGreaterThan(0);
  });

  describe('against an S3 peer', () => {
    let peer: S3Peer;
    let env: Record<string, string>;
    beforeAll(async () => {
      peer = await startS3Peer(['scans', 'badges']);
      env = { ...peer.env, AWS_ENDPOINT_URL_S3: peer.endpoint };
      const client = peer.client();
      for (const name of readdirSync(join(ROOT, 'examples/store'))) {
        await client.send(new PutObjectCommand({ Bucket: 'scans', Key: `values/${name}`, Body: readFileSync(join(ROOT, 'examples/store', name)) }));
      }
      await client.send(new PutObjectCommand({ Bucket: 'scans', Key: 'values/zz-bad.ndjson', Body: BAD_RECORD }));
      client.destroy();
    }, 60_000);
    afterAll(async () => {
      await peer?.stop();
    });

    it('the Kubernetes CronJobs, in what the Dockerfile puts in the image: every indexed shard succeeds despite a bad record or a held lease, and with the site step they publish exactly the site of one build', async () => {
      const dockerfile = blocks('dockerfile');
      expect(dockerfile).toHaveLength(1);
      const froms = [...dockerfile[0]!.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]!);
      for (const from of froms) expect(from).toMatch(/^node:(22|24|26)(-slim)?$/);
      // The image runs `badgepress scan`, which runs git: Debian's node image has it, -slim has not.
      expect(froms.at(-1)).not.toMatch(/-slim$/);
      // The .dockerignore is the plain block right after the Dockerfile.
      const dockerignore = /```dockerfile\n[^]*?```\n\n```\n([^]*?)```/.exec(guide)?.[1];
      expect(dockerignore).toBeDefined();
      const skip = ignored(dockerignore!);
      const context = copyTracked(join(dir, 'docker-context'), skip);
      const app = buildImage(dockerfile[0]!, context, join(dir, 'image'), { ...baseEnv, NPM_CONFIG_USERCONFIG: npmrc, ...installEnv });
      // The image: the checkout with its production packages and the compiled CLI, no compiler.
      expect(existsSync(join(app, 'lib/cli.js'))).toBe(true);
      expect(existsSync(join(app, 'node_modules/@aws-sdk/client-s3'))).toBe(true);
      expect(existsSync(join(app, 'node_modules/typescript'))).toBe(false);
      const crons = blocks('yaml')
        .map((y) => parse(y))
        .filter((y) => y?.kind === 'CronJob');
      const job = crons.find((c) => c.spec.jobTemplate.spec.completionMode === 'Indexed').spec.jobTemplate.spec;
      const siteJob = crons.find((c) => c.spec.jobTemplate.spec.completionMode === undefined).spec.jobTemplate.spec;
      const container = job.template.spec.containers[0];
      const scanContainer = job.template.spec.initContainers[0];
      for (const c of [container, scanContainer, siteJob.template.spec.containers[0]]) {
        expect(c.image).toBe(container.image);
        expect(c.image).not.toMatch(/^node:/);
        expect(c.workingDir).toBe('/app');
        expect(c.command).toEqual(['sh', '-c']);
      }
      // A shard whose lease another build holds: the pod succeeds (exit 5 is "someone else is publishing"), writing nothing.
      await holdLease(peer, 'site/.badgepress/lease-shard-1-of-4.json', async () => {
        const held = sh(container.args[0], { cwd: app, env: { ...env, JOB_COMPLETION_INDEX: '1' } });
        expect(held.code, held.stderr).toBe(0);
        expect(lastJson(held.stdout)).toMatchObject({ exitCode: 5, holder: { pid: process.pid } });
        expect(sh(container.args[0].replace(/ \|\|.*$/, ''), { cwd: app, env: { ...env, JOB_COMPLETION_INDEX: '1' }, again: true }).code).toBe(5);
      });
      expect(served(await peer.objects('badges', 'site/')).size).toBe(0);
      let skipped = 0;
      for (let i = 0; i < job.completions; i++) {
        // The pod's init container first: its shard's scan (the list names no repository yet).
        const scanned = sh(scanContainer.args[0], { cwd: app, env: { ...env, JOB_COMPLETION_INDEX: String(i) }, again: i > 0 });
        expect(scanned.code, scanned.stderr).toBe(0);
        expect(lastJson(scanned.stdout)).toMatchObject({ shard: `${i}/${job.completions}`, exitCode: 0 });
        const r = sh(container.args[0], { cwd: app, env: { ...env, JOB_COMPLETION_INDEX: String(i) }, again: true });
        expect(r.code, r.stderr).toBe(0);
        const summary = lastJson(r.stdout);
        expect(summary.shard).toBe(`${i}/${job.completions}`);
        expect(summary.exitCode).toBe(summary.skipped ? 1 : 0);
        skipped += summary.skipped as number;
      }
      // The bad record is reported once, by the shard its repository belongs to.
      expect(skipped).toBe(1);
      // Before the site step the home page is missing; after it, the shards and the site step published one unsharded build.
      expect((await peer.objects('badges', 'site/')).has('index.html')).toBe(false);
      const site = sh(siteJob.template.spec.containers[0].args[0], { cwd: app, env });
      expect(site.code, site.stderr).toBe(0);
      expect(lastJson(site.stdout)).toMatchObject({ shards: 4, repositories: 4 });
      // The reference: one unsharded build of the same store (not a recipe step), in-process.
      const local = join(dir, 'unsharded');
      expect((await runCommand(['build', '--config', join(app, 'config/badgepress.yaml'), '--store', join(app, 'examples/store'), '--out', local, '--json'])).code).toBe(0);
      const published = served(await peer.objects('badges', 'site/'));
      const expected = served(readTree(local));
      expect(expected.has('index.html')).toBe(true);
      expect([...published.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [key, body] of expected) expect(published.get(key)!.body.equals(body), key).toBe(true);
    }, 180_000);

    it('the GitHub Actions workflow, in a checkout after npm ci: every shard succeeds despite a bad record, the site job completes one unsharded build, a second run changes nothing, a held lease fails no shard', async () => {
      await emptyPrefix(peer, 'badges', 'site/');
      const repo = checkout('actions-checkout');
      const workflow = blocks('yaml')
        .map((y) => parse(y))
        .find((y) => y?.jobs);
      const stepsOf = (job: string) => {
        const all = workflow.jobs[job].steps as Array<{ run?: string; uses?: string }>;
        expect(all.map((s) => s.uses ?? s.run).slice(0, 3)).toEqual(['actions/checkout@v4', 'actions/setup-node@v4', 'npm ci --omit=dev']);
        return all.map((s) => s.run).filter((r): r is string => r?.includes('npx badgepress') ?? false);
      };
      const shardSteps = stepsOf('shards');
      const [siteStep, ...more] = stepsOf('site');
      expect(shardSteps).toHaveLength(3);
      expect(more).toHaveLength(0);
      const matrix = workflow.jobs.shards.strategy.matrix.shard as number[];
      for (const step of shardSteps) expect(step).toContain(`--shard \${{ matrix.shard }}/${matrix.length}`);
      const forShard = (step: string, i: number) => step.replaceAll('${{ matrix.shard }}', String(i));
      const planStep = shardSteps.find((s) => s.includes(' plan '))!;
      const buildStep = shardSteps.find((s) => s.includes(' build '))!;
      const alone = (step: string) => step.replace(/ \|\|.*$/, '');
      // GitHub runs each step with bash -e.
      const bash = (step: string, again = true) => sh(step, { cwd: repo, env, shell: ['bash', '-e', '-c'], again });
      let skipped = 0;
      for (const i of matrix) {
        for (const step of shardSteps) {
          const r = bash(forShard(step, i), i !== matrix[0]);
          expect(r.code, `${step}\n${r.stderr}`).toBe(0);
          if (step === buildStep) skipped += lastJson(r.stdout).skipped as number;
          if (step.includes(' scan ')) expect(lastJson(r.stdout)).toMatchObject({ shard: `${i}/${matrix.length}`, exitCode: 0 });
        }
      }
      expect(skipped).toBe(1);
      const site = bash(siteStep!, false);
      expect(site.code, site.stderr).toBe(0);
      const local = join(dir, 'unsharded-actions');
      expect((await runCommand(['build', '--config', join(repo, 'config/badgepress.yaml'), '--store', join(repo, 'examples/store'), '--out', local, '--json'])).code).toBe(0);
      const published = served(await peer.objects('badges', 'site/'));
      const expected = served(readTree(local));
      expect([...published.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [key, body] of expected) expect(published.get(key)!.body.equals(body), key).toBe(true);
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
      await holdLease(peer, 'site/.badgepress/lease-shard-0-of-4.json', async () => {
        const held = bash(forShard(buildStep, 0));
        expect(held.code, held.stderr).toBe(0);
        expect(lastJson(held.stdout)).toMatchObject({ exitCode: 5 });
        expect(bash(alone(forShard(buildStep, 0))).code).toBe(5);
      });
    }, 240_000);
  });
});

describe('docs/guides/github.md: plan in review', () => {
  it('the Plan step, in a checkout whose thresholds changed, writes the Markdown table to plan.md and the job summary', () => {
    const github = doc('docs/guides/github.md');
    const workflow = [...github.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]!)).find((y) => y?.name === 'threshold impact');
    expect(workflow.on.pull_request.paths).toEqual(['config/**']);
    const step = (workflow.jobs.plan.steps as Array<{ name?: string; run?: string }>).find((s) => s.name === 'Plan')!.run!;
    const repo = checkout('github-plan');
    // The published site the pull request is compared with: the default config's build.
    expect(sh('npx badgepress build --json', { cwd: repo }).code).toBe(0);
    // The pull request: REUSED's gold band moves from 20 to 5 dependents (silver shrinks to nothing above bronze).
    const thresholds = join(repo, 'config/thresholds-a.yaml');
    const edited = readFileSync(thresholds, 'utf8').replace('{ min: 5, max: 19, status: silver }\n      - { min: 20, max: null, status: gold }', '{ min: 5, max: 5, status: silver }\n      - { min: 6, max: null, status: gold }');
    expect(edited).not.toBe(readFileSync(thresholds, 'utf8'));
    writeFileSync(thresholds, edited);
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '');
    // GitHub runs each step with bash -e.
    const r = sh(step, { cwd: repo, env: { GITHUB_STEP_SUMMARY: summary }, shell: ['bash', '-e', '-c'] });
    expect(r.code, r.stderr).toBe(0);
    const plan = readFileSync(join(repo, 'plan.md'), 'utf8');
    expect(plan).toMatch(/\| REUSED \|/);
    expect(plan).toMatch(/\|\s*-+\s*\|/);
    expect(readFileSync(summary, 'utf8')).toBe(plan);
  }, 120_000);
});

// The "Publishing to S3" guide, run as written against s3rver: every command line of its shell
// blocks in order, in a checkout holding ./store: its install line (the install every recipe
// here shares), then the first build through the real `npx`. What a test machine cannot do is
// stood in for and said so: the AWS CLI's `aws s3 mb` (a CreateBucket through the SDK at the
// same endpoint), and the real endpoints (AWS through AWS_ENDPOINT_URL_S3, MinIO's and R2's
// replaced by s3rver's); the later builds run the bin `npx badgepress` resolves to there, as
// npm's own start costs about a second of CPU a call.
const s3Guide = doc('docs/guides/publishing-to-s3.md');
const s3ShellBlocks = [...s3Guide.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
/** Command lines (comments and blank lines dropped, trailing "# …" comments cut). */
const s3Commands = s3ShellBlocks.map((b) =>
  b
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#')),
);

const CREATE_BUCKET = join(dir, 'create-bucket.mjs');
writeFileSync(
  CREATE_BUCKET,
  `import { createRequire } from 'node:module';
const { S3Client, CreateBucketCommand } = createRequire(${JSON.stringify(join(ROOT, 'package.json'))})('@aws-sdk/client-s3');
const client = new S3Client({ endpoint: process.env.AWS_ENDPOINT_URL_S3, forcePathStyle: true });
await client.send(new CreateBucketCommand({ Bucket: process.argv[2] }));
client.destroy();
`,
);
// Stand-ins: `aws s3 mb` creates the bucket through the SDK; after the first build,
// `npx badgepress` is the checkout's bin. Anything else the recipe calls fails the test.
const AWS_SHIM = `aws() { if [ "$1 $2" = "s3 mb" ]; then "${process.execPath}" "${CREATE_BUCKET}" "\${3#s3://}"; else echo "recipe runs aws $*" >&2; return 99; fi; }
`;
const npxShim = (work: string) => `npx() { if [ "$1" = badgepress ]; then shift; "${process.execPath}" "${join(work, 'bin/badgepress.js')}" "$@"; else echo "recipe runs npx $*" >&2; return 99; fi; }
`;

describe('docs/guides/publishing-to-s3.md, run from a fresh directory', () => {
  let peer: S3Peer;
  beforeAll(async () => {
    peer = await startS3Peer([]);
  }, 60_000);
  afterAll(async () => {
    await peer?.stop();
  });

  it('has the steps of a recipe: install, credentials, bucket, build with --store and --out, rebuild, prune', () => {
    const [main, compatible] = s3Commands;
    expect(main).toEqual([
      'npm ci --omit=dev',
      expect.stringMatching(/^export AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… AWS_REGION=/),
      expect.stringMatching(/^aws s3 mb s3:\/\//),
      expect.stringMatching(/^npx badgepress build --store \S+ --out s3:\/\/\S+$/),
      expect.stringMatching(/^npx badgepress build --store \S+ --out s3:\/\/\S+$/),
      expect.stringMatching(/^npx badgepress build --store \S+ --out s3:\/\/\S+ --prune$/),
    ]);
    for (const line of compatible!) expect(line).toMatch(/^npx badgepress build --store \S+ --out s3:\/\/\S+ --s3-endpoint \S+/);
  });

  it('every line succeeds against the S3 server and the bucket ends up holding the site', async () => {
    const [main, compatible] = s3Commands as [string[], string[]];
    // The install line is the scheduled-rebuilds guide's, which installedCheckout() ran as
    // written in a copy of the tracked files (and checked: lib/ compiled, no TypeScript):
    // this recipe starts from a copy of that install, with its ./store beside it.
    expect(main[0]).toBe('npm ci --omit=dev');
    expect(/```sh\n(git clone \S+ \/srv\/badgepress)\n(.+)\n```/.exec(guide)?.[2]).toBe(`cd /srv/badgepress && ${main[0]}`);
    const work = checkout('s3-guide');
    cpSync(join(ROOT, 'examples/store'), join(work, 'store'), { recursive: true, preserveTimestamps: true });
    const exports: string[] = [];
    const ownEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'AWS_ENDPOINT_URL_S3' && k !== 'AWS_ENDPOINT_URL'));
    let builds = 0;
    const run = (line: string, env: Record<string, string>) => {
      const shims = AWS_SHIM + (line.startsWith('npx badgepress ') && builds++ > 0 ? npxShim(work) : '');
      const r = spawnChecked('sh', ['-c', `${shims}${exports.join('\n')}\n${line}`], { cwd: work, env: { ...ownEnv, CI: 'true', NPM_CONFIG_USERCONFIG: npmrc, ...installEnv, ...env }, timeout: 120_000 });
      expect(r.status, `${line}\n${r.stderr}`).toBe(0);
      return r.stdout;
    };
    // The AWS lines reach s3rver through the standard chain, as they would reach AWS.
    const awsEnv = { AWS_ENDPOINT_URL_S3: peer.endpoint };
    const outputs: string[] = [];
    for (const line of main.slice(1)) {
      if (line.startsWith('export ')) {
        exports.push(line.replaceAll('…', 'S3RVER'));
        continue;
      }
      outputs.push(run(line, awsEnv));
    }
    // The install compiled lib/ with no TypeScript installed (a dev dependency).
    expect(existsSync(join(work, 'lib/cli.js'))).toBe(true);
    expect(existsSync(join(work, 'node_modules/typescript'))).toBe(false);
    const out = /--out s3:\/\/([^/\s]+)\/(\S+)/.exec(main.find((l) => l.includes('--out'))!)!;
    const [bucket, prefix] = [out[1]!, `${out[2]!.replace(/\/?$/, '/')}`];
    const local = join(dir, 'local');
    expect(spawnChecked(process.execPath, [join(ROOT, 'bin/badgepress.js'), 'build', '--config', join(work, 'config/badgepress.yaml'), '--store', join(work, 'store'), '--out', local], { env: { ...process.env, CI: 'true' } }).status).toBe(
      0,
    );
    const expected = readTree(local);
    // The build state under .badgepress/state/ is bookkeeping (readTree leaves it out locally
    // too), and so is the object build checks conditional writes on.
    const bookkeeping = (k: string) => k.startsWith('.badgepress/state/') || k === '.badgepress/conditional-writes-probe';
    const published = new Map([...(await peer.objects(bucket, prefix))].filter(([k]) => !bookkeeping(k)));
    expect([...published.keys()]).toEqual([...expected.keys()]);
    for (const [key, body] of expected) expect(published.get(key)!.body.equals(body), key).toBe(true);
    // Build, rebuild, prune: the first writes everything, the next ones nothing.
    expect(outputs[1]).toMatch(new RegExp(`, ${expected.size} files written, 0 unchanged`));
    // The rebuild writes nothing (store files written within 2 s of a build are read again, so
    // whether it skips repositories from the build state depends on the clock here).
    expect(outputs[2]).toMatch(/, 0 files written, \d+ unchanged/);
    expect(outputs[3]).toMatch(/, 0 files written, \d+ unchanged, 0 removed/);

    // The S3-compatible lines, with s3rver as their endpoint and no endpoint from the chain;
    // a stale object under a built repository shows that --prune still works there.
    // A repository's own folder (the site's pages and .badgepress/ come first in key order).
    const repo = [...expected.keys()]
      .find((key) => key.startsWith('api/v1/repositories/'))!
      .split('/')
      .slice(0, 4)
      .join('/');
    const c = peer.client();
    await c.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}${repo}/badges/GONE.svg`, Body: 'stale' }));
    c.destroy();
    for (const line of compatible) {
      const endpoint = /--s3-endpoint (\S+)/.exec(line)![1]!;
      // The stale object was put there by hand, behind the build state's back: --force makes the build look.
      const stdout = run(`${line.replace(endpoint, peer.endpoint)} --prune --force`, {});
      expect(stdout).toMatch(/, 0 files written, \d+ unchanged, \d removed/);
    }
    expect((await peer.objects(bucket, prefix)).has(`${repo}/badges/GONE.svg`)).toBe(false);
  });
});
