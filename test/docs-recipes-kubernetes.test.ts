// docs/guides/scheduled-rebuilds.md's Kubernetes recipe, run as written: the guide's Dockerfile
// makes the image when its instructions run in order without a container engine (test/helpers/
// dockerfile.ts), from the checkout's tracked files less the .dockerignore, with the site's own
// config that the guide's `init site` writes there; then every indexed pod's scan and build and
// the site CronJob's step, with the real `npx`, against s3rver (AWS_ENDPOINT_URL_S3 points the
// standard AWS chain at it), with a store holding one bad record.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { copyTracked } from './helpers/checkout.ts';
import { buildImage, ignored } from './helpers/dockerfile.ts';
import {
  blocks,
  guide,
  holdLease,
  installEnv,
  lastJson,
  recipeKit,
  scansPeer,
  served,
} from './helpers/recipes.ts';
import { readTree } from './helpers/site.ts';

const { dir, npmrc, baseEnv, sh } = recipeKit();
const s3 = scansPeer();

describe('docs/guides/scheduled-rebuilds.md: Kubernetes, run against an S3 peer', () => {
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
    // The build context is the checkout after the guide's `init site` (its lib/ and
    // node_modules/ are .dockerignored, so the init line runs with this checkout's bin).
    const init = /```sh\n(cd \/srv\/badgepress && npx badgepress init site)\n```/.exec(guide)![1]!;
    const i = sh(
      init.replace(
        'cd /srv/badgepress && npx badgepress ',
        `'${process.execPath}' '${join(ROOT, 'bin/badgepress.js')}' `,
      ),
      { cwd: context },
    );
    expect(i.code, i.stderr).toBe(0);
    const app = buildImage(dockerfile[0]!, context, join(dir, 'image'), {
      ...baseEnv,
      NPM_CONFIG_USERCONFIG: npmrc,
      ...installEnv,
    });
    // The image: the checkout with its production packages and the compiled CLI, no compiler.
    expect(existsSync(join(app, 'lib/cli.js'))).toBe(true);
    expect(existsSync(join(app, 'node_modules/@aws-sdk/client-s3'))).toBe(true);
    expect(existsSync(join(app, 'node_modules/typescript'))).toBe(false);
    const crons = blocks('yaml')
      .map((y) => parse(y))
      .filter((y) => y?.kind === 'CronJob');
    const job = crons.find((c) => c.spec.jobTemplate.spec.completionMode === 'Indexed').spec
      .jobTemplate.spec;
    const siteJob = crons.find((c) => c.spec.jobTemplate.spec.completionMode === undefined).spec
      .jobTemplate.spec;
    const container = job.template.spec.containers[0];
    const scanContainer = job.template.spec.initContainers[0];
    for (const c of [container, scanContainer, siteJob.template.spec.containers[0]]) {
      expect(c.image).toBe(container.image);
      expect(c.image).not.toMatch(/^node:/);
      expect(c.workingDir).toBe('/app');
      expect(c.command).toEqual(['sh', '-c']);
    }
    // A shard whose lease another build holds: the pod succeeds (exit 5 is "someone else is publishing"), writing nothing.
    await holdLease(s3.peer, 'site/.badgepress/lease-shard-1-of-4.json', async () => {
      const held = sh(container.args[0], {
        cwd: app,
        env: { ...s3.env, JOB_COMPLETION_INDEX: '1' },
      });
      expect(held.code, held.stderr).toBe(0);
      expect(lastJson(held.stdout)).toMatchObject({ exitCode: 5, holder: { pid: process.pid } });
      expect(
        sh(container.args[0].replace(/ \|\|.*$/, ''), {
          cwd: app,
          env: { ...s3.env, JOB_COMPLETION_INDEX: '1' },
          again: true,
        }).code,
      ).toBe(5);
    });
    expect(served(await s3.peer.objects('badges', 'site/')).size).toBe(0);
    let skipped = 0;
    for (let i = 0; i < job.completions; i++) {
      // The pod's init container first: its shard's scan (the list names no repository yet).
      const scanned = sh(scanContainer.args[0], {
        cwd: app,
        env: { ...s3.env, JOB_COMPLETION_INDEX: String(i) },
        again: i > 0,
      });
      expect(scanned.code, scanned.stderr).toBe(0);
      expect(lastJson(scanned.stdout)).toMatchObject({
        shard: `${i}/${job.completions}`,
        exitCode: 0,
      });
      const r = sh(container.args[0], {
        cwd: app,
        env: { ...s3.env, JOB_COMPLETION_INDEX: String(i) },
        again: true,
      });
      expect(r.code, r.stderr).toBe(0);
      const summary = lastJson(r.stdout);
      expect(summary.shard).toBe(`${i}/${job.completions}`);
      expect(summary.exitCode).toBe(summary.skipped ? 1 : 0);
      skipped += summary.skipped as number;
    }
    // The bad record is reported once, by the shard its repository belongs to.
    expect(skipped).toBe(1);
    // Before the site step the home page is missing; after it, the shards and the site step published one unsharded build.
    expect((await s3.peer.objects('badges', 'site/')).has('index.html')).toBe(false);
    const site = sh(siteJob.template.spec.containers[0].args[0], { cwd: app, env: s3.env });
    expect(site.code, site.stderr).toBe(0);
    expect(lastJson(site.stdout)).toMatchObject({ shards: 4, repositories: 4 });
    // The reference: one unsharded build of the same store (not a recipe step), in-process.
    const local = join(dir, 'unsharded');
    expect(
      (
        await runCommand([
          'build',
          '--config',
          join(app, 'site/config/badgepress.yaml'),
          '--store',
          join(app, 'examples/store'),
          '--out',
          local,
          '--json',
        ])
      ).code,
    ).toBe(0);
    const published = served(await s3.peer.objects('badges', 'site/'));
    const expected = served(readTree(local));
    expect(expected.has('index.html')).toBe(true);
    expect([...published.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, body] of expected)
      expect(published.get(key)!.body.equals(body), key).toBe(true);
  }, 180_000);
});
