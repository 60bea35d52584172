// Scans sharing a mirrors folder (git http-backend on 127.0.0.1, repositories made here): two at
// once over the same repositories both succeed, each mirror fetched by one at a time; a mirror
// another git process holds a lock in is busy, never moved aside as corrupt; a clone a killed
// scan left is removed; a mirror another scan holds is waited for, then named.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCAN } from '../src/config/defaults.ts';
import { mirrorPath } from '../src/measure/git/mirror.ts';
import { parseTargets } from '../src/measure/targets.ts';
import { scan } from '../src/scan/scan.ts';
import { DirectoryStoreWriter } from '../src/store/writer.ts';
import { startGitHttp, type GitHttpServer } from './helpers/git-http.ts';
import { git, utc, WorkRepo } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';

const NAMES = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'];

describe('scans sharing a mirrors folder', () => {
  const root = tempDir('badgepress-mirror-lock-');
  const served = join(root, 'served');
  const mirrors = join(root, 'mirrors');
  let http: GitHttpServer;

  beforeAll(async () => {
    const work = WorkRepo.init(join(root, 'work'));
    work.commit({ at: utc(2026, 1, 5), files: { 'README.md': 'hello' } });
    work.commit({ at: utc(2026, 2, 5) });
    for (const name of NAMES) {
      git(root, ['init', '-q', '--bare', join(served, `${name}.git`)]);
      work.git(['push', '-q', join(served, `${name}.git`), 'main']);
      git(join(served, `${name}.git`), ['symbolic-ref', 'HEAD', 'refs/heads/main']);
    }
    http = await startGitHttp(served);
  });
  afterAll(() => http?.close());

  const urls = () => NAMES.map((n) => `${http.url}/${n}.git`);
  const mirrorOf = (url: string) =>
    mirrorPath(
      mirrors,
      url,
      `127.0.0.1:${http.port}`,
      new URL(url).pathname.slice(1).replace(/\.git$/, ''),
    );
  const run = (store: string, list: string[], problems: string[], timeoutSeconds = 30) =>
    scan({
      targets: parseTargets(list.join('\n'), `${store}.txt`).targets,
      writer: new DirectoryStoreWriter(join(root, store)),
      asOf: utc(2026, 3, 1),
      fetch: 'always',
      rules: new Set(['COMMITS']),
      settings: { ...DEFAULT_SCAN, mirrors, concurrency: NAMES.length, retries: 0, timeoutSeconds },
      windowMonths: {},
      report: (line) => problems.push(line),
    });
  const storeText = (store: string) =>
    NAMES.map((n) =>
      readFileSync(join(root, store, `127.0.0.1_${http.port}/${n}.ndjson`), 'utf8'),
    ).join('');

  it('two scans at once over the same repositories both write every record; no mirror is moved aside', async () => {
    for (const round of [1, 2]) {
      const problems: string[] = [];
      // The first round clones every mirror at once from both scans, the second fetches them.
      const [a, b] = await Promise.all([
        run(`a${round}`, urls(), problems),
        run(`b${round}`, urls(), problems),
      ]);
      expect(problems, `round ${round}`).toEqual([]);
      for (const s of [a, b])
        expect(s).toMatchObject({
          measured: NAMES.length,
          records: NAMES.length,
          failed: 0,
          movedAside: 0,
        });
      expect(storeText(`a${round}`)).toBe(storeText(`b${round}`));
    }
    const left = readdirSync(join(mirrors, `127.0.0.1_${http.port}`));
    expect(left.filter((n) => n.includes('.corrupt-') || n.includes('.tmp-'))).toEqual([]);
  });

  it('a ref another git process has locked makes the repository fail as busy; the mirror stays', async () => {
    const url = urls()[0]!;
    const mirror = mirrorOf(url);
    const tip = git(mirror, ['rev-parse', 'refs/heads/main']).trim();
    // A fetch that finds the ref's lock file fails "cannot lock ref" (another git updating it).
    writeFileSync(join(mirror, 'refs/heads/main.lock'), `${tip}\n`);
    // A new commit upstream, so the fetch has a ref to update.
    const work = new WorkRepo(join(root, 'work'));
    work.commit({ at: utc(2026, 2, 20) });
    work.git(['push', '-q', join(served, 'r0.git'), 'main']);
    const problems: string[] = [];
    const summary = await run('locked', [url], problems);
    expect(summary).toMatchObject({ failed: 1, movedAside: 0 });
    expect(problems).toEqual([expect.stringMatching(/cannot lock ref 'refs\/heads\/main'/)]);
    expect(problems[0]).not.toContain('moved aside');
    expect(
      readdirSync(join(mirrors, `127.0.0.1_${http.port}`)).filter((n) => n.includes('.corrupt-')),
    ).toEqual([]);
    expect(git(mirror, ['rev-parse', 'refs/heads/main']).trim()).toBe(tip);
  });

  it('removes the clone a killed scan left beside a mirror; waits for a mirror another scan holds, then names it', async () => {
    const url = urls()[1]!;
    const mirror = mirrorOf(url);
    const killed = `${mirror}.tmp-999999-abcdef`;
    mkdirSync(join(killed, 'objects'), { recursive: true });
    const problems: string[] = [];
    expect(await run('after-kill', [url], problems)).toMatchObject({ measured: 1, failed: 0 });
    expect(problems).toEqual([]);
    expect(existsSync(killed)).toBe(false);
    // A live lease of another scan on the mirror (a chain of generations, see io/file-lease.ts).
    mkdirSync(`${mirror}.lease`, { recursive: true });
    const now = Math.floor(Date.now() / 1000);
    writeFileSync(
      join(`${mirror}.lease`, '99.json'),
      JSON.stringify({
        host: 'elsewhere',
        pid: 4242,
        token: 'other',
        acquiredAt: now,
        expiresAt: now + 600,
      }),
    );
    const held: string[] = [];
    expect(await run('held', [url], held, 1)).toMatchObject({ failed: 1, movedAside: 0 });
    expect(held).toEqual([
      expect.stringContaining(
        `mirror ${mirror} is in use by another badgepress scan (host elsewhere, pid 4242, since `,
      ),
    ]);
    expect(held[0]).toContain(
      'sharing scan.mirrors; waited 1 s: scan this repository again once that scan has ended',
    );
  });
});
