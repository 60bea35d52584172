// One `git cat-file --batch` per repository: trees and the few blobs a scan reads (.mailmap),
// asked one at a time over a single process instead of one process per object.
import { ByteQueue } from './byte-queue.ts';
import { runGit, startGit, type GitCall, type GitChild } from './run.ts';

export interface GitObject {
  oid: string;
  type: string;
  body: Buffer;
}

export class CatFile {
  private readonly child: GitChild;
  private readonly pending = new ByteQueue();
  private waiting: (() => void) | undefined;
  private ended = false;
  private queue: Promise<unknown> = Promise.resolve();
  /** Bytes of object bodies read so far (what a scan cost git to print and us to parse). */
  bodyBytes = 0;

  constructor(call: Omit<GitCall, 'args'>) {
    this.child = startGit({ ...call, args: ['cat-file', '--batch'] });
    this.child.stdout.on('data', (c: Buffer) => {
      this.pending.push(c);
      this.wake();
    });
    this.child.stdout.on('end', () => {
      this.ended = true;
      this.wake();
    });
    this.child.done.catch(() => {});
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  private async bytes(n: number): Promise<Buffer> {
    while (this.pending.length < n) {
      if (this.ended) await this.failed();
      await new Promise<void>((ok) => (this.waiting = ok));
    }
    return this.pending.take(n);
  }

  private async line(): Promise<string> {
    for (;;) {
      const nl = this.pending.indexOf(10);
      if (nl >= 0) return (await this.bytes(nl + 1)).toString('utf8', 0, nl);
      if (this.ended) await this.failed();
      await new Promise<void>((ok) => (this.waiting = ok));
    }
  }

  private async failed(): Promise<never> {
    await this.child.done;
    throw new Error('git cat-file ended early');
  }

  /**
   * The object `name` (an oid or `<rev>^{tree}`), or undefined when the repository lacks it.
   * The request is written at once and answers are read in order, so many reads in flight
   * cost one round trip, not one each.
   */
  read(name: string): Promise<GitObject | undefined> {
    this.child.stdin.write(`${name}\n`);
    const next = this.queue.then(async () => {
      const header = await this.line();
      const [oid, type, size] = header.split(' ');
      if (type === 'missing' || type === 'ambiguous' || size === undefined) return undefined;
      const body = await this.bytes(Number(size));
      this.bodyBytes += body.length;
      await this.bytes(1); // the newline after each object
      return { oid: oid!, type: type!, body };
    });
    this.queue = next.catch(() => {});
    return next;
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await this.child.done;
  }

  kill(): void {
    this.child.kill();
  }
}

export interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
}

/**
 * A raw tree object's entries: `<mode> <name>\0<binary oid>` each. With `only` (lower-case
 * names), just the entries so named: a root of 300,000 files costs no object per file, and a
 * name that cannot be one of them (its first byte, its length) is not even decoded. The bytes
 * are walked here, not with indexOf: a call per entry cost ten times the walk.
 */
export function parseTree(body: Buffer, oidBytes: number, only?: ReadonlySet<string>): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const longest = only ? Math.max(0, ...[...only].map((n) => Buffer.byteLength(n) * 2)) : Infinity;
  // First bytes a kept name may start with: a wanted name's first letter in either case, and
  // any byte of a non-ASCII character (lower-cased by JavaScript, not by these bytes).
  const first = new Uint8Array(256).fill(only ? 0 : 1);
  first.fill(1, 0x80);
  for (const n of only ?? []) first[n.charCodeAt(0) & 0xff] = first[n.toUpperCase().charCodeAt(0) & 0xff] = 1;
  const end = body.length;
  let i = 0;
  while (i < end) {
    let space = i;
    while (space < end && body[space] !== 32) space++;
    let nul = space + 1;
    while (nul < end && body[nul] !== 0) nul++;
    if (nul >= end) break;
    if (first[body[space + 1]!] === 1 && nul - space - 1 <= longest) {
      const name = body.toString('utf8', space + 1, nul);
      if (!only || only.has(name.toLowerCase()))
        entries.push({
          mode: body.toString('latin1', i, space),
          name,
          oid: body.toString('hex', nul + 1, nul + 1 + oidBytes),
        });
    }
    i = nul + 1 + oidBytes;
  }
  return entries;
}

// The empty tree, which git knows without having it: SHA-1 and SHA-256.
const EMPTY_TREE: Record<number, string> = {
  40: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  64: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
};

/**
 * The entries of each tree (by oid) whose lower-case name is in `only`, as `parseTree` keeps
 * them, without reading the trees: one `git diff-tree --stdin` adds each tree to the empty
 * tree, limited by case-insensitive pathspecs, and prints only those entries (not recursing).
 * For big trees read many times (a history over a root of 100,000 files): git still inflates
 * each tree, but nothing else crosses the pipe. Fails as git does (a tree the repository lacks).
 */
export async function treeEntriesNamed(
  call: Omit<GitCall, 'args'>,
  trees: readonly string[],
  only: ReadonlySet<string>,
): Promise<Map<string, TreeEntry[]>> {
  const out = new Map<string, TreeEntry[]>(trees.map((t) => [t, []]));
  if (trees.length === 0) return out;
  const empty = EMPTY_TREE[trees[0]!.length];
  if (!empty) throw new Error(`not a tree id: ${trees[0]}`);
  // git's icase folds ASCII only; the one other character JavaScript lower-cases to ASCII is
  // the Kelvin sign (to k), so a name with a k is also asked with a wildcard in its place. The
  // names are filtered below as parseTree filters them.
  const pathspecs = [...only].flatMap((n) => [
    `:(icase,literal)${n}`,
    ...(n.includes('k') ? [`:(icase,glob)${n.replace(/[*?[\\]/g, '\\$&').replaceAll('k', '*')}`] : []),
  ]);
  // -O/dev/null: no diff.orderFile of the repository's config reorders the entries.
  const text = await runGit(
    { ...call, args: ['diff-tree', '-z', '-O/dev/null', '--stdin', '--', ...pathspecs] },
    trees.map((t) => `${empty} ${t}\n`).join(''),
  );
  // Each tree's echoed "<empty> <tree>\n", then ":000000 <mode> <zeros> <oid> A\0<name>\0" each.
  let entries: TreeEntry[] | undefined;
  let i = 0;
  while (i < text.length) {
    if (text[i] !== ':') {
      const nl = text.indexOf('\n', i);
      if (nl < 0) break;
      entries = out.get(text.slice(i, nl).split(' ')[1] ?? '');
      i = nl + 1;
      continue;
    }
    const metaEnd = text.indexOf('\0', i);
    const nameEnd = text.indexOf('\0', metaEnd + 1);
    if (metaEnd < 0 || nameEnd < 0) break;
    const [, mode, , oid] = text.slice(i + 1, metaEnd).split(' ');
    const name = text.slice(metaEnd + 1, nameEnd);
    // diff-tree prints a tree's mode as 040000; a tree object holds 40000.
    if (entries && mode && oid && only.has(name.toLowerCase()))
      entries.push({ mode: mode.replace(/^0+(?=\d{5}$)/, ''), name, oid });
    i = nameEnd + 1;
  }
  return out;
}
