// Mirrors over real HTTP: git http-backend on 127.0.0.1 serving repositories made here. First
// and incremental fetches, a renamed default branch, a token that arrives and appears nowhere
// else, a stalled server, a 404, a closed port, and a mirror git cannot read.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from './helpers/cli-in-process.ts';
import { startGitHttp, type GitHttpServer } from './helpers/git-http.ts';
import { git, utc, WorkRepo } from './helpers/git-repo.ts';
import { mirrorPath } from '../src/measure/git/mirror.ts';
import { parseTargets } from '../src/measure/targets.ts';
import { scan as scan_ } from '../src/scan/scan.ts';
import { DirectoryStoreWriter } from '../src/store/writer.ts';
import { DEFAULT_SCAN } from '../src/config/defaults.ts';
import { tempDir } from './helpers/tmp.ts';

const TOKEN = 'tok-3f9a1c2e77d54b0a';
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');

/** Every file under `dir`, as text. */
function allText(dir: string): string {
  let out = '';
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    if (statSync(p).isFile()) out += readFileSync(p, 'latin1');
  }
  return out;
}

/** Distinct objects present (a pack may repeat a base object; count-objects would count it twice). */
const objectCount = (gitDir: string) =>
  git(gitDir, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']).trim().split('\n')
    .length;

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((ok) => s.close(() => ok()));
  return port;
}

