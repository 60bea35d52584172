// The README's recipes: they parse and name real flags, and the scheduled-rebuild ones are
// tried: each command is taken from the README as written and run with `npx badgepress`
// meaning this checkout, against a real S3 peer where the recipe names buckets
// (AWS_ENDPOINT_URL_S3 points the standard AWS chain at s3rver).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from './helpers/cli.ts';
import { readTree } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';
import { startS3Peer, type S3Peer } from './helpers/s3-peer.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const blocks = (lang: string) => [...readme.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

describe('README recipes', () => {
  it('the YAML recipes parse and name real flags', () => {
    const yamls = blocks('yaml').map((y) => parse(y));
    const workflow = yamls.find((y) => y?.jobs);
    expect(workflow.jobs.publish.steps.some((s: { run?: string }) => s.run?.includes('npx badgepress build --store s3://'))).toBe(true);
    const cron = yamls.find((y) => y?.kind === 'CronJob');
    expect(cron.spec.jobTemplate.spec.completionMode).toBe('Indexed');
    expect(cron.spec.jobTemplate.spec.template.spec.containers[0].args[0]).toContain('--shard "$JOB_COMPLETION_INDEX/4"');
  });

  it('every badgepress flag the README uses exists in the command usage', async () => {
    const { BUILD_USAGE } = await import('../src/commands/build.ts');
    const { PLAN_USAGE } = await import('../src/commands/plan.ts');
    const { SERVE_USAGE } = await import('../src/commands/serve.ts');
    const usage = `${BUILD_USAGE} ${PLAN_USAGE} ${SERVE_USAGE} --help`;
    const used = new Set([...readme.matchAll(/npx badgepress (?:build|plan|serve)[^\n`]*/g)].flatMap((m) => [...m[0].matchAll(/--[a-z0-9-]+/g)].map((f) => f[0])));
    expect(used.size).toBeGreaterThan(5);
    for (const flag of used) expect(usage, flag).toContain(flag);
  });
});

const dir = tempDir();

// `npx badgepress …` in a recipe runs this checkout's command, as an installed package would.
const NPX_SHIM = `npx() { if [ "$1" = badgepress ]; then shift; "${process.execPath}" "${join(ROOT, 'bin/badgepress.js')}" "$@"; else command npx "$@"; fi; }\n`;
function sh(script: string, opts: { cwd?: string; env?: Record<string, string> } = {}) {
  const r = spawnSync('sh', ['-c', NPX_SHIM + script], { cwd: opts.cwd ?? ROOT, env: { ...process.env, CI: 'true', ...opts.env }, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;

/** A deployment directory like /srv/badgepress: the shipped config and the example store. */
function deployment(name: string): string {
  const srv = join(dir, name);
  cpSync(join(ROOT, 'config'), join(srv, 'config'), { recursive: true });
  cpSync(join(ROOT, 'examples/store'), join(srv, 'examples/store'), { recursive: true });
  return srv;
}

describe('README scheduled-rebuild recipes, run', () => {
  it('the cron line builds, appends one JSON summary per run, and the second run writes nothing', () => {
    const line = /^\*\/30 \* \* \* \* (.+)$/m.exec(readme);
    expect(line, 'cron line in the README').not.toBeNull();
    const srv = deployment('srv-cron');
    const logs = join(dir, 'log');
    mkdirSync(logs);
    const command = line![1]!.replaceAll('/srv/badgepress', srv).replaceAll('/var/log/', `${logs}/`);
    expect(command).not.toContain('/var/');
    for (let i = 0; i < 2; i++) expect(sh(command).code).toBe(0);
    const runs = readFileSync(join(logs, 'badgepress.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(runs).toHaveLength(2);
    expect(runs[0].written).toBeGreaterThan(0);
    expect(runs[1]).toMatchObject({ written: 0, unchanged: runs[0].written, exitCode: 0 });
    expect(readFileSync(join(logs, 'badgepress.err'), 'utf8')).toBe('');
    expect(readdirSync(join(srv, 'dist/api/v1/repositories')).length).toBeGreaterThan(0);
  });

  it.skipIf(spawnSync('sh', ['-c', 'command -v systemd-analyze']).status !== 0)('the systemd units verify, and ExecStart succeeds in WorkingDirectory', () => {
    const units = blocks('ini');
    const service = units.find((u) => u.includes('[Service]'));
    const timer = units.find((u) => u.includes('[Timer]'));
    expect(service && timer).toBeTruthy();
    const srv = deployment('srv-systemd');
    const unitDir = join(dir, 'units');
    mkdirSync(unitDir);
    writeFileSync(join(unitDir, 'badgepress.service'), service!.replace('WorkingDirectory=/srv/badgepress', `WorkingDirectory=${srv}`));
    writeFileSync(join(unitDir, 'badgepress.timer'), timer!);
    const verify = spawnSync('systemd-analyze', ['verify', join(unitDir, 'badgepress.service'), join(unitDir, 'badgepress.timer')], { encoding: 'utf8' });
    expect(verify.stderr).toBe('');
    expect(verify.status).toBe(0);
    const exec = /^ExecStart=\S+ (badgepress .+)$/m.exec(service!)![1]!;
    const success = [0, ...(/^SuccessExitStatus=(.+)$/m.exec(service!)?.[1]?.split(/\s+/).map(Number) ?? [])];
    const r = sh(`npx ${exec}`, { cwd: srv });
    expect(success).toContain(r.code);
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
      client.destroy();
    }, 60_000);
    afterAll(async () => {
      await peer?.stop();
    });

    it('the Kubernetes CronJob: every indexed shard together publishes exactly the site of one build', async () => {
      const cron = blocks('yaml').map((y) => parse(y)).find((y) => y?.kind === 'CronJob');
      const job = cron.spec.jobTemplate.spec;
      const container = job.template.spec.containers[0];
      expect(container.command).toEqual(['sh', '-c']);
      for (let i = 0; i < job.completions; i++) {
        const r = sh(container.args[0], { env: { ...env, JOB_COMPLETION_INDEX: String(i) } });
        expect(r.code, r.stderr).toBe(0);
        expect(lastJson(r.stdout).shard).toBe(`${i}/${job.completions}`);
      }
      const local = join(dir, 'unsharded');
      expect(sh(`npx badgepress build --store examples/store --out ${local} --json`).code).toBe(0);
      const published = await peer.objects('badges', 'site/');
      const expected = readTree(local);
      expect([...published.keys()]).toEqual([...expected.keys()]);
      for (const [key, body] of expected) expect(published.get(key)!.body.equals(body), key).toBe(true);
    }, 120_000);

    it('the GitHub Actions workflow: plan shows no change after the shards, build publishes nothing again', () => {
      const workflow = blocks('yaml').map((y) => parse(y)).find((y) => y?.jobs);
      const steps = (workflow.jobs.publish.steps as Array<{ run?: string }>).map((s) => s.run).filter((r): r is string => r?.includes('npx badgepress') ?? false);
      expect(steps).toHaveLength(2);
      for (const step of steps) {
        const r = sh(step, { env });
        expect(r.code, `${step}\n${r.stderr}`).toBe(0);
      }
      // The same plan as the workflow's, alone: nothing to change (exit 0), and it says so.
      const plan = sh(steps.find((s) => s.includes(' plan '))!.replace(/ \|\|.*$/, ''), { env });
      expect(plan.code).toBe(0);
      expect(lastJson(plan.stdout)).toMatchObject({ added: 0, changed: 0, removed: 0 });
      const build = sh(steps.find((s) => s.includes(' build '))!, { env });
      expect(lastJson(build.stdout)).toMatchObject({ written: 0, removed: 0 });
    }, 120_000);
  });
});
