// Appending scan records to a store: one .ndjson file per repository, one append per record.
// A directory and an S3 prefix are two implementations; the scan holds the store's lease
// (io/lease.ts) while it writes, so two scans never interleave.
import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { LeaseStore } from '../io/lease.ts';
import { fileLeaseStore } from '../io/file-lease.ts';
import { scanTimesIn, type StoredScan } from './record-line.ts';
import { BadgepressError, EXIT } from '../errors.ts';

/**
 * Where a scan's lease lives in its store: a dot-folder the loader never lists, and no store
 * file type. Shards scan disjoint repositories, so each holds its own.
 */
export function scanLeaseKey(shard?: { index: number; count: number }): string {
  return shard ? `.badgepress/scan-lease-shard-${shard.index}-of-${shard.count}.json` : '.badgepress/scan-lease.json';
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
  leaseStore(key: string): LeaseStore;
  close(): Promise<void>;
}

export class DirectoryStoreWriter implements StoreWriter {
  private readonly root: string;

  readonly location: string;
  constructor(location: string) {
    this.location = location;
    this.root = resolve(location);
  }

  private failure(file: string, what: string, err: unknown): StoreWriteError {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return new StoreWriteError(`store ${join(this.location, file)}: cannot ${what} (${code}); check that --store names a writable directory on a disk with free space`);
  }

  async storedTimes(file: string, repositoryUrl: string): Promise<Map<number, StoredScan>> {
    try {
      return scanTimesIn(await readFile(join(this.root, file), 'utf8'), repositoryUrl);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw this.failure(file, 'read', err);
    }
  }

  async append(file: string, lines: readonly string[]): Promise<void> {
    const path = join(this.root, file);
    try {
      await mkdir(dirname(path), { recursive: true });
      // Opened once (O_APPEND); each record is a write of its own.
      const handle = await open(path, 'a+');
      try {
        // A file someone ended without a newline gets one first, or our record would join its last line.
        const first = (await endsMidLine(handle)) ? '\n' : '';
        for (const [i, line] of lines.entries()) await handle.write(i === 0 ? first + line : line);
      } finally {
        await handle.close();
      }
    } catch (err) {
      throw this.failure(file, 'append to', err);
    }
  }

  leaseStore(key: string): LeaseStore {
    return fileLeaseStore(join(this.root, key), (err) => this.failure(key, 'write', err));
  }

  async close(): Promise<void> {}
}

async function endsMidLine(handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] !== 10;
}
