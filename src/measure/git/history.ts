// A repository's history as git shows it, read once: the default branch, every tag with its
// date, and every commit reachable from the branch's tip (one streamed `git log`).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runGit, streamGitRecords, type GitSettings } from './run.ts';
import type { Identity } from './mailmap.ts';

interface TagFact {
  name: string;
  /** Tagger date (annotated), else the tagged commit's committer date; undefined: a tag of a tree or blob (no release). */
  time?: number;
}

/** Commits by index; parents as indexes (a parent git did not list, e.g. past a graft, is left out). */
export interface CommitTable {
  oids: string[];
  /** Committer time, Unix s. */
  time: number[];
  /** First parent's index, -1 for a root commit. */
  firstParent: Int32Array;
  /** Number of parents (2 or more: a merge). */
  parentCount: Uint8Array;
  /** Parents after the first, for merges. */
  moreParents: Map<number, number[]>;
  /** Index into `authors`. */
  author: Int32Array;
  /** Author identities as recorded (before any mailmap), each once. */
  authors: Identity[];
}

export interface GitHistory {
  /** The default branch (HEAD's target, without refs/heads/), when HEAD names one. */
  defaultBranch?: string;
  /** Index of the default branch's tip in `commits`; undefined when the branch has no commit. */
  tip?: number;
  commits: CommitTable;
  tags: TagFact[];
}

const REF_FORMAT = [
  '%(refname)',
  '%(objectname)',
  '%(objecttype)',
  '%(taggerdate:unix)',
  '%(*objecttype)',
  '%(*committerdate:unix)',
  '%(committerdate:unix)',
].join('%00');
// Fields one a line, commits ended by NUL (-z): an author name holds no newline.
const LOG_FORMAT = '%H%n%P%n%ct%n%an%n%ae';

const time = (s: string | undefined): number | undefined =>
  s && /^-?\d+$/.test(s) ? Number(s) : undefined;

export async function readHistory(gitDir: string, settings: GitSettings): Promise<GitHistory> {
  const headRef = await readHeadRef(gitDir, settings);
  // The refs and the history are read side by side: HEAD's branch names the history's start.
  const refsRead = runGit({
    gitDir,
    settings,
    noLazyFetch: true,
    args: ['for-each-ref', `--format=${REF_FORMAT}`, 'refs/heads', 'refs/tags'],
  });
  const commitsRead = headRef.startsWith('refs/')
    ? readCommits(gitDir, settings, headRef).then(
        (table) => ({ table }),
        (error: unknown) => ({ error }),
      )
    : undefined;
  const refs = await refsRead.catch(async (err: unknown) => {
    await commitsRead;
    throw err;
  });
  const tags: TagFact[] = [];
  let tipOid: string | undefined;
  for (const line of refs.split('\n')) {
    if (!line) continue;
    const [ref, oid, type, taggerDate, peeledType, peeledCommitDate, commitDate] = line.split('\0');
    if (ref === headRef) tipOid = oid;
    if (!ref!.startsWith('refs/tags/')) continue;
    // Only a tag of a commit is a release: an annotated tag's object must be a commit (or a tag,
    // which for-each-ref does not peel further), a lightweight tag must name one.
    const ofCommit =
      type === 'commit' || (type === 'tag' && (peeledType === 'commit' || peeledType === 'tag'));
    const when = !ofCommit
      ? undefined
      : type === 'tag'
        ? (time(taggerDate) ?? (peeledType === 'commit' ? time(peeledCommitDate) : undefined))
        : time(commitDate);
    tags.push({
      name: ref!.slice('refs/tags/'.length),
      ...(when === undefined ? {} : { time: when }),
    });
  }
  const read = await commitsRead;
  // A branch without commits (an empty repository): its log fails, and there is nothing to read.
  if (tipOid === undefined || read === undefined)
    return { ...branchOf(headRef), commits: emptyTable(), tags };
  if ('error' in read) throw read.error;
  const tip = read.table.index.get(tipOid);
  if (tip === undefined) throw new Error(`${headRef} moved while it was read; scan again`);
  return { ...branchOf(headRef), tip, commits: read.table.commits, tags };
}

/**
 * The committer time of the default branch's root commit, the end of its first-parent chain:
 * the first time the branch held a commit (the rules' `branchTimes` keep the root's own time);
 * null when the branch has no commit. Reads the repository as it is, fetching nothing.
 */
