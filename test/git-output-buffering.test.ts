// Reading git's output copies each byte a bounded number of times, however many chunks a large
// object or record arrives in: joining every chunk onto what is pending is quadratic (a 300,000
// file tree or a 10 MB .mailmap took minutes). Counted in bytes copied, never in time.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { git } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';
import {
  CatFile,
  parseTree,
  rootChanges,
  storedObjects,
  type TreeEntry,
} from '../src/measure/git/cat-file.ts';
import { applyRootChanges, readSnapshots } from '../src/measure/git/snapshot.ts';
import { hostileGit } from './helpers/hostile-git.ts';
import { NO_MAILMAP } from '../src/measure/git/mailmap.ts';
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
  vi.spyOn(Buffer.prototype, 'copy').mockImplementation(function (
    this: Buffer,
    ...args: unknown[]
  ) {
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
      streamGitRecords(
        { gitDir, settings: { timeoutMs: 30_000 }, args: ['cat-file', 'blob', blob] },
        0,
        (r) => records.push(r),
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
    const lines = Array.from(
      { length: 10_000 },
      (_, i) => `100644 blob ${blob}\tfile${String(i).padStart(5, '0')}`,
    );
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
    const files = Array.from(
      { length: 5_000 },
      (_, i) => `100644 blob ${blob}\tfile${String(i).padStart(5, '0')}`,
    );
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
          [
            'commit-tree',
            tree,
            '-m',
            `month ${month}`,
            ...(month > 0 ? ['-p', commits[month - 1]!] : []),
          ],
          env,
        ).trim(),
      );
    }
    const rootBytes = Number(git(gitDir, ['cat-file', '-s', `${commits[3]}^{tree}`]).trim());
    const call = { gitDir, settings: { timeoutMs: 30_000 } };
    const cat = new CatFile(call);
    // Worked out from what git says changed above 100 kB of roots to print again (3 × about
    // 180 kB here): the file changed every month is no entry a rule reads; Security.md is added.
    const snapshots = await readSnapshots(
      cat,
      commits,
      undefined,
      {
        stored: (c) => storedObjects(call, c),
        changes: (pairs, bytes) => rootChanges(call, pairs, bytes),
      },
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

  it('each root worked out from the one before is the one git ls-tree shows, with a hostile config', async () => {
    const wanted = [
      'security.md',
      'security.markdown',
      'security.adoc',
      'security.rst',
      '.github',
      'docs',
      'doc',
      '.mailmap',
    ];
    const blobOf = (text: string) => git(gitDir, ['hash-object', '-w', '--stdin'], {}, text).trim();
    // --missing: a submodule's commit is not in the repository.
    const treeOf = (rows: string[]) =>
      git(gitDir, ['mktree', '--missing'], {}, `${rows.join('\n')}\n`).trim();
    const [a, b, c] = [blobOf('a\n'), blobOf('b\n'), blobOf('c\n')];
    const inner1 = treeOf([`100644 blob ${a}\tSECURITY.md`]);
    const inner2 = treeOf([`100644 blob ${b}\tSECURITY.md`]);
    const fillers = Array.from(
      { length: 300 },
      (_, i) => `100644 blob ${a}\tfile${String(i).padStart(4, '0')}`,
    );
    // Each root by hand: a change to what the rules read from the root before, one kind each.
    const roots: string[][] = [
      [
        `100644 blob ${a}\tSECURITY.md`,
        `100644 blob ${b}\t.mailmap`,
        `040000 tree ${inner1}\tdocs`,
      ],
      // The policy changed.
      [
        `100644 blob ${c}\tSECURITY.md`,
        `100644 blob ${b}\t.mailmap`,
        `040000 tree ${inner1}\tdocs`,
      ],
      // Another case of it added.
      [
        `100644 blob ${c}\tSECURITY.md`,
        `100644 blob ${b}\t.mailmap`,
        `040000 tree ${inner1}\tdocs`,
        `100644 blob ${a}\tsecurity.md`,
      ],
      // The first removed.
      [
        `100644 blob ${b}\t.mailmap`,
        `040000 tree ${inner1}\tdocs`,
        `100644 blob ${a}\tsecurity.md`,
      ],
      // A folder made a file.
      [`100644 blob ${b}\t.mailmap`, `100644 blob ${a}\tdocs`, `100644 blob ${a}\tsecurity.md`],
      // And back; a folder and a symbolic link added.
      [
        `100644 blob ${b}\t.mailmap`,
        `040000 tree ${inner1}\tdocs`,
        `100644 blob ${a}\tsecurity.md`,
        `040000 tree ${inner1}\t.GitHub`,
        `120000 blob ${a}\tSecurity.rst`,
      ],
      // The folder changed, the link made an executable file.
      [
        `100644 blob ${b}\t.mailmap`,
        `040000 tree ${inner1}\tdocs`,
        `100644 blob ${a}\tsecurity.md`,
        `040000 tree ${inner2}\t.GitHub`,
        `100755 blob ${a}\tSecurity.rst`,
      ],
      // A submodule, a Kelvin sign; much removed.
      [
        `100644 blob ${b}\t.mailmap`,
        `040000 tree ${inner1}\tdocs`,
        `160000 commit ${'1'.repeat(40)}\tdoc`,
        `100644 blob ${a}\tSECURITY.MAR\u212ADOWN`,
      ],
      // The submodule moved on.
      [`040000 tree ${inner1}\tdocs`, `160000 commit ${'2'.repeat(40)}\tdoc`],
      // Each month ten more files than the month before: `git repack -adf`, as a server packs a
      // clone, stores the largest root whole and each smaller one as a delta of a larger one.
    ].map((rows, month) => [
      ...fillers,
      ...Array.from(
        { length: 10 * month },
        (_, i) => `100644 blob ${a}\tpad${String(i).padStart(4, '0')}`,
      ),
      ...rows,
    ]);
    const commits: string[] = [];
    for (const [month, rows] of roots.entries())
      commits.push(
        git(
          gitDir,
          [
            'commit-tree',
            treeOf(rows),
            '-m',
            `root ${month}`,
            ...(month > 0 ? ['-p', commits[month - 1]!] : []),
          ],
          {
            GIT_AUTHOR_NAME: 'A',
            GIT_AUTHOR_EMAIL: 'a@b',
            GIT_COMMITTER_NAME: 'A',
            GIT_COMMITTER_EMAIL: 'a@b',
          },
        ).trim(),
      );
    const last = commits.length - 1;
    git(gitDir, ['update-ref', 'refs/heads/hostile', commits[last]!]);
    git(gitDir, ['repack', '-adfq']);
    const rootIds = commits.map((c) => git(gitDir, ['rev-parse', `${c}^{tree}`]).trim());
    // As plain git says: the newest root stored whole, the first a delta.
    const bases = git(
      gitDir,
      ['cat-file', '--batch-check=%(deltabase)'],
      {},
      `${rootIds.join('\n')}\n`,
    )
      .trim()
      .split('\n');
    expect(bases[last]).toMatch(/^0+$/);
    expect(bases[0]).not.toMatch(/^0+$/);
    // The kept entries of each root as plain git lists them, in its order.
    const byGit = commits.map((commit) =>
      git(gitDir, ['ls-tree', '-z', commit])
        .split('\0')
        .filter((row) => row !== '')
        .map((row): TreeEntry => {
          const [meta, name] = row.split('\t') as [string, string];
          const [mode, , oid] = meta.split(' ') as [string, string, string];
          return { mode: mode.replace(/^0+(?=\d{5}$)/, ''), name, oid };
        })
        .filter((e) => wanted.includes(e.name.toLowerCase())),
    );
    // Read whole, before the config is made hostile: what the worked-out roots must give.
    const call = { gitDir, settings: { timeoutMs: 30_000 } };
    const plain = new CatFile(call);
    const wholeRead = await readSnapshots(plain, commits);
    await plain.close();
    const hostile = hostileGit(root);
    hostile.infect(gitDir);
    for (const [key, value] of Object.entries(hostile.env)) vi.stubEnv(key, value);
    type Changes = Parameters<typeof applyRootChanges>[1];
    let forwards: Map<string, Changes>;
    let backwards: Map<string, Changes>;
    let worked: Awaited<ReturnType<typeof readSnapshots>>;
    const asked: string[] = [];
    try {
      forwards = await rootChanges(
        call,
        commits.slice(1).map((commit, i) => [commits[i]!, commit] as const),
      );
      // From the newest to the oldest: each pair's changes turn the newer root into the older.
      backwards = await rootChanges(
        call,
        commits.slice(1).map((commit, i) => [commit, commits[i]!] as const),
      );
      // git 2.36 and later: how the roots are stored asked in the cat-file process itself.
      const cat = new CatFile(call, true);
      const stored = await Promise.all(rootIds.map((id) => cat.info(id)));
      expect(stored.map((object) => object?.deltaBase ?? '0'.repeat(40))).toEqual(bases);
      const read = cat.read.bind(cat);
      cat.read = (name, onHeader) => (asked.push(name), read(name, onHeader));
      worked = await readSnapshots(
        cat,
        commits,
        undefined,
        {
          stored: (trees) => Promise.all(trees.map((id) => cat.info(id))),
          changes: (pairs, bytes) => rootChanges(call, pairs, bytes),
        },
        0,
      );
      await cat.close();
    } finally {
      vi.unstubAllEnvs();
    }
    expect(hostile.ran()).toBe('');
    let entries = byGit[0]!;
    for (let month = 1; month <= last; month++) {
      const next = applyRootChanges(entries, forwards.get(commits[month]!) ?? []);
      expect({ month, entries: next }).toEqual({ month, entries: byGit[month] });
      entries = next!;
    }
    entries = byGit[last]!;
    for (let month = last - 1; month >= 0; month--) {
      const next = applyRootChanges(entries, backwards.get(commits[month]!) ?? []);
      expect({ month, entries: next }).toEqual({ month, entries: byGit[month] });
      entries = next!;
    }
    // readSnapshots reads the root stored whole, the newest, and works the others out from it.
    expect(asked.filter((name) => rootIds.includes(name))).toEqual([rootIds[last]]);
    const found = (snapshots: typeof worked) =>
      commits.map((c) => [
        snapshots.get(c)?.securityPolicy,
        snapshots.get(c)?.mailmap === NO_MAILMAP,
      ]);
    expect(found(worked)).toEqual(found(wholeRead));
    expect(found(worked).map(([policy]) => policy)).toEqual([
      ...Array(3).fill('SECURITY.md'),
      ...Array(3).fill('security.md'),
      // An executable file is a file: it sorts before security.md.
      'Security.rst',
      'SECURITY.MAR\u212ADOWN',
      'docs/SECURITY.md',
    ]);
  });

  it('changes that do not fit the root before are refused: the root is then read whole', () => {
    const policy = { mode: '100644', name: 'SECURITY.md', oid: 'a'.repeat(40) };
    const changed = { ...policy, oid: 'b'.repeat(40) };
    // An entry git says changed that is not there, or not as git says it was; one added twice.
    expect(
      applyRootChanges([], [{ name: 'SECURITY.md', before: policy, after: changed }]),
    ).toBeUndefined();
    expect(
      applyRootChanges([changed], [{ name: 'SECURITY.md', before: policy, after: changed }]),
    ).toBeUndefined();
    expect(applyRootChanges([policy], [{ name: 'SECURITY.md', after: changed }])).toBeUndefined();
    expect(
      applyRootChanges([policy, policy], [{ name: 'SECURITY.md', before: policy }]),
    ).toBeUndefined();
    // A change to no name a rule reads leaves the entries as they are.
    expect(applyRootChanges([policy], [{ name: 'README.md', after: changed }])).toEqual([policy]);
  });
});
