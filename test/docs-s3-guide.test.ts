// docs/guides/publishing-to-s3.md, run as written against s3rver (see the comment below).
// Its install line is the scheduled-rebuilds guide's, run here as written in a copy of the
// tracked files (test/helpers/recipes.ts); the other recipes are in test/docs-recipes*.test.ts.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnChecked } from './helpers/cli.ts';
import { copyTracked } from './helpers/checkout.ts';
import { freePort } from './helpers/free-port.ts';
import { doc, guide, installEnv, recipeKit } from './helpers/recipes.ts';
import { readTree } from './helpers/site.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';

const { dir, npmrc, baseEnv, checkout } = recipeKit();

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
const npxShim = (
  work: string,
) => `npx() { if [ "$1" = badgepress ]; then shift; "${process.execPath}" "${join(work, 'bin/badgepress.js')}" "$@"; else echo "recipe runs npx $*" >&2; return 99; fi; }
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
    for (const line of compatible!)
      expect(line).toMatch(/^npx badgepress build --store \S+ --out s3:\/\/\S+ --s3-endpoint \S+/);
  });

  it('every line succeeds against the S3 server and the bucket ends up holding the site', async () => {
    const [main, compatible] = s3Commands as [string[], string[]];
    // The install line is the scheduled-rebuilds guide's, which installedCheckout() ran as
    // written in a copy of the tracked files (and checked: lib/ compiled, no TypeScript):
    // this recipe starts from a copy of that install, with its ./store beside it.
    expect(main[0]).toBe('npm ci --omit=dev');
    expect(/```sh\n(git clone \S+ \/srv\/badgepress)\n(.+)\n```/.exec(guide)?.[2]).toBe(
      `cd /srv/badgepress && ${main[0]}`,
    );
    const work = checkout('s3-guide');
    cpSync(join(ROOT, 'examples/store'), join(work, 'store'), {
      recursive: true,
      preserveTimestamps: true,
    });
    const exports: string[] = [];
    const ownEnv = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !/^npm_/i.test(k) && k !== 'AWS_ENDPOINT_URL_S3' && k !== 'AWS_ENDPOINT_URL',
      ),
    );
    let builds = 0;
    const run = (line: string, env: Record<string, string>) => {
      const shims =
        AWS_SHIM + (line.startsWith('npx badgepress ') && builds++ > 0 ? npxShim(work) : '');
      const r = spawnChecked('sh', ['-c', `${shims}${exports.join('\n')}\n${line}`], {
        cwd: work,
        env: { ...ownEnv, CI: 'true', NPM_CONFIG_USERCONFIG: npmrc, ...installEnv, ...env },
        timeout: 120_000,
      });
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
    expect(
      spawnChecked(
        process.execPath,
        [
          join(ROOT, 'bin/badgepress.js'),
          'build',
          '--config',
          join(work, 'config/badgepress.yaml'),
          '--store',
          join(work, 'store'),
          '--out',
          local,
        ],
        { env: { ...process.env, CI: 'true' } },
      ).status,
    ).toBe(0);
    const expected = readTree(local);
    // The build state under .badgepress/state/ is bookkeeping (readTree leaves it out locally
    // too), and so is the object build checks conditional writes on.
    const bookkeeping = (k: string) =>
      k.startsWith('.badgepress/state/') || k === '.badgepress/conditional-writes-probe';
    const published = new Map(
      [...(await peer.objects(bucket, prefix))].filter(([k]) => !bookkeeping(k)),
    );
    expect([...published.keys()]).toEqual([...expected.keys()]);
    for (const [key, body] of expected)
      expect(published.get(key)!.body.equals(body), key).toBe(true);
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
    await c.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `${prefix}${repo}/badges/GONE.svg`,
        Body: 'stale',
      }),
    );
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

describe('docs/guides/publishing-to-s3.md: a local S3 to try it on', () => {
  it('the s3rver line starts a server with the bucket, and the lines after it build the demo site into it', async () => {
    // The two blocks after the S3-compatible lines: the server's, then the build's.
    const [server, build] = s3Commands.slice(2) as [string[], string[]];
    expect(server).toEqual([expect.stringMatching(/^npx s3rver /)]);
    expect(build.at(-1)).toMatch(
      /^npx badgepress build .*--s3-endpoint http:\/\/127\.0\.0\.1:4568 /,
    );
    // A checkout after `npm ci` (dev dependencies included): the tracked files, this
    // checkout's packages and compiled lib/.
    const work = copyTracked(join(dir, 'local-s3'));
    symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'));
    symlinkSync(join(ROOT, 'lib'), join(work, 'lib'));
    const port = String(await freePort());
    const env = { ...baseEnv, CI: 'true', NPM_CONFIG_USERCONFIG: npmrc };
    const s3rver = spawn('sh', ['-c', `${server[0]} --port ${port}`], {
      cwd: work,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    s3rver.stdout!.on('data', (c: Buffer) => (said += c.toString()));
    s3rver.stderr!.on('data', (c: Buffer) => (said += c.toString()));
    try {
      for (
        let i = 0;
        i < 1500 && !said.includes('S3rver listening on') && s3rver.exitCode === null;
        i++
      )
        await sleep(20);
      expect(said).toContain(`S3rver listening on 127.0.0.1:${port}`);
      // The build's lines in one shell, as typed in the other terminal.
      const r = spawnChecked(
        'sh',
        ['-c', ['set -e', ...build].join('\n').replaceAll(':4568', `:${port}`)],
        {
          cwd: work,
          env,
          timeout: 120_000,
        },
      );
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain('conditional');
      const written = Number(/, (\d+) files written, 0 unchanged/.exec(r.stdout)?.[1]);
      expect(written).toBeGreaterThan(10);
      // s3rver keeps each object as a file under the bucket's folder (KEY._S3rver_object).
      expect(readdirSync(join(work, '.s3rver/my-badges/site'))).toContain(
        'index.html._S3rver_object',
      );
    } finally {
      process.kill(-s3rver.pid!, 'SIGTERM');
    }
  });
});
