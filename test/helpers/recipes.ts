// What the recipe tests share (test/docs-recipes*.test.ts): the guides' texts, their install
// run as written in a copy of the tracked files, and recipe lines run through the real `npx`.
// The recipes are split over several files because vitest runs files side by side, not the
// tests of one file; each file makes its own kit (a temporary directory of its own and one
// install), as a module-level directory would be shared, and removed, across the files a
// worker runs in turn.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect } from 'vitest';
import { type S3Peer, startS3Peer } from '../../scripts/lib/s3-peer.ts';
import { copyTracked } from './checkout.ts';
import { ROOT, spawnChecked } from './cli.ts';
import { tempDir } from './tmp.ts';

export const doc = (path: string) => readFileSync(join(ROOT, path), 'utf8');
export const guide = doc('docs/guides/scheduled-rebuilds.md');
/** The guide's fenced blocks of one language. */
export const blocks = (lang: string) =>
  [...guide.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
export const lastJson = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;

/** Where the guide's recipes find Node 24, and where the Node running this test lives. */
export const GUIDE_NODE = '/opt/node24';
export const TEST_NODE = dirname(dirname(process.execPath));

/** The packages come from npm's cache when it has them (a test environment's choice, not the recipe's). */
export const installEnv = { npm_config_prefer_offline: 'true' };

/** One record the loader refuses (a timestamp that is no number). */
export const BAD_RECORD = `${JSON.stringify({ repositoryUrl: 'https://github.com/acme/widget', timestamp: 'yesterday', values: {} })}\n`;

/** Without the `.badgepress/` bookkeeping (shard summaries), which is never served and differs between a sharded and an unsharded build. */
export const served = <T>(tree: Map<string, T>) =>
  new Map([...tree].filter(([key]) => !key.startsWith('.badgepress/')));

export interface RecipeKit {
  dir: string;
  npmrc: string;
  baseEnv: Record<string, string>;
  sh(
    script: string,
    opts: { cwd: string; env?: Record<string, string>; shell?: string[]; again?: boolean },
  ): { code: number | null; stdout: string; stderr: string };
  /** The guide's install (clone, `npm ci --omit=dev`, then the site's own config), once per kit. */
  installedCheckout(): string;
  /** A copy of the installed checkout, its production packages linked rather than copied. */
  checkout(name: string): string;
}

export function recipeKit(): RecipeKit {
  const dir = tempDir();
  // This machine's ~/.npmrc carries a key npm warns about on stderr, which the cron recipe's
  // error log would record: the recipes run with an empty npm user config instead, and without
  // the npm_config_* variables `npx vitest` passes down (cron, systemd or a pod has none).
  const npmrc = join(dir, 'npmrc');
  writeFileSync(npmrc, '');
  const baseEnv = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => !/^npm_/i.test(e[0]) && e[1] !== undefined,
    ),
  );

  /**
   * Runs a recipe line. The first run of each step goes through the real `npx`, which proves the
   * command resolves as written; `again` runs the same step with what `npx badgepress` resolves
   * to in a checkout (its bin, by the same Node), because npm's own start costs about a second
   * of CPU a call and a recipe's repeated runs (more shards, a second run) add nothing to that proof.
   */
  const sh: RecipeKit['sh'] = (script, opts) => {
    const [shell, ...flags] = opts.shell ?? ['sh', '-c'];
    if (opts.again) {
      expect(script).toContain('npx badgepress ');
      script = script.replaceAll(
        'npx badgepress ',
        `'${process.execPath}' '${join(opts.cwd, 'bin/badgepress.js')}' `,
      );
    }
    const r = spawnChecked(shell!, [...flags, script], {
      cwd: opts.cwd,
      env: { ...baseEnv, CI: 'true', NPM_CONFIG_USERCONFIG: npmrc, ...opts.env },
      timeout: 120_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  let installed: string | undefined;
  const installedCheckout = () => {
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
    // The site's own config, store and output (the checkout's config/ builds the demo store).
    const init = /```sh\n(cd \/srv\/badgepress && npx badgepress init site)\n```/.exec(guide);
    expect(init, 'the init line in the guide').not.toBeNull();
    const i = sh(init![1]!.replaceAll('/srv/badgepress', srv), { cwd: srv, again: true });
    expect(i.code, i.stderr).toBe(0);
    expect(existsSync(join(srv, 'site/config/repositories.txt'))).toBe(true);
    installed = srv;
    return srv;
  };

  const checkout = (name: string) => {
    const from = installedCheckout();
    const copy = join(dir, name);
    cpSync(from, copy, {
      recursive: true,
      verbatimSymlinks: true,
      preserveTimestamps: true,
      filter: (src) => src !== join(from, 'node_modules'),
    });
    symlinkSync(join(from, 'node_modules'), join(copy, 'node_modules'), 'dir');
    return copy;
  };

  return { dir, npmrc, baseEnv, sh, installedCheckout, checkout };
}

/**
 * A bare repository on disk with one commit two days old (before the midnight a recipe's
 * `--as-of "$(date -u +%F)"` scans as of), listed with `mirror=` in the site's repositories.txt.
 * Returns the URL it is published under.
 */
export function listLocalRepository(srv: string): string {
  const work = join(srv, '..', `${srv.split('/').pop()}-project`);
  mkdirSync(work);
  const at = `@${Math.floor(Date.now() / 1000) - 2 * 86_400} +0000`;
  const env = {
    PATH: process.env.PATH!,
    HOME: work,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_DATE: at,
    GIT_COMMITTER_DATE: at,
  };
  const git = (args: string[], cwd = work) =>
    execFileSync('git', args, { cwd, env, stdio: 'pipe' });
  git(['init', '-q', '-b', 'main']);
  writeFileSync(join(work, 'SECURITY.md'), 'Report vulnerabilities by e-mail.\n');
  git(['add', '.']);
  git(['-c', 'user.name=Me', '-c', 'user.email=me@example.org', 'commit', '-q', '-m', 'First']);
  git(['clone', '-q', '--bare', work, `${work}.git`], dirname(work));
  const url = 'https://example.org/me/my-project';
  writeFileSync(join(srv, 'site/config/repositories.txt'), `${url} mirror=${work}.git\n`);
  return url;
}

/** Runs `fn` while a live build of this host (this test's own process) holds the lease at `key` of the badges bucket. */
export async function holdLease(peer: S3Peer, key: string, fn: () => Promise<void>) {
  // A client per request: the peer closes a keep-alive socket left idle while the recipe runs.
  const send = async (command: PutObjectCommand | DeleteObjectCommand) => {
    const client = peer.client();
    await client.send(command as PutObjectCommand);
    client.destroy();
  };
  const now = Math.floor(Date.now() / 1000);
  const record = {
    host: hostname(),
    pid: process.pid,
    token: 'held-by-the-test',
    acquiredAt: now,
    expiresAt: now + 600,
  };
  await send(
    new PutObjectCommand({
      Bucket: 'badges',
      Key: key,
      Body: JSON.stringify(record),
      ContentType: 'application/json',
    }),
  );
  try {
    await fn();
  } finally {
    await send(new DeleteObjectCommand({ Bucket: 'badges', Key: key }));
  }
}

/**
 * The S3 recipes' peer, for the file that calls this: buckets `scans` (the store: the demo
 * store and one bad record) and `badges` (the site), and the environment that points the
 * standard AWS chain at it. Read `peer` and `env` in tests (they are set before the first).
 */
export function scansPeer(): { peer: S3Peer; env: Record<string, string> } {
  const held = {} as { peer: S3Peer; env: Record<string, string> };
  beforeAll(async () => {
    held.peer = await startS3Peer(['scans', 'badges']);
    held.env = { ...held.peer.env, AWS_ENDPOINT_URL_S3: held.peer.endpoint };
    await fillScans(held.peer);
  }, 60_000);
  afterAll(async () => {
    await held.peer?.stop();
  });
  return held;
}

async function fillScans(peer: S3Peer) {
  const client = peer.client();
  for (const name of readdirSync(join(ROOT, 'examples/store'))) {
    await client.send(
      new PutObjectCommand({
        Bucket: 'scans',
        Key: `values/${name}`,
        Body: readFileSync(join(ROOT, 'examples/store', name)),
      }),
    );
  }
  await client.send(
    new PutObjectCommand({ Bucket: 'scans', Key: 'values/zz-bad.ndjson', Body: BAD_RECORD }),
  );
  client.destroy();
}
