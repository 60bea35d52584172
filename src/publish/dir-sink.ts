// A directory as the site: keys are relative paths. Each file is written under a temporary
// name and renamed into place, so a reader never sees half a file, and a file whose bytes
// are already there is left untouched (mtime included), so rebuilds only write changes.
import {
  mkdir as mkdirCallback,
  rename as renameCallback,
  writeFile as writeFileCallback,
} from 'node:fs';
import { readdir, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import type { PublishFile } from '../model/publish-file.ts';
import { API_PREFIX } from '../model/layout.ts';
import type { Comparison, PutOutcome, Sink } from './sink.ts';
import type { LeaseSlot } from '../io/lease.ts';
import { LocationError, wrapOnce } from '../errors.ts';
import { fileLeaseSlot } from '../io/file-lease.ts';
import { FileReadError, readRegularFile } from '../io/regular-file.ts';

// Directories remembered (as made by this build, or not): the repositories in flight need a
// few hundred (about 26 a repository). Unbounded sets grew with the site (docs/performance.md,
// "The whole scale run"); forgetting costs a mkdir or a failed read later.
export const MAX_REMEMBERED_DIRS = 4_096;

export class DirectorySink implements Sink {
  private readonly root: string;
  /** Directory → whether this build created it (so it held no files before). */
  private readonly madeDirs = new Map<string, boolean>();
  private readonly freshRoots = new Set<string>();

  readonly location: string;
  constructor(location: string) {
    this.location = location;
    this.root = resolve(location);
  }

  private pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep))
      throw new Error(`key ${JSON.stringify(key)} leaves the output directory`);
    return path;
  }

  async put(file: PublishFile): Promise<PutOutcome> {
    try {
      return await this.write(file);
    } catch (err) {
      throw this.writeError(file.key, err);
    }
  }

  /** A write that failed, said of --out with what to check. */
  private writeError(key: string, err: unknown): Error {
    return wrapOnce(
      err,
      (cause) =>
        `--out ${this.location}: cannot write ${key} (${cause}); check that --out names a writable directory on a disk with free space`,
    );
  }

  /** A read of the output that failed (plan compares, --prune lists), said of --out with what to check. */
  private readError(key: string, err: unknown): Error {
    return wrapOnce(
      err,
      (cause) =>
        `--out ${this.location}: cannot read ${key} (${cause}); check that --out names a directory`,
    );
  }

  private async write(file: PublishFile): Promise<PutOutcome> {
    const path = this.pathOf(file.key);
    const body = Buffer.from(file.body, 'utf8');
    const dir = dirname(path);
    let fresh = this.madeDirs.get(dir);
    if (fresh === undefined) {
      // mkdir reports the first directory it had to create: below it nothing can exist yet,
      // so a first build skips reading back every file it is about to write.
      const created = await mkdirRecursive(dir);
      fresh = created !== undefined || this.isBelowFresh(dir);
      if (this.madeDirs.size >= MAX_REMEMBERED_DIRS) this.madeDirs.clear();
      if (this.freshRoots.size >= MAX_REMEMBERED_DIRS) this.freshRoots.clear();
      this.madeDirs.set(dir, fresh);
      if (created !== undefined) this.freshRoots.add(created);
    }
    if (!fresh && (await this.compare(file)) === 'same') return 'unchanged';
    // One temporary name per file, beside it (a rename within its directory keeps the inode
    // where the file lives): a build killed mid-write leaves `.<name>.tmp`, and a re-run with
    // the same inputs writes that same file again, reusing and consuming the name.
    const tmp = join(dir, `.${basename(path)}.tmp`);
    await writeWhole(tmp, body);
    await renameOver(tmp, path);
    return 'written';
  }

  private isBelowFresh(dir: string): boolean {
    for (let d = dir; d.length > this.root.length; d = dirname(d))
      if (this.freshRoots.has(d)) return true;
    return false;
  }

  async compare(file: PublishFile): Promise<Comparison> {
    let stored: Uint8Array | undefined;
    try {
      stored = await this.read(file.key);
    } catch (err) {
      // A FIFO, socket or device where the file goes: different, so the put renames the
      // new file over it (never opened for a read that would block).
      if (err instanceof NotRegularFileError) return 'different';
      throw err;
    }
    return compareBytes(stored, Buffer.from(file.body, 'utf8'));
  }

  /** The file's bytes; undefined when absent (or a directory); a NotRegularFileError for a FIFO, socket or device. */
  async read(key: string): Promise<Uint8Array | undefined> {
    const path = this.pathOf(key);
    try {
      // Only a regular file: a FIFO at a key (a summary part, say) never blocks the build.
      return await readRegularFile(path);
    } catch (err) {
      if (err instanceof FileReadError) {
        if (err.code === 'ENOENT' || err.code === 'ENOTDIR' || err.code === 'EISDIR')
          return undefined;
        if (err.code === undefined && (await stat(path).catch(() => undefined))?.isDirectory())
          return undefined;
        if (err.code === undefined)
          throw new NotRegularFileError(
            `${path}: ${err.reason}; remove it (a build writes a regular file in its place)`,
          );
      }
      throw this.readError(key, err);
    }
  }

  async list(prefix: string): Promise<string[]> {
    const base = this.pathOf(prefix);
    let entries;
    try {
      entries = await readdir(base, { recursive: true, withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw this.readError(prefix, err);
    }
    return entries
      .filter((e) => e.isFile())
      .map((e) => relative(this.root, join(e.parentPath, e.name)).split(sep).join('/'))
      .sort();
  }

  async children(prefix: string): Promise<string[]> {
    try {
      return (await readdir(this.pathOf(prefix), { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw this.readError(prefix, err);
    }
  }

  async remove(keys: string[]): Promise<void> {
    const dirs = new Set<string>();
    for (const key of keys) {
      const path = this.pathOf(key);
      await rm(path, { force: true });
      dirs.add(dirname(path));
    }
    // Directories the removals emptied (an old scan's at/<ts>/badges/) go too, deepest first,
    // up to but never including the repository's own directory.
    for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
      const stop = this.repositoryDirOf(dir);
      for (
        let d = dir;
        stop !== undefined && d.length > stop.length && d.startsWith(stop + sep);
        d = dirname(d)
      ) {
        if (!(await removeIfEmpty(d))) break;
        this.madeDirs.delete(d);
        this.freshRoots.delete(d);
      }
    }
  }

  async removeEmptyDirectories(prefix: string): Promise<void> {
    const base = this.pathOf(prefix);
    let entries;
    try {
      entries = await readdir(base, { recursive: true, withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw this.readError(prefix, err);
    }
    // The prefix's own directory last: a repository whose files were all removed leaves none.
    const dirs = [
      ...entries.filter((e) => e.isDirectory()).map((e) => join(e.parentPath, e.name)),
      base,
    ];
    // Deepest first, so a directory that held only empty ones goes too.
    for (const dir of dirs.sort((a, b) => b.length - a.length)) {
      if (await removeIfEmpty(dir)) {
        this.madeDirs.delete(dir);
        this.freshRoots.delete(dir);
      }
    }
  }

  /** `<root>/api/v1/repositories/<enc>` for a path below it; undefined for any other path. */
  private repositoryDirOf(path: string): string | undefined {
    const below = relative(this.root, path).split(sep);
    const prefix = API_PREFIX.split('/').filter(Boolean);
    if (below.length <= prefix.length || prefix.some((p, i) => below[i] !== p)) return undefined;
    return join(this.root, ...below.slice(0, prefix.length + 1));
  }

  /** The lease in a chain of generations (file-lease.ts), worded like a failed put: it is the first thing a build writes. */
  leaseSlot(key: string): LeaseSlot {
    return fileLeaseSlot(this.pathOf(key), (err) => this.writeError(key, err));
  }

  async close(): Promise<void> {}
}

/** A key of the output that is a FIFO, socket or device: named, never read. */
export class NotRegularFileError extends LocationError {
  override name = 'NotRegularFileError';
}

// The writes of a build go through fs's callback API: fs/promises wraps each open file in a
// FileHandle and each step in promises of its own, which cost CPU on every file (a build
// writes ~80 files a repository; docs/performance.md, "Pages and file writes made cheaper").
const mkdirMade = promisify(mkdirCallback);
const mkdirRecursive = (dir: string) => mkdirMade(dir, { recursive: true });
const writeWhole = promisify(writeFileCallback);
const renameOver = promisify(renameCallback);

function compareBytes(stored: Uint8Array | undefined, body: Buffer): Comparison {
  if (!stored) return 'absent';
  return Buffer.compare(stored, body) === 0 ? 'same' : 'different';
}

/** rmdir only ever removes an empty directory: anything else stays and stops the walk up. */
async function removeIfEmpty(dir: string): Promise<boolean> {
  try {
    await rmdir(dir);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOENT') return false;
    throw err;
  }
}
