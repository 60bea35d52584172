// One `git cat-file --batch` (`--batch-command` on git 2.36 and later) per repository: trees
// and the few blobs a scan reads (.mailmap), asked one at a time over a single process instead
// of one process per object.
import { ByteQueue } from './byte-queue.ts';
import { runGit, startGit, type GitCall, type GitChild, type GitSettings } from './run.ts';

interface GitObject {
  oid: string;
  type: string;
  body: Buffer;
}

export class CatFile {
  private readonly child: GitChild;
  private readonly pending = new ByteQueue();
  private waiting: (() => void) | undefined;
  /** Bytes that must be pending before a waiting read goes on: a 4 MB body wakes it once, not per chunk. */
  private enough = 0;
  private ended = false;
  private queue: Promise<unknown> = Promise.resolve();
  /** Bytes of object bodies read so far (what a scan cost git to print and us to parse). */
  bodyBytes = 0;

  /**
   * With `commands` (git 2.36 and later: catFileCommands), one `--batch-command` process that
   * also answers `info`: how an object is stored, without its contents.
   */
  readonly commands: boolean;

  constructor(call: Omit<GitCall, 'args'>, commands = false) {
    this.commands = commands;
    this.child = startGit({
      ...call,
      args: ['cat-file', commands ? `--batch-command=${STORED_FORMAT}` : '--batch'],
    });
    this.child.stdout.on('data', (c: Buffer) => {
      this.pending.push(c);
      if (this.pending.length >= this.enough) this.wake();
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
      this.enough = n;
      await new Promise<void>((ok) => (this.waiting = ok));
    }
    this.enough = 0;
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
   * cost one round trip, not one each. `onHeader` hears the object's type and size before its
   * body is read (what a caller may start on meanwhile).
   */
  read(
    name: string,
    onHeader?: (type: string, size: number) => void,
  ): Promise<GitObject | undefined> {
    this.child.stdin.write(this.commands ? `contents ${name}\n` : `${name}\n`);
    const next = this.queue.then(async () => {
      const header = await this.line();
      const [oid, type, size] = header.split(' ');
      if (type === 'missing' || type === 'ambiguous' || size === undefined) return undefined;
      onHeader?.(type!, Number(size));
      const body = await this.bytes(Number(size));
      this.bodyBytes += body.length;
      await this.bytes(1); // the newline after each object
      return { oid: oid!, type: type!, body };
    });
    this.queue = next.catch(() => {});
    return next;
  }

  /**
   * How the repository stores the object `oid` (undefined: it lacks it), in the same round
   * trip as other requests; only with `commands`.
   */
  info(oid: string): Promise<StoredObject | undefined> {
    if (!this.commands) return Promise.reject(new Error('cat-file info needs --batch-command'));
    this.child.stdin.write(`info ${oid}\n`);
    const next = this.queue.then(async () => storedObject(oid, await this.line()));
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
  for (const n of only ?? [])
    first[n.charCodeAt(0) & 0xff] = first[n.toUpperCase().charCodeAt(0) & 0xff] = 1;
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

/** An entry of a commit's root tree that another commit's root has otherwise, or lacks. */
export interface RootChange {
  name: string;
  /** The entry in the root diffed from (undefined: added), its mode as a tree object holds it (40000). */
  before?: TreeEntry;
  /** The entry in the root diffed to (undefined: deleted). */
  after?: TreeEntry;
}

/**
 * For each pair [from, to] of commits, the entries of the `to` commit's root tree that the
 * `from` commit's root does not have as they are: one `git diff-tree --stdin`, each `to` commit
 * given `from` as its parent, not recursing. The pairs may go either way in time: diff-tree
 * of (newer, older) gives what turns the newer root into the older. git walks the two roots
 * side by side and prints only what differs, matching no name against a pattern: for months
 * of a root of 100,000 files a few entries apart, this costs git about two reads of each root
 * and us nothing to speak of. Keyed by the `to` commit (absent: the two roots are the same).
 * Fails as git does, and on any answer it cannot read as such a change.
 */
export async function rootChanges(
  call: Omit<GitCall, 'args'>,
  pairs: ReadonlyArray<readonly [from: string, to: string]>,
  rootBytes = 0,
): Promise<Map<string, RootChange[]>> {
  const out = new Map<string, RootChange[]>();
  if (pairs.length === 0) return out;
  // git keeps up to 96 MiB of delta bases (the roots it rebuilt one from); walking the months
  // in order (either way) only ever reuses the last few, and keeping the rest costs it fresh
  // memory: room for six roots took git from 0.19-0.28 to 0.16-0.20 CPU s over 24 roots of
  // 4 MB, whether each root was stored as a delta of the month before or after
  // (docs/performance.md).
  const cache = Math.min(96, Math.max(16, Math.ceil((6 * rootBytes) / 2 ** 20)));
  // -O/dev/null: no diff.orderFile reorders the entries; no rename or copy pairs entries up;
  // full oids whatever core.abbrev says; a submodule's change is shown whatever the config.
  const text = await runGit(
    {
      ...call,
      args: [
        '-c',
        `core.deltaBaseCacheLimit=${cache}m`,
        'diff-tree',
        '-z',
        '-O/dev/null',
        '--no-renames',
        '--no-abbrev',
        '--ignore-submodules=none',
        '--stdin',
      ],
    },
    pairs.map(([from, to]) => `${to} ${from}\n`).join(''),
  );
  // "<to>\0" before each pair's changes, then ":<mode> <mode> <oid> <oid> <status>\0<name>\0".
  const fields = text.split('\0');
  let changes: RootChange[] | undefined;
  for (let k = 0; k < fields.length; k++) {
    const field = fields[k]!;
    if (field === '' && k === fields.length - 1) break;
    if (!field.startsWith(':')) {
      if (!/^[0-9a-f]{40,64}$/.test(field))
        throw new Error(`git diff-tree printed ${JSON.stringify(field.slice(0, 80))}`);
      changes = [];
      out.set(field, changes);
      continue;
    }
    const [beforeMode, afterMode, beforeOid, afterOid, status] = field.slice(1).split(' ');
    const name = fields[++k];
    if (!changes || name === undefined || !afterOid || !status || !/^[ADMT]$/.test(status))
      throw new Error(`git diff-tree printed ${JSON.stringify(field.slice(0, 80))}`);
    const entry = (mode: string | undefined, oid: string): TreeEntry | undefined =>
      // diff-tree prints a tree's mode as 040000 (a tree object holds 40000) and 000000 for none.
      mode === undefined || /^0+$/.test(mode)
        ? undefined
        : { mode: mode.replace(/^0+(?=\d{5}$)/, ''), name, oid };
    changes.push({
      name,
      before: entry(beforeMode, beforeOid!),
      after: entry(afterMode, afterOid),
    });
  }
  return out;
}

/** How the repository stores an object. */
export interface StoredObject {
  type: string;
  size: number;
  /** The object it is stored as a delta of; absent when stored whole (loose, or no delta). */
  deltaBase?: string;
}

const STORED_FORMAT = '%(objectname) %(objecttype) %(objectsize) %(deltabase)';

/** One line of STORED_FORMAT for the object `asked`; undefined when git says it is missing. */
function storedObject(asked: string, line: string): StoredObject | undefined {
  if (line === `${asked} missing`) return undefined;
  const [oid, type, size, base] = line.split(' ');
  if (
    oid !== asked ||
    !type ||
    !/^\d+$/.test(size ?? '') ||
    !base ||
    !/^[0-9a-f]{40,64}$/.test(base)
  )
    throw new Error(`git cat-file printed ${JSON.stringify(line.slice(0, 120))} for ${asked}`);
  return { type, size: Number(size), ...(/^0+$/.test(base) ? {} : { deltaBase: base }) };
}

/**
 * How the repository stores each of `oids` (undefined: it lacks it), from one `git cat-file
 * --batch-check`, for git before 2.36 (CatFile#info answers in the process already running):
 * types, sizes and delta bases, no object read. Which root tree is stored whole says where
 * reading many is cheapest to start: a tree stored at the end of a chain of deltas costs git
 * every object of the chain to rebuild. Given ids, not `<commit>^{tree}`: peeling a commit to
 * its tree has git read and check the whole tree (20 ms for one of 4 MB).
 */
export async function storedObjects(
  call: Omit<GitCall, 'args'>,
  oids: readonly string[],
): Promise<Array<StoredObject | undefined>> {
  const text = await runGit(
    { ...call, args: ['cat-file', `--batch-check=${STORED_FORMAT}`] },
    oids.map((oid) => `${oid}\n`).join(''),
  );
  const lines = text.split('\n');
  return oids.map((asked, i) => storedObject(asked, lines[i] ?? ''));
}

let commandsAnswer: Promise<boolean> | undefined;

/** Whether this git's cat-file takes `--batch-command` (2.36 and later): asked once a process. */
export function catFileCommands(settings: GitSettings): Promise<boolean> {
  commandsAnswer ??= runGit({ args: ['version'], settings }).then(
    (text) => {
      const [, major, minor] = /^git version (\d+)\.(\d+)/.exec(text) ?? [];
      return Number(major) > 2 || (Number(major) === 2 && Number(minor) >= 36);
    },
    () => false,
  );
  return commandsAnswer;
}
