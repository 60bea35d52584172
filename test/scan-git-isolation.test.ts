// A scan's git runs no program a config names and parses the same history whatever the user's,
// the system's or the repository's config says; and git over HTTP stays on the origin: a
// remote that redirects to another host gets neither git nor the token there. Every scan here
// runs with a hostile global and system config (test/helpers/hostile-git.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listenLocal } from '../scripts/lib/listen.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { ROOT } from './helpers/cli.ts';
import { startGitHttp, type GitHttpServer } from './helpers/git-http.ts';
import { git, utc, WorkRepo } from './helpers/git-repo.ts';
import { hostileGit, type HostileGit } from './helpers/hostile-git.ts';
import { tempDir } from './helpers/tmp.ts';

const TOKEN = 'canary-7d1e0b5a93f24c68';
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
const E = utc(2026, 11, 1);

/** A commit object written by hand: `signed` adds a (fake) OpenPGP signature header. */
function commitObject(
  gitDir: string,
  o: { tree: string; parent?: string; at: number; name: string; email: string; signed: boolean },
): string {
  const who = `${o.name} <${o.email}> ${o.at} +0000`;
  const sig = o.signed
    ? 'gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEhostilehostilehostile\n -----END PGP SIGNATURE-----\n'
    : '';
  const text = `tree ${o.tree}\n${o.parent ? `parent ${o.parent}\n` : ''}author ${who}\ncommitter ${who}\n${sig}\nat ${o.at}\n`;
  return git(gitDir, ['hash-object', '-t', 'commit', '-w', '--stdin'], {}, text).trim();
}

describe('a scan with a hostile git config', () => {
  const root = tempDir('badgepress-git-isolation-');
  const config = join(root, 'badgepress.yaml');
  let hostile: HostileGit;
  /** Committer times of each repository's branch by plain git in a clean environment, before any config was made hostile. */
  const expected = new Map<string, number[]>();
  const tips = new Map<string, string>();

  beforeAll(() => {
    hostile = hostileGit(root);
    writeFileSync(
      config,
      [
        'shape: A',
        'store: store',
        `thresholds:\n  A: ${resolve(ROOT, 'examples/scan/thresholds-git.yaml')}`,
        `scan:\n  mirrors: ${join(root, 'mirrors')}\n  retries: 0\n  timeoutSeconds: 10`,
        '',
      ].join('\n'),
    );
    for (const name of ['plain', 'infected']) {
      const dir = join(root, `${name}.git`);
      git(root, ['init', '-q', '--bare', '-b', 'main', dir]);
      const tree = git(dir, ['mktree'], {}, '').trim();
      let parent: string | undefined;
      // Four commits, the second and the tip signed; Zoë's name is not ASCII.
      const people = [
        { name: 'Alice', email: 'alice@example.org' },
        { name: 'Zoë', email: 'zoe@example.org' },
        { name: 'Alice', email: 'alice@example.org' },
        { name: 'Bob', email: 'bob@example.org' },
      ];
      people.forEach((p, i) => {
        parent = commitObject(dir, {
          tree,
          ...(parent ? { parent } : {}),
          at: utc(2026, 3 + i, 10),
          ...p,
          signed: i % 2 === 1,
        });
      });
      git(dir, ['update-ref', 'refs/heads/main', parent!]);
      expected.set(
        name,
        git(dir, ['log', '--format=%ct', 'main']).trim().split('\n').map(Number).sort(),
      );
      tips.set(name, parent!);
      if (name === 'infected') hostile.infect(dir);
    }
  });

  it('reads the same history, runs nothing, from a mirror=PATH whose own config is hostile too', async () => {
    const list = join(root, 'mirrors.txt');
    writeFileSync(
      list,
      `https://example.org/acme/plain mirror=${join(root, 'plain.git')}\nhttps://example.org/acme/infected mirror=${join(root, 'infected.git')}\n`,
    );
    const r = await runCommand(
      [
        'scan',
        '--config',
        config,
        '--repos',
        list,
        '--store',
        join(root, 'store'),
        '--as-of',
        '2026-11-01',
        '--json',
      ],
      {
        env: hostile.env,
      },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ measured: 2, failed: 0, exitCode: 0 });
    for (const name of ['plain', 'infected']) {
      const line = JSON.parse(
        readFileSync(join(root, `store/example.org/acme/${name}.ndjson`), 'utf8'),
      );
      expect(line.timestamp).toBe(E);
      expect(line.values.COMMITS).toEqual({ events: expected.get(name) });
      expect(line.evidence.COMMITS).toContain(tips.get(name)!.slice(0, 12));
      // Alice 2 of 4, Zoë and Bob 1 each: no mailmap of the config merges them.
      expect(line.values.BUS_FACTOR).toBe(1);
      expect(line.evidence.BUS_FACTOR).toContain('1 contributor of 3 made at least half of 4');
    }
    expect(hostile.ran()).toBe('');
  });
});

/**
 * A front for the origin: passes requests to the git server behind it, except the GET
 * info/refs requests whose numbers (1-based, counted from `reset`) are in `redirect`, which it
 * answers 302 to the same path on `elsewhere`; with `refusal`, every request is answered 403
 * with that text (git shows such a body as the remote's words).
 */
