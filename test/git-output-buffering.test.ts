// Reading git's output copies each byte a bounded number of times, however many chunks a large
// object or record arrives in: joining every chunk onto what is pending is quadratic (a 300,000
// file tree or a 10 MB .mailmap took minutes). Counted in bytes copied, never in time.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { git } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';
import { CatFile, parseTree, treeEntriesNamed } from '../src/measure/git/cat-file.ts';
import { readSnapshots } from '../src/measure/git/snapshot.ts';
import { ByteQueue } from '../src/measure/git/byte-queue.ts';
import { streamGitRecords } from '../src/measure/git/run.ts';

const SIZE = 4 * 1024 * 1024;

/** Bytes Buffer.concat and Buffer#copy copied while `run` ran. */
async function bytesCopied(run: () => Promise<void>): Promise<number> {
  let copied = 0;
  const concat = Buffer.concat;
  const copy = Buffer.prototype.copy;
  vi.spyOn(Buffer, 'concat').mockImplementation((list, total) => {
    const out = concat(list, total);
    copied += out.length;
    return out;
  });
  vi.spyOn(Buffer.prototype, 'copy').mockImplementation(function (this: Buffer, ...args: unknown[]) {
    const n = (copy as (...a: unknown[]) => number).apply(this, args);
    copied += n;
    return n;
  });
  try {
    await run();
  } finally {
    vi.restoreAllMocks();
  }
  return copied;
}