export async function firstCommitTime(
  gitDir: string,
  settings: GitSettings,
): Promise<number | null> {
  const headRef = await readHeadRef(gitDir, settings);
  const tip = headRef.startsWith('refs/')
    ? (
        await runGit({
          gitDir,
          settings,
          noLazyFetch: true,
          args: ['rev-parse', '-q', '--verify', `${headRef}^{commit}`],
        }).catch(() => '')
      ).trim()
    : '';
  if (!tip) return null;
  const out = await runGit({
    gitDir,
    settings,
    noLazyFetch: true,
    args: ['log', '--first-parent', '--max-parents=0', '--format=%ct', tip, '--'],
  });
  const t = time(out.trim().split('\n')[0]);
  if (t === undefined) throw new Error(`no root commit found below ${headRef}`);
  return t;
}

const branchOf = (headRef: string) =>
  headRef.startsWith('refs/heads/') ? { defaultBranch: headRef.slice('refs/heads/'.length) } : {};

/** The ref HEAD names: from the HEAD file where it holds one (no process), else from git. */
async function readHeadRef(gitDir: string, settings: GitSettings): Promise<string> {
  const text = await readFile(join(gitDir, 'HEAD'), 'utf8').catch(() => '');
  const named = /^ref: (refs\/\S+)\s*$/.exec(text)?.[1];
  if (named && named !== 'refs/heads/.invalid') return named;
  return (
    await runGit({
      gitDir,
      settings,
      noLazyFetch: true,
      args: ['symbolic-ref', '-q', 'HEAD'],
    }).catch(() => '')
  ).trim();
}

function emptyTable(): CommitTable {
  return {
    oids: [],
    time: [],
    firstParent: new Int32Array(0),
    parentCount: new Uint8Array(0),
    moreParents: new Map(),
    author: new Int32Array(0),
    authors: [],
  };
}

/** Every commit reachable from `rev`. Never `--since`: filtering is ours. */
async function readCommits(
  gitDir: string,
  settings: GitSettings,
  rev: string,
): Promise<{ commits: CommitTable; index: Map<string, number> }> {
  const index = new Map<string, number>();
  const oids: string[] = [];
  const times: number[] = [];
  const parentsOf: string[] = [];
  const authorOf: number[] = [];
  const authors: Identity[] = [];
  const authorIndex = new Map<string, number>();
  await streamGitRecords(
    {
      gitDir,
      settings,
      noLazyFetch: true,
      args: ['log', '-z', `--format=${LOG_FORMAT}`, rev, '--'],
    },
    0,
    (record) => {
      // oid \n parents \n committer time \n name \n e-mail, cut without an array per record.
      const a = record.indexOf('\n');
      const b = record.indexOf('\n', a + 1);
      const c = record.indexOf('\n', b + 1);
      if (a <= 0 || b < 0 || c < 0) return;
      index.set(record.slice(0, a), oids.length);
      oids.push(record.slice(0, a));
      parentsOf.push(record.slice(a + 1, b));
      times.push(Number(record.slice(b + 1, c)));
      // The name and e-mail as one key: most commits are by someone seen before.
      const key = record.slice(c + 1);
      let who = authorIndex.get(key);
      if (who === undefined) {
        who = authors.length;
        authorIndex.set(key, who);
        const nl = key.indexOf('\n');
        authors.push(
          nl < 0 ? { name: key, email: '' } : { name: key.slice(0, nl), email: key.slice(nl + 1) },
        );
      }
      authorOf.push(who);
    },
  );
  const n = oids.length;
  const firstParent = new Int32Array(n).fill(-1);
  const parentCount = new Uint8Array(n);
  const moreParents = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const named = parentsOf[i]!;
    if (named === '') continue;
    if (named.indexOf(' ') < 0) {
      // One parent, the common case.
      parentCount[i] = 1;
      firstParent[i] = index.get(named) ?? -1;
      continue;
    }
    const all = named.split(' ');
    const ps = all.map((p) => index.get(p) ?? -1).filter((p) => p >= 0);
    parentCount[i] = Math.min(255, all.length);
    if (ps.length > 0) firstParent[i] = ps[0]!;
    if (ps.length > 1) moreParents.set(i, ps.slice(1));
  }
  return {
    commits: {
      oids,
      time: times,
      firstParent,
      parentCount,
      moreParents,
      author: Int32Array.from(authorOf),
      authors,
    },
    index,
  };
}