interface Front {
  url: string;
  port: number;
  authorizations: string[];
  reset(redirect: number[], elsewhere: string, refusal?: string): void;
  close(): Promise<void>;
}

async function startFront(origin: GitHttpServer): Promise<Front> {
  let redirect = new Set<number>();
  let elsewhere = '';
  let infoRefs = 0;
  let refused: string | undefined;
  const authorizations: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    authorizations.push(req.headers.authorization ?? '');
    if (refused !== undefined) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end(refused);
      return;
    }
    if (req.method === 'GET' && req.url!.includes('/info/refs') && redirect.has(++infoRefs)) {
      res.writeHead(302, { Location: `${elsewhere}${req.url}` }).end();
      return;
    }
    const pass = request(
      `${origin.url}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(pass);
  });
  const port = await listenLocal(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    authorizations,
    reset(r, e, refusal) {
      refused = refusal;
      redirect = new Set(r);
      elsewhere = e;
      infoRefs = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await closeServer(server);
    },
  };
}

describe('git over HTTP with a token, behind a remote that redirects to another host', () => {
  const root = tempDir('badgepress-git-redirect-');
  const served = join(root, 'served');
  const config = join(root, 'badgepress.yaml');
  const store = join(root, 'store');
  let hostile: HostileGit;
  let origin: GitHttpServer;
  let other: GitHttpServer;
  let front: Front;

  beforeAll(async () => {
    hostile = hostileGit(root);
    const work = WorkRepo.init(join(root, 'work'));
    work.commit({ at: utc(2026, 2, 5) });
    git(root, ['clone', '-q', '--bare', work.dir, join(served, 'private.git')]);
    origin = await startGitHttp(served, { 'private.git': `Basic ${BASIC}` });
    // The other host serves the same repository to anyone: what a leak would reach.
    other = await startGitHttp(served);
    front = await startFront(origin);
    writeFileSync(
      config,
      `store: store\nscan:\n  mirrors: ${join(root, 'mirrors')}\n  timeoutSeconds: 10\n  retries: 0\n  tokens:\n    "127.0.0.1:${front.port}": SCAN_TEST_TOKEN\n`,
    );
  });
  afterAll(async () => {
    await front?.close();
    await origin?.close();
    await other?.close();
  });

  const scan = (asOf: string) => {
    const list = join(root, `list-${asOf}.txt`);
    writeFileSync(list, `${front.url}/private.git\n`);
    return runCommand(
      ['scan', '--config', config, '--repos', list, '--store', store, '--as-of', asOf, '--json'],
      {
        env: { ...hostile.env, SCAN_TEST_TOKEN: TOKEN },
      },
    );
  };

  it('clone, fetch and ls-remote each fail on a redirect, and the other host never hears from git', async () => {
    // clone (no mirror yet): its first info/refs is redirected.
    front.reset([1], other.url);
    const clone = await scan('2026-03-01');
    expect(JSON.parse(clone.stdout)).toMatchObject({ failed: 1, exitCode: 1 });
    expect(clone.stderr).toContain('git clone failed');
    expect(clone.stderr).toContain(
      'returned error: 302; the remote answered with a redirect, which a scan never follows',
    );
    // A scan the front does not redirect makes the mirror.
    front.reset([], other.url);
    expect(JSON.parse((await scan('2026-04-01')).stdout)).toMatchObject({
      measured: 1,
      exitCode: 0,
    });
    // fetch: the first info/refs of an update; ls-remote: the second.
    front.reset([1], other.url);
    const fetch = await scan('2026-05-01');
    expect(fetch.stderr).toContain('git fetch failed');
    front.reset([2], other.url);
    const lsRemote = await scan('2026-06-01');
    expect(lsRemote.stderr).toContain('git ls-remote failed');

    expect(other.requests).toEqual([]);
    expect([...other.authorizations.values()].flat()).toEqual([]);
    // Every request the origin's front received carried the token or nothing.
    expect(front.authorizations.filter((a) => a !== '' && a !== `Basic ${BASIC}`)).toEqual([]);
    for (const r of [clone, fetch, lsRemote])
      for (const secret of [TOKEN, BASIC]) expect(r.stdout + r.stderr).not.toContain(secret);
    expect(hostile.ran()).toBe('');
    expect(existsSync(join(root, 'mirrors'))).toBe(true);
  });

  it("a remote's words reach stderr without terminal control or the token they quote", async () => {
    front.reset(
      [],
      other.url,
      `error: access denied for token ${TOKEN}\x1b]0;owned\x07 \x1b[31mred\x1b[0m\rover\n`,
    );
    const r = await scan('2026-07-01');
    expect(JSON.parse(r.stdout)).toMatchObject({ failed: 1, exitCode: 1 });
    expect(r.stderr).toContain('access denied for token ***');
    expect(r.stderr).toContain('red');
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    for (const secret of [TOKEN, BASIC]) expect(r.stdout + r.stderr).not.toContain(secret);
  });
});
