// Appending scan records to a store: one .ndjson file per repository, one append per record.
// A directory and an S3 prefix are two implementations; the scan holds the store's lease
// (io/lease.ts) while it writes, so two scans never interleave.
import { constants } from 'node:fs';
import { mkdir, open, readdir, realpath, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { fileKind } from '../io/regular-file.ts';
import type { LeaseSlot } from '../io/lease.ts';
import { fileLeaseSlot } from '../io/file-lease.ts';
import { scanTimesIn, type StoredScan } from './record-line.ts';
import { BadgepressError, EXIT } from '../errors.ts';

/**
 * Where a scan's lease lives in its store: a dot-folder the loader never lists, and no store
 * file type. Shards of one n scan disjoint repositories, so each holds its own (a scan also
 * checks that no scan of another n, or of the whole list, holds one: scan/lease.ts).
 */
export function scanLeaseKey(shard?: { index: number; count: number }): string {
  return shard
    ? `.badgepress/scan-lease-shard-${shard.index}-of-${shard.count}.json`
    : '.badgepress/scan-lease.json';
}

/** The shard a scan lease key belongs to (null: the whole list), or undefined for another key. */
export function shardOfLeaseKey(key: string): { index: number; count: number } | null | undefined {
  if (key === '.badgepress/scan-lease.json') return null;
  const m = /^\.badgepress\/scan-lease-shard-(\d+)-of-(\d+)\.json$/.exec(key);
  return m ? { index: Number(m[1]), count: Number(m[2]) } : undefined;
}

/** The store cannot be read or written: the scan stops (exit 4). */
export class StoreWriteError extends BadgepressError {
  override name = 'StoreWriteError';
  readonly exitCode: number = EXIT.store;
}

/** Someone else wrote a store file while this scan was writing it: nothing of theirs is overwritten (exit 5). */
export class StoreConflictError extends BadgepressError {
  override name = 'StoreConflictError';
  readonly exitCode: number = EXIT.leaseHeld;
}

export interface StoreWriter {
  readonly location: string;
  /** The scan times the store already holds for `repositoryUrl` in `file`: each one's rule ids and the record a build uses. */
  storedTimes(file: string, repositoryUrl: string): Promise<Map<number, StoredScan>>;
  /** Appends each line (a whole record with its newline) to `file`, one append per record. */
  append(file: string, lines: readonly string[]): Promise<void>;
  leaseSlot(key: string): LeaseSlot;
  /** The keys of every scan lease the store keeps (held, lapsed or released). */
  scanLeaseKeys(): Promise<string[]>;
  close(): Promise<void>;
}

/** How the directory writer opens its files: node's open, or a test's (a short write, ENOSPC). */
type OpenFile = (path: string, flags: number, mode?: number) => Promise<FileHandle>;

/**
 * A store file the scan will not read or append to: not a regular file (a FIFO would block the
 * scan), or reached through a symbolic link (an append would land outside the store). Its
 * repository fails, named; the others are scanned.
 */
export class StoreFileRefused extends Error {
  override name = 'StoreFileRefused';
}

export class DirectoryStoreWriter implements StoreWriter {
  private readonly root: string;
  private readonly openFile: OpenFile;

  readonly location: string;
  constructor(location: string, openFile: OpenFile = open) {
    this.location = location;
    this.root = resolve(location);
    this.openFile = openFile;
  }

  private failure(file: string, what: string, err: unknown): StoreWriteError {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return new StoreWriteError(
      `store ${join(this.location, file)}: cannot ${what} (${code}); check that --store names a writable directory on a disk with free space`,
    );
  }

  private refused(file: string, what: string): StoreFileRefused {
    return new StoreFileRefused(
      `store ${join(this.location, file)}: ${what}; a scan reads and appends to regular files inside the store only: replace it with the regular file it stands for, or remove it, and scan again`,
    );
  }

  /**
   * Opens a store file without following a link at its name and without waiting (a FIFO), and
   * only when it is a regular file whose folder lies inside the store; undefined when it does
   * not exist and `flags` do not create it.
   */
  private async openStoreFile(file: string, flags: number): Promise<FileHandle | undefined> {
    const path = join(this.root, file);
    let handle: FileHandle;
    try {
      // The folder's real path: a folder linked to another place would take the records there.
      const [root, folder] = await Promise.all([realpath(this.root), realpath(dirname(path))]);
      if (folder !== root && !folder.startsWith(root + sep))
        throw this.refused(
          file,
          `its folder leads out of the store (to ${folder}) through a symbolic link`,
        );
      handle = await this.openFile(
        path,
        flags | constants.O_NOFOLLOW | constants.O_NONBLOCK,
        0o666,
      );
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') throw this.refused(file, 'is a symbolic link');
      // O_NONBLOCK write-opening a FIFO nobody reads.
      if (code === 'ENXIO') throw this.refused(file, 'is a FIFO (named pipe), not a regular file');
      throw err;
    }
    const stats = await handle.stat().catch(async (err: unknown) => {
      await handle.close();
      throw err;
    });
    if (!stats.isFile()) {
      await handle.close();
      throw this.refused(file, `is ${fileKind(stats)}, not a regular file`);
    }
    return handle;
  }

  async storedTimes(file: string, repositoryUrl: string): Promise<Map<number, StoredScan>> {
    try {
      const handle = await this.openStoreFile(file, constants.O_RDONLY);
      if (!handle) return new Map();
      try {
        return scanTimesIn(await handle.readFile('utf8'), repositoryUrl);
      } finally {
        await handle.close();
      }
    } catch (err) {
      if (err instanceof StoreFileRefused) throw err;
      throw this.failure(file, 'read', err);
    }
  }

  /**
   * Each record is written whole or not at all: a short write (a disk filling up) is continued
   * until every byte is written, and a write that fails leaves the file cut back to the size it
   * had before that record, so no torn line stays for the next append to end.
   */
  async append(file: string, lines: readonly string[]): Promise<void> {
    let handle: FileHandle | undefined;
    try {
      await mkdir(dirname(join(this.root, file)), { recursive: true });
      handle = await this.openStoreFile(
        file,
        constants.O_RDWR | constants.O_APPEND | constants.O_CREAT,
      );
    } catch (err) {
      if (err instanceof StoreFileRefused) throw err;
      throw this.failure(file, 'append to', err);
    }
    const h = handle!;
    let size = 0;
    try {
      size = (await h.stat()).size;
      // A file someone ended without a newline gets one first, or our record would join its last line.
      const first = (await endsMidLine(h, size)) ? '\n' : '';
      for (const [i, line] of lines.entries()) {
        const bytes = Buffer.from(i === 0 ? first + line : line);
        await writeWhole(h, bytes);
        size += bytes.length;
      }
    } catch (err) {
      const cut = await h.truncate(size).then(
        () => '',
        (e: unknown) =>
          `; the part of a record written could not be cut off (${(e as NodeJS.ErrnoException).code ?? String(e)}): remove the last line of ${join(this.location, file)} after byte ${size}`,
      );
      const failure = this.failure(file, 'append to', err);
      failure.message += cut;
      throw failure;
    } finally {
      await h.close();
    }
  }

  leaseSlot(key: string): LeaseSlot {
    return fileLeaseSlot(join(this.root, key), (err) => this.failure(key, 'write', err));
  }

  async scanLeaseKeys(): Promise<string[]> {
    // In a directory each lease is a folder, its chain of generations (io/file-lease.ts).
    const names = await readdir(join(this.root, '.badgepress')).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw this.failure('.badgepress', 'read', err);
    });
    return names
      .map((n) => `.badgepress/${n}.json`)
      .filter((key) => shardOfLeaseKey(key) !== undefined);
  }

  async close(): Promise<void> {}
}

/** Writes every byte of `bytes` (O_APPEND: at the end), going on after a short write. */
async function writeWhole(handle: FileHandle, bytes: Buffer): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
    if (bytesWritten <= 0) throw Object.assign(new Error('no byte written'), { code: 'ENOSPC' });
    done += bytesWritten;
  }
}

async function endsMidLine(handle: FileHandle, size: number): Promise<boolean> {
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] !== 10;
}
