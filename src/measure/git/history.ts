// A repository's history as git shows it, read once: the default branch, every tag with its
// date, and every commit reachable from the branch's tip (one streamed `git log`).
import { runGit, streamGitRecords, type GitSettings } from './run.ts';
import type { Identity } from './mailmap.ts';

export interface TagFact {
  name: string;
  /** Tagger date (annotated), else the tagged commit's committer date; undefined: neither. */
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

const REF_FORMAT = ['%(refname)', '%(objectname)', '%(objecttype)', '%(taggerdate:unix)', '%(*objecttype)', '%(*committerdate:unix)', '%(committerdate:unix)'].join('%00');
// Fields one a line, commits ended by NUL (-z): an author name holds no newline.
const LOG_FORMAT = '%H%n%P%n%ct%n%an%n%ae';

const time = (s: string | undefined): number | undefined => (s && /^-?\d+$/.test(s) ? Number(s) : undefined);

export async function readHistory(gitDir: string, settings: GitSettings): Promise<GitHistory> {
  const headRef = (await runGit({ gitDir, settings, args: ['symbolic-ref', '-q', 'HEAD'] }).catch(() => '')).trim();
  const refs = await runGit({ gitDir, settings, args: ['for-each-ref', `--format=${REF_FORMAT}`, 'refs/heads', 'refs/tags'] });
  const tags: TagFact[] = [];
  let tipOid: string | undefined;
  for (const line of refs.split('\n')) {
    if (!line) continue;
    const [ref, oid, type, taggerDate, peeledType, peeledCommitDate, commitDate] = line.split('\0');
    if (ref === headRef) tipOid = oid;
    if (!ref!.startsWith('refs/tags/')) continue;
    const when = type === 'tag' ? (time(taggerDate) ?? (peeledType === 'commit' ? time(peeledCommitDate) : undefined)) : type === 'commit' ? time(commitDate) : undefined;
    tags.push({ name: ref!.slice('refs/tags/'.length), ...(when === undefined ? {} : { time: when }) });
  }
  const commits = tipOid ? await readCommits(gitDir, settings, tipOid) : emptyTable();
  return {
    ...(headRef.startsWith('refs/heads/') ? { defaultBranch: headRef.slice('refs/heads/'.length) } : {}),
    ...(tipOid ? { tip: 0 } : {}),
    commits,
    tags,
  };
}

function emptyTable(): CommitTable {
  return { oids: [], time: [], firstParent: new Int32Array(0), parentCount: new Uint8Array(0), moreParents: new Map(), author: new Int32Array(0), authors: [] };
}

/** Every commit reachable from `tipOid`, the tip at index 0. Never `--since`: filtering is ours. */
async function readCommits(gitDir: string, settings: GitSettings, tipOid: string): Promise<CommitTable> {
  const index = new Map<string, number>([[tipOid, 0]]);
  const oids: string[] = [tipOid];
  const times: number[] = [0];
  const parentsOf: string[] = [''];
  const authorOf: number[] = [0];
  const authors: Identity[] = [];
  const authorIndex = new Map<string, number>();
  await streamGitRecords({ gitDir, settings, args: ['log', '-z', '--no-mailmap', `--format=${LOG_FORMAT}`, tipOid, '--'] }, 0, (record) => {
    const [oid, parents, ct, name, email] = record.replace(/^\n/, '').split('\n');
    if (!oid) return;
    let i = index.get(oid);
    if (i === undefined) {
      i = oids.length;
      index.set(oid, i);
      oids.push(oid);
      times.push(0);
      parentsOf.push('');
      authorOf.push(0);
    }
    times[i] = Number(ct);
    parentsOf[i] = parents ?? '';
    const key = `${name}\0${email}`;
    let a = authorIndex.get(key);
    if (a === undefined) {
      a = authors.length;
      authorIndex.set(key, a);
      authors.push({ name: name ?? '', email: email ?? '' });
    }
    authorOf[i] = a;
  });
  const n = oids.length;
  const firstParent = new Int32Array(n).fill(-1);
  const parentCount = new Uint8Array(n);
  const moreParents = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const ps = parentsOf[i] ? parentsOf[i]!.split(' ').map((p) => index.get(p) ?? -1).filter((p) => p >= 0) : [];
    parentCount[i] = Math.min(255, parentsOf[i] ? parentsOf[i]!.split(' ').length : 0);
    if (ps.length > 0) firstParent[i] = ps[0]!;
    if (ps.length > 1) moreParents.set(i, ps.slice(1));
  }
  return { oids, time: times, firstParent, parentCount, moreParents, author: Int32Array.from(authorOf), authors };
}
