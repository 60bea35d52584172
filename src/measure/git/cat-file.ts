// One `git cat-file --batch` per repository: trees and the few blobs a scan reads (.mailmap),
// asked one at a time over a single process instead of one process per object.
import { ByteQueue } from './byte-queue.ts';
import { startGit, type GitCall, type GitChild } from './run.ts';

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
 * name longer than every wanted one is not even decoded.
 */
export function parseTree(body: Buffer, oidBytes: number, only?: ReadonlySet<string>): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const longest = only ? Math.max(0, ...[...only].map((n) => Buffer.byteLength(n) * 2)) : Infinity;
  let i = 0;
  while (i < body.length) {
    const space = body.indexOf(32, i);
    const nul = body.indexOf(0, space + 1);
    if (space < 0 || nul < 0) break;
    if (nul - space - 1 <= longest) {
      const name = body.toString('utf8', space + 1, nul);
      if (!only || only.has(name.toLowerCase())) entries.push({ mode: body.toString('latin1', i, space), name, oid: body.toString('hex', nul + 1, nul + 1 + oidBytes) });
    }
    i = nul + 1 + oidBytes;
  }
  return entries;
}
