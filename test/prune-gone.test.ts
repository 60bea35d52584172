// `build --prune` and repositories that left the store (every record deleted): their API
// files and pages go, on a directory and on S3 (s3rver), whether the build state tracks them
// (incremental) or the output's listing is read (--force, no state); a shard prunes only its
// own. Without --prune nothing is deleted, but the site-wide pages stop linking them.
import { cpSync, existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { runCliAsync } from './helpers/cli-async.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { tempDir } from './helpers/tmp.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';
import { shardOf } from '../src/model/shard.ts';

const dir = tempDir();
const NOW = '1763600000';
const pristine = join(dir, 'pristine');
generateStore({ repos: 8, scans: 2, out: pristine, seed: 11 });

/** Store file name → the repository URL it holds (gen-store writes one repository per file). */
const urlOf = new Map(
  readdirSync(pristine).map((name) => [
    name,
    (
      JSON.parse(readFileSync(join(pristine, name), 'utf8').split('\n')[0]!) as {
        repositoryUrl: string;
      }
    ).repositoryUrl,
  ]),
);
const files = [...urlOf.keys()].sort();

function freshStore(name: string): string {
  const store = join(dir, name);
  cpSync(pristine, store, { recursive: true });
  return store;
}

/** Deletes a repository's records from the store; its URL and key segment. */
function dropRepository(store: string, file: string): { url: string; enc: string } {
  rmSync(join(store, file));
  const url = urlOf.get(file)!;
  return { url, enc: encodeURIComponent(url) };
}

/**
 * A build or plan, in this process (the command's main()); spawned as the real CLI for the S3
 * steps (the AWS SDK's one-time warning would land in a captured stderr) and where a test
 * asks for it, so --prune also runs through the compiled command.
 */
async function cli(
  args: string[],
  env: Record<string, string> = {},
  spawned = Object.keys(env).length > 0,
): Promise<string> {
  // NODE_NO_WARNINGS: the AWS SDK warns about the Node version on stderr, which must be empty.
  const r = await (spawned ? runCliAsync : runCommand)([...args, '--now', NOW], {
    env: { NODE_NO_WARNINGS: '1', ...env },
  });
  expect(r.stderr).toBe('');
  expect(r.code, r.stdout).toBe(0);
  return r.stdout;
}

/** Keys below a directory output, relative, '/'-separated (state and lease left out). */
function treeKeys(out: string): string[] {
  return readdirSync(out, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) =>
      join(e.parentPath, e.name)
        .slice(out.length + 1)
        .split('\\')
        .join('/'),
    )
    .filter((k) => !k.startsWith('.badgepress/'))
    .sort();
}

const siteWide = ['index.html', 'sitemap.xml', 'repositories/index.html', 'search/-.json'];

function expectUnlisted(read: (key: string) => string, enc: string): void {
  for (const key of siteWide) expect(read(key), key).not.toContain(enc);
}