describe('scan over HTTP', () => {
  const root = tempDir('badgepress-scan-http-');
  const served = join(root, 'served');
  const store = join(root, 'store');
  const mirrors = join(root, 'mirrors');
  let http: GitHttpServer;
  let work: WorkRepo;
  let config: string;
  const scan = (list: string[], asOf: string, env: Record<string, string | undefined> = {}) => {
    const file = join(root, `list-${asOf}.txt`);
    writeFileSync(file, `${list.join('\n')}\n`);
    return runCommand(
      ['scan', '--config', config, '--repos', file, '--store', store, '--as-of', asOf, '--json'],
      {
        env,
      },
    );
  };

  beforeAll(async () => {
    work = WorkRepo.init(join(root, 'work'));
    work.commit({
      at: utc(2026, 1, 5),
      files: {
        'README.md': 'hello',
        '.github/SECURITY.md': 'write to us',
        '.mailmap': 'Alice <alice@example.org> <alice@old.example>\n',
      },
    });
    work.commit({ at: utc(2026, 2, 5) });
    work.tag('v1', { annotatedAt: utc(2026, 2, 6) });
    git(root, ['init', '-q', '--bare', join(served, 'alpha.git')]);
    work.git(['push', '-q', join(served, 'alpha.git'), 'main', 'v1', 'main:refs/pull/1/head']);
    git(join(served, 'alpha.git'), ['symbolic-ref', 'HEAD', 'refs/heads/main']);
    git(root, ['clone', '-q', '--bare', join(served, 'alpha.git'), join(served, 'private.git')]);
    git(root, ['clone', '-q', '--bare', join(served, 'alpha.git'), join(served, 'flaky.git')]);
    http = await startGitHttp(served, { 'private.git': `Basic ${BASIC}` }, { 'flaky.git': 1 });
    config = join(root, 'badgepress.yaml');
    writeFileSync(
      config,
      `store: store\nscan:\n  mirrors: ${mirrors}\n  timeoutSeconds: 3\n  retries: 0\n  tokens:\n    "127.0.0.1:${http.port}": SCAN_TEST_TOKEN\n`,
    );
  });
  afterAll(() => http?.close());

  const alphaUrl = () => `${http.url}/alpha.git`;
  const mirrorOf = (url: string) =>
    mirrorPath(
      mirrors,
      url,
      `127.0.0.1:${http.port}`,
      new URL(url).pathname.slice(1).replace(/\.git$/, ''),
    );

  it('first fetch: a bare, blobless mirror of heads and tags, never shallow, without hooks', async () => {
    const r = await scan([alphaUrl()], '2026-03-01');
    expect(JSON.parse(r.stdout)).toMatchObject({ measured: 1, records: 1, failed: 0, exitCode: 0 });
    const mirror = mirrorOf(alphaUrl());
    expect(git(mirror, ['rev-parse', '--is-bare-repository']).trim()).toBe('true');
    expect(git(mirror, ['rev-parse', '--is-shallow-repository']).trim()).toBe('false');
    expect(git(mirror, ['config', 'remote.origin.partialclonefilter']).trim()).toBe('blob:none');
    expect(git(mirror, ['for-each-ref', '--format=%(refname)']).trim().split('\n')).toEqual([
      'refs/heads/main',
      'refs/tags/v1',
    ]);
    expect(existsSync(join(mirror, 'hooks'))).toBe(false);
    // Blobless: README.md's blob was never fetched (the .github policy was read from the tree alone).
    const readme = git(mirror, ['rev-parse', 'main:README.md']).trim();
    // (rev-list --missing=print names missing objects without fetching them.) The .mailmap
    // blob the scan read was fetched with the mirror.
    const objects = git(mirror, ['rev-list', '--objects', '--missing=print', '--all']);
    expect(objects).toContain(`?${readme}`);
    expect(objects).not.toContain(`?${git(mirror, ['rev-parse', 'main:.mailmap']).trim()}`);
    const record = JSON.parse(
      readFileSync(join(store, `127.0.0.1_${http.port}/alpha.ndjson`), 'utf8'),
    );
    // The default thresholds judge DEPENDENTS; without a dependents: source it is not asked (null),
    // and neither are the forge rules on 127.0.0.1, a git server with no forge API (null).
    expect(record.values).toEqual({
      BUS_FACTOR: 1,
      CI_PIPELINE: null,
      COMMITS: { events: [utc(2026, 1, 5), utc(2026, 2, 5)] },
      DEPENDENTS: null,
      ISSUE_REACTION_TIME: null,
      PACKAGES: null,
      RELEASES: { events: [utc(2026, 2, 6)] },
      SECURITY_POLICY: true,
    });
  });

  it('incremental fetch brings only the new objects; HEAD follows a renamed default branch', async () => {
    const mirror = mirrorOf(alphaUrl());
    const before = objectCount(mirror);
    work.git(['branch', '-m', 'main', 'trunk']);
    work.commit({ at: utc(2026, 3, 5) });
    work.git(['push', '-q', join(served, 'alpha.git'), 'trunk']);
    git(join(served, 'alpha.git'), ['symbolic-ref', 'HEAD', 'refs/heads/trunk']);
    work.git(['push', '-q', join(served, 'alpha.git'), ':main']);
    const r = await scan([alphaUrl()], '2026-04-01');
    expect(JSON.parse(r.stdout)).toMatchObject({ measured: 1, records: 1, exitCode: 0 });
    // By hand: one new commit and its root tree; its blob stays on the server.
    expect(objectCount(mirror) - before).toBe(2);
    expect(git(mirror, ['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/trunk');
    expect(git(mirror, ['for-each-ref', '--format=%(refname)']).trim().split('\n')).toEqual([
      'refs/heads/trunk',
      'refs/tags/v1',
    ]);
    const lines = readFileSync(join(store, `127.0.0.1_${http.port}/alpha.ndjson`), 'utf8')
      .trim()
      .split('\n');
    expect(JSON.parse(lines[1]!).evidence.COMMITS).toContain('reachable from trunk at');
  });

  it('sends the token to its host only through the environment; it appears nowhere else', async () => {
    const url = `${http.url}/private.git`;
    const without = await scan([url], '2026-03-01', { SCAN_TEST_TOKEN: undefined });
    expect(JSON.parse(without.stdout)).toMatchObject({ failed: 1, exitCode: 1 });
    expect(without.stderr).toContain(`${url}: git clone failed`);
    const r = await scan([url], '2026-03-01', { SCAN_TEST_TOKEN: TOKEN });
    expect(JSON.parse(r.stdout)).toMatchObject({ measured: 1, exitCode: 0 });
    expect(http.authorizations.get('private.git')).toContain(`Basic ${BASIC}`);
    const everywhere = [
      without.stdout,
      without.stderr,
      r.stdout,
      r.stderr,
      allText(store),
      allText(mirrors),
    ].join('\n');
    for (const secret of [TOKEN, BASIC]) expect(everywhere).not.toContain(secret);
  });

  it('a stalled server times out, a 404 and a closed port fail; the others are scanned (exit 1)', async () => {
    const closed = await closedPort();
    const list = [
      `${http.url}/stall/slow.git`,
      `${http.url}/missing.git`,
      `http://127.0.0.1:${closed}/gone.git`,
      alphaUrl(),
    ];
    const r = await scan(list, '2026-05-01');
    expect(JSON.parse(r.stdout)).toMatchObject({
      repositories: 4,
      measured: 1,
      records: 1,
      failed: 3,
      exitCode: 1,
    });
    expect(r.stderr).toMatch(/stall\/slow\.git: git clone timed out after 3 s/);
    expect(r.stderr).toMatch(/missing\.git: git clone failed .*(404|not found)/i);
    expect(r.stderr).toMatch(
      new RegExp(
        `127\\.0\\.0\\.1:${closed}/gone\\.git: git clone failed .*(Failed to connect|Couldn't connect|Connection refused)`,
        'i',
      ),
    );
  });

  it("an ssh failure keeps ssh's own cause, not git's advice after it", async () => {
    const closed = await closedPort();
    const url = `ssh://git@127.0.0.1:${closed}/gone.git`;
    // What git itself says, by hand: ssh's line, git's fatal line, then two lines of advice.
    const plain = spawnSync('git', ['ls-remote', url], {
      encoding: 'utf8',
      env: { ...process.env, GIT_SSH_COMMAND: 'ssh -o BatchMode=yes' },
    });
    expect(plain.stderr).toContain(
      `ssh: connect to host 127.0.0.1 port ${closed}: Connection refused`,
    );
    expect(plain.stderr.trim().split('\n').at(-1)).toBe('and the repository exists.');
    const r = await scan([url], '2026-05-01');
    expect(JSON.parse(r.stdout)).toMatchObject({ failed: 1, exitCode: 1 });
    // (The store's URL leaves the ssh user out.)
    expect(r.stderr).toContain(
      `ssh://127.0.0.1:${closed}/gone.git: git clone failed (exit 128): ssh: connect to host 127.0.0.1 port ${closed}: Connection refused; fatal: Could not read from remote repository.`,
    );
    expect(r.stderr).not.toContain('Please make sure');
  });

  it('a transient failure (503) is tried again after the backoff', async () => {
    const url = `${http.url}/flaky.git`;
    const waits: number[] = [];
    const summary = await scan_({
      targets: parseTargets(`${url}\n`, 'flaky.txt').targets,
      writer: new DirectoryStoreWriter(join(root, 'flaky-store')),
      asOf: utc(2026, 3, 1),
      fetch: 'always',
      rules: new Set(['COMMITS']),
      settings: { ...DEFAULT_SCAN, mirrors, retries: 1, timeoutSeconds: 10 },
      windowMonths: {},
      backoffMs: (n) => (waits.push(n), 10),
      report: (line) => expect.fail(line),
    });
    expect(summary).toMatchObject({ measured: 1, records: 1, failed: 0 });
    expect(waits).toEqual([1]);
  });

  it('a mirror git cannot read is moved aside and fetched again', async () => {
    const mirror = mirrorOf(alphaUrl());
    // (Damaged packs alone heal: git fetches missing objects from the promisor remote again.)
    writeFileSync(join(mirror, 'HEAD'), 'not a ref\n');
    const r = await scan([alphaUrl()], '2026-06-01');
    expect(JSON.parse(r.stdout)).toMatchObject({
      measured: 1,
      records: 1,
      movedAside: 1,
      failed: 0,
      exitCode: 0,
    });
    expect(r.stderr).toContain('moved aside to');
    expect(
      readdirSync(join(mirrors, `127.0.0.1_${http.port}`)).some((n) => n.includes('.corrupt-')),
    ).toBe(true);
    // Readable again: every commit and tree there, blobs left to the server.
    expect(
      git(mirror, ['rev-list', '--objects', '--missing=allow-promisor', '--all']).trim().split('\n')
        .length,
    ).toBeGreaterThan(3);
  });
});

describe('the .mailmap blobs of a blobless mirror', () => {
  const root = tempDir('badgepress-scan-mailmap-');
  const served = join(root, 'served');
  const mirrors = join(root, 'mirrors');
  let http: GitHttpServer;
  let config: string;
  const OLD = { name: 'Alice', email: 'alice@old.example' };
  const scan = (args: string[], store: string) => {
    const file = join(root, 'list.txt');
    writeFileSync(file, `${http.url}/mm.git\n`);
    return runCommand([
      'scan',
      '--config',
      config,
      '--repos',
      file,
      '--store',
      join(root, store),
      '--json',
      ...args,
    ]);
  };
  const records = (store: string) =>
    readFileSync(join(root, store, `127.0.0.1_${http.port}/mm.ndjson`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));

  beforeAll(async () => {
    // Three commits, each with its own .mailmap; the first by Alice's old address, which every
    // .mailmap maps to her new one.
    const work = WorkRepo.init(join(root, 'work'));
    const map = (n: number) => `# version ${n}\nAlice <alice@example.org> <alice@old.example>\n`;
    work.commit({ at: utc(2026, 1, 5), author: OLD, files: { '.mailmap': map(1) } });
    work.commit({ at: utc(2026, 2, 5), files: { '.mailmap': map(2) } });
    work.commit({ at: utc(2026, 3, 5), files: { '.mailmap': map(3) } });
    git(root, ['clone', '-q', '--bare', work.dir, join(served, 'mm.git')]);
    http = await startGitHttp(served);
    config = join(root, 'badgepress.yaml');
    writeFileSync(
      config,
      `store: store\nscan:\n  mirrors: ${mirrors}\n  timeoutSeconds: 5\n  retries: 0\n`,
    );
  });
  afterAll(() => http?.close());

  it('--fetch never asks the server for nothing: a .mailmap the mirror lacks is read as none, and the evidence says so', async () => {
    // A scan at E fetches the mirror and the one .mailmap E's tree names (version 3).
    const first = await scan(['--as-of', '2026-04-01'], 'store-a');
    expect(JSON.parse(first.stdout)).toMatchObject({ records: 1, failed: 0, exitCode: 0 });
    const mirror = mirrorPath(mirrors, `${http.url}/mm.git`, `127.0.0.1:${http.port}`, 'mm');
    const missing = () =>
      git(mirror, ['rev-list', '--objects', '--missing=print', '--all'])
        .split('\n')
        .filter((l) => l.startsWith('?')).length;
    // By hand: versions 1 and 2 of .mailmap are the blobs still on the server.
    expect(missing()).toBe(2);
    // The backfill of February and March (January is before the first commit) reads trees
    // naming versions 1 and 2: nothing may be fetched.
    const before = http.requests.length;
    const r = await scan(
      ['--as-of', '2026-04-01', '--history', 'monthly', '--since', '2026-01', '--fetch', 'never'],
      'store-a',
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ measured: 1, records: 2, failed: 0, exitCode: 0 });
    expect(http.requests.slice(before)).toEqual([]);
    expect(missing()).toBe(2);
    const [, feb, mar] = records('store-a');
    expect([feb.timestamp, mar.timestamp]).toEqual([utc(2026, 2, 1), utc(2026, 3, 1)]);
    // Without a mailmap Alice's two addresses are two people (in March: 2 commits, 2 e-mails).
    expect(mar.evidence.BUS_FACTOR).toMatch(
      /^1 contributor of 2 made at least half of 2 non-merge commits .*; \.mailmap \(blob [0-9a-f]{12}\) not in the mirror, authors taken as recorded$/,
    );
    expect(feb.evidence.COMMITS).toContain('.mailmap (blob');
  });

  it('--fetch always fetches the .mailmap blobs the backfill reads, and reads them', async () => {
    const r = await scan(
      ['--as-of', '2026-04-01', '--history', 'monthly', '--since', '2026-01'],
      'store-b',
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ records: 3, failed: 0, exitCode: 0 });
    const [feb, mar, apr] = records('store-b');
    // With each month's .mailmap Alice is one person: "1 contributor of 1".
    expect(mar.evidence.BUS_FACTOR).toMatch(
      /^1 contributor of 1 made at least half of 2 non-merge commits/,
    );
    expect(apr.evidence.BUS_FACTOR).toMatch(
      /^1 contributor of 1 made at least half of 3 non-merge commits/,
    );
    for (const rec of [feb, mar, apr])
      expect(JSON.stringify(rec.evidence)).not.toContain('not in the mirror');
    // Run again: January is before the first commit (2026-01-05) and never stored, yet the
    // repository is neither fetched nor measured again.
    const before = http.requests.length;
    const again = await scan(
      ['--as-of', '2026-04-01', '--history', 'monthly', '--since', '2026-01'],
      'store-b',
    );
    expect(JSON.parse(again.stdout)).toMatchObject({
      measured: 0,
      upToDate: 1,
      records: 0,
      exitCode: 0,
    });
    expect(http.requests.slice(before)).toEqual([]);
  });
});