describe('buffering git output', () => {
  const root = tempDir('badgepress-git-buffering-');
  const gitDir = join(root, 'big.git');
  let blob: string;
  const body = Buffer.alloc(SIZE, 'abcdefghijklmnopqrstuvwxyz\n');

  beforeAll(() => {
    git(root, ['init', '-q', '--bare', gitDir]);
    blob = git(gitDir, ['hash-object', '-w', '--stdin'], {}, body.toString('latin1')).trim();
  });
  afterEach(() => vi.restoreAllMocks());

  it('cat-file reads a 4 MiB object arriving in many chunks copying it at most twice', async () => {
    let read: Buffer | undefined;
    const copied = await bytesCopied(async () => {
      const cat = new CatFile({ gitDir, settings: { timeoutMs: 30_000 } });
      read = (await cat.read(blob))?.body;
      await cat.close();
    });
    expect(read?.equals(body)).toBe(true);
    expect(copied).toBeLessThanOrEqual(2 * SIZE);
  });

  it('a 4 MiB record of a streamed output is copied at most twice', async () => {
    const records: string[] = [];
    const copied = await bytesCopied(() =>
      streamGitRecords({ gitDir, settings: { timeoutMs: 30_000 }, args: ['cat-file', 'blob', blob] }, 0, (r) =>
        records.push(r),
      ),
    );
    expect(records).toEqual([body.toString('latin1')]);
    expect(copied).toBeLessThanOrEqual(2 * SIZE);
  });

  it('ByteQueue: lines and sizes across chunk boundaries', () => {
    const q = new ByteQueue();
    for (const part of ['ab', 'c\nde', '', 'f', 'gh\n', 'xyz']) q.push(Buffer.from(part));
    expect(q.length).toBe(13);
    expect(q.indexOf(10)).toBe(3);
    expect(q.take(4).toString()).toBe('abc\n');
    expect(q.indexOf(10)).toBe(5);
    expect(q.take(2).toString()).toBe('de');
    expect(q.take(4).toString()).toBe('fgh\n');
    expect(q.indexOf(10)).toBe(-1);
    q.push(Buffer.from('\n'));
    expect(q.indexOf(10)).toBe(3);
    expect(q.take(4).toString()).toBe('xyz\n');
    expect(q.length).toBe(0);
    expect(() => q.take(1)).toThrow(RangeError);
  });

  it('a root of 10,000 files keeps only the entries a rule reads, as git ls-tree names them', async () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `100644 blob ${blob}\tfile${String(i).padStart(5, '0')}`);
    lines.push(
      `100644 blob ${blob}\tSECURITY.md`,
      `100644 blob ${blob}\t.mailmap`,
      `040000 tree ${git(gitDir, ['mktree'], {}, '').trim()}\tDocs`,
    );
    const tree = git(gitDir, ['mktree'], {}, `${lines.join('\n')}\n`).trim();
    const cat = new CatFile({ gitDir, settings: { timeoutMs: 30_000 } });
    const raw = (await cat.read(tree))!.body;
    await cat.close();
    const kept = parseTree(raw, 20, new Set(['security.md', '.mailmap', 'docs']));
    const byGit = git(gitDir, ['ls-tree', tree, '--', 'SECURITY.md', '.mailmap', 'Docs'])
      .trim()
      .split('\n')
      .map((l) => {
        const [mode, , oid, name] = l.split(/[ \t]/);
        return { mode: mode!.replace(/^0+/, ''), name: name!, oid: oid! };
      });
    expect(kept.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      byGit.sort((a, b) => a.name.localeCompare(b.name)),
    );
    expect(parseTree(raw, 20)).toHaveLength(10_003);
  });

  it('a history of four roots of 5,000 files has cat-file print one root, not four', async () => {
    const files = Array.from({ length: 5_000 }, (_, i) => `100644 blob ${blob}\tfile${String(i).padStart(5, '0')}`);
    const commits: string[] = [];
    for (let month = 0; month < 4; month++) {
      // Each month changes a file (a new root tree); from month 2 on, a policy under another case.
      const changed = git(gitDir, ['hash-object', '-w', '--stdin'], {}, `month ${month}\n`).trim();
      const lines = [
        `100644 blob ${changed}\tfile00000`,
        ...files.slice(1),
        ...(month >= 2 ? [`100644 blob ${changed}\tSecurity.md`] : []),
      ];
      const tree = git(gitDir, ['mktree'], {}, `${lines.join('\n')}\n`).trim();
      const env = {
        GIT_AUTHOR_NAME: 'A',
        GIT_AUTHOR_EMAIL: 'a@b',
        GIT_COMMITTER_NAME: 'A',
        GIT_COMMITTER_EMAIL: 'a@b',
        GIT_COMMITTER_DATE: `${1_700_000_000 + month * 2_600_000} +0000`,
      };
      commits.push(
        git(
          gitDir,
          ['commit-tree', tree, '-m', `month ${month}`, ...(month > 0 ? ['-p', commits[month - 1]!] : [])],
          env,
        ).trim(),
      );
    }
    const rootBytes = Number(git(gitDir, ['cat-file', '-s', `${commits[3]}^{tree}`]).trim());
    const call = { gitDir, settings: { timeoutMs: 30_000 } };
    const cat = new CatFile(call);
    // Listed by git above 100 kB of roots to print again (3 × about 180 kB here).
    const snapshots = await readSnapshots(
      cat,
      commits,
      undefined,
      (trees, only) => treeEntriesNamed(call, trees, only),
      100_000,
    );
    await cat.close();
    expect(commits.map((c) => snapshots.get(c)!.securityPolicy)).toEqual([
      undefined,
      undefined,
      'Security.md',
      'Security.md',
    ]);
    // One root tree and three small commit objects (reading every root: four times rootBytes).
    expect(cat.bodyBytes).toBeLessThan(1.5 * rootBytes);
  });

  it('git lists the wanted entries of a tree whatever pathspec variables the environment sets', async () => {
    const empty = git(gitDir, ['mktree'], {}, '').trim();
    const tree = git(
      gitDir,
      ['mktree'],
      {},
      `100644 blob ${blob}\tSecurity.MD\n100644 blob ${blob}\tother\n040000 tree ${empty}\t.GitHub\n`,
    ).trim();
    // Passed on, the first has git take ":(icase,literal)security.md" as a path (nothing listed),
    // the second refuse the glob pathspec that stands for the Kelvin sign (git fails).
    for (const name of ['GIT_LITERAL_PATHSPECS', 'GIT_NOGLOB_PATHSPECS']) vi.stubEnv(name, '1');
    try {
      const listed = await treeEntriesNamed(
        { gitDir, settings: { timeoutMs: 30_000 } },
        [tree],
        new Set(['security.md', '.github']),
      );
      // As git ls-tree shows the tree (a tree's mode as the tree object holds it, 40000).
      expect(listed.get(tree)).toEqual([
        { mode: '40000', name: '.GitHub', oid: empty },
        { mode: '100644', name: 'Security.MD', oid: blob },
      ]);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