describe('a directory output', () => {
  it('incremental: without --prune its files stay but no site-wide page links it; plan counts them; --prune removes them and their directories', async () => {
    const store = freshStore('dir-incr');
    const out = join(dir, 'out-dir-incr');
    await cli(['build', '--store', store, '--out', out]);
    const gone = dropRepository(store, files[2]!);
    const apiDir = join(out, 'api/v1/repositories', gone.enc);
    const pageDir = join(out, 'repositories', gone.enc);
    await cli(['build', '--store', store, '--out', out]);
    // Today's behaviour without --prune: nothing deleted…
    expect(existsSync(join(apiDir, 'index.json'))).toBe(true);
    expect(existsSync(join(pageDir, 'index.html'))).toBe(true);
    // …but the home page, the sitemap and the search index no longer lead to it.
    expectUnlisted((k) => readFileSync(join(out, k), 'utf8'), gone.enc);
    // Its files stay, and so does the search's file of "2", a part of no other name than tool2.
    expect(gone.url).toBe('https://codeberg.org/u0/tool2');
    const published = [
      ...treeKeys(out).filter((k) => k.includes(`/${gone.enc}/`)),
      'search/2.json',
    ];
    expect(existsSync(join(out, 'search/2.json'))).toBe(true);
    expect(published.length).toBeGreaterThan(3);

    const plan = JSON.parse(
      await runCliAsync(['plan', '--store', store, '--out', out, '--json', '--now', NOW]).then(
        (r) => r.stdout,
      ),
    ) as { removed: number };
    // plan compares API files only (pages are not rendered by plan): the API keys, the two pages and the search file.
    expect(plan.removed).toBe(published.length);

    const before = treeKeys(out);
    const stdout = await cli(['build', '--prune', '--store', store, '--out', out], {}, true);
    expect(stdout).toContain(`${published.length} removed`);
    expect(existsSync(apiDir)).toBe(false);
    expect(existsSync(pageDir)).toBe(false);
    // Only its files went.
    expect(treeKeys(out)).toEqual(before.filter((k) => !published.includes(k)));
    // The state knows it: the next --prune build removes nothing.
    expect(await cli(['build', '--prune', '--store', store, '--out', out])).toContain(
      ', 0 removed',
    );
  }, 120_000);

  it('a repository that left during a build without --prune is removed by a later incremental --prune build (the state keeps it)', async () => {
    const store = freshStore('dir-later');
    const out = join(dir, 'out-dir-later');
    await cli(['build', '--prune', '--store', store, '--out', out]);
    const gone = dropRepository(store, files[3]!);
    await cli(['build', '--store', store, '--out', out]);
    // The state's first line (its header) holds what left the store.
    const state = JSON.parse(
      readFileSync(join(out, '.badgepress/state/1/0.json'), 'utf8').split('\n')[0]!,
    ) as {
      gone?: string[];
    };
    expect(state.gone).toEqual([gone.url]);
    await cli(['build', '--prune', '--store', store, '--out', out]);
    expect(existsSync(join(out, 'api/v1/repositories', gone.enc))).toBe(false);
    expect(existsSync(join(out, 'repositories', gone.enc))).toBe(false);
  }, 120_000);

  it('--force (no state): the published repositories come from the listing', async () => {
    const store = freshStore('dir-force');
    const out = join(dir, 'out-dir-force');
    await cli(['build', '--store', store, '--out', out]);
    const gone = dropRepository(store, files[0]!);
    rmSync(join(out, '.badgepress/state'), { recursive: true });
    await cli(['build', '--prune', '--force', '--store', store, '--out', out]);
    expect(existsSync(join(out, 'api/v1/repositories', gone.enc))).toBe(false);
    expect(existsSync(join(out, 'repositories', gone.enc))).toBe(false);
    // Files beside the repositories' directories are not repositories.
    expect(existsSync(join(out, 'repositories/index.html'))).toBe(true);
    expect(
      treeKeys(out)
        .filter((k) => k.startsWith('api/v1/repositories/'))
        .map((k) => k.split('/')[3]),
    ).not.toContain(gone.enc);
    expectUnlisted((k) => readFileSync(join(out, k), 'utf8'), gone.enc);
  }, 120_000);

  it('--shard i/n prunes only the repositories of its own shard', async () => {
    const store = freshStore('dir-shard');
    const out = join(dir, 'out-dir-shard');
    for (const i of [0, 1])
      await cli(['build', '--shard', `${i}/2`, '--store', store, '--out', out]);
    const byShard = [0, 1].map((i) => files.find((f) => shardOf(urlOf.get(f)!, 2) === i)!);
    const [gone0, gone1] = byShard.map((f) => dropRepository(store, f));
    // Shard 0 has no usable listing of shard 1's repositories: --force makes it list the output.
    await cli(['build', '--prune', '--force', '--shard', '0/2', '--store', store, '--out', out]);
    expect(existsSync(join(out, 'api/v1/repositories', gone0!.enc))).toBe(false);
    expect(existsSync(join(out, 'repositories', gone0!.enc))).toBe(false);
    expect(existsSync(join(out, 'api/v1/repositories', gone1!.enc, 'index.json'))).toBe(true);
    expect(existsSync(join(out, 'repositories', gone1!.enc, 'index.html'))).toBe(true);
    // Shard 1 (incremental, from its state) removes its own.
    await cli(['build', '--prune', '--shard', '1/2', '--store', store, '--out', out]);
    expect(existsSync(join(out, 'api/v1/repositories', gone1!.enc))).toBe(false);
    expect(existsSync(join(out, 'repositories', gone1!.enc))).toBe(false);
  }, 120_000);
});

describe('an S3 output (s3rver)', () => {
  let peer: S3Peer;
  beforeAll(async () => {
    peer = await startS3Peer(['site']);
  }, 60_000);
  afterAll(async () => {
    await peer?.stop();
  });
  const s3 = (prefix: string) => [
    '--out',
    `s3://site/${prefix}/`,
    '--s3-endpoint',
    peer.endpoint,
    '--s3-path-style',
  ];
  const keysOf = async (prefix: string) => [...(await peer.objects('site', `${prefix}/`)).keys()];

  it('incremental and --force: --prune removes the API files and pages of a repository that left the store', async () => {
    const store = freshStore('s3-store');
    await cli(['build', '--store', store, ...s3('p')], peer.env);
    const first = dropRepository(store, files[1]!);
    await cli(['build', '--store', store, ...s3('p')], peer.env);
    const objects = await peer.objects('site', 'p/');
    expect([...objects.keys()].some((k) => k.startsWith(`repositories/${first.enc}/`))).toBe(true);
    expectUnlisted((k) => objects.get(k)!.body.toString('utf8'), first.enc);

    // Incremental, the state tracking nothing yet: the output's listing answers once.
    await cli(['build', '--prune', '--store', store, ...s3('p')], peer.env);
    expect((await keysOf('p')).filter((k) => k.includes(first.enc))).toEqual([]);

    // Incremental, from the state: a repository that left during a build without --prune.
    const second = dropRepository(store, files[4]!);
    await cli(['build', '--store', store, ...s3('p')], peer.env);
    expect((await keysOf('p')).filter((k) => k.includes(second.enc)).length).toBeGreaterThan(0);
    await cli(['build', '--prune', '--store', store, ...s3('p')], peer.env);
    expect((await keysOf('p')).filter((k) => k.includes(second.enc))).toEqual([]);

    // --force: from the listing.
    const third = dropRepository(store, files[5]!);
    await cli(['build', '--prune', '--force', '--store', store, ...s3('p')], peer.env);
    const left = await keysOf('p');
    expect(left.filter((k) => k.includes(third.enc))).toEqual([]);
    // Everything else is still there.
    for (const f of files.filter((f) => existsSync(join(store, f)))) {
      const enc = encodeURIComponent(urlOf.get(f)!);
      expect(left).toContain(`api/v1/repositories/${enc}/index.json`);
      expect(left).toContain(`repositories/${enc}/index.html`);
    }
  }, 180_000);
});
