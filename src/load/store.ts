// Where stored values come from. The loader only needs to list file names and read one file;
// a directory and an S3 prefix are two small implementations of that.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { isStoreFile } from './parse-file.ts';

export interface StoreSource {
  /** Human-readable location, e.g. the directory or s3://bucket/prefix. */
  readonly location: string;
  /** Store file names (relative), sorted, only the kinds the loader reads. */
  list(): Promise<string[]>;
  read(name: string): Promise<Uint8Array>;
  /** How a file is named in messages (path or s3 key). */
  display(name: string): string;
  /**
   * Bytes of files the loader may keep between its two passes instead of reading them again:
   * large where a read is a network round trip, small where it is the page cache.
   */
  readonly keepBetweenPassesBytes: number;
}

export class DirectoryStore implements StoreSource {
  // A second read of a local file costs less than holding the store in memory.
  readonly keepBetweenPassesBytes = 4 * 1024 * 1024;

  constructor(readonly location: string) {}

  async list(): Promise<string[]> {
    let entries;
    try {
      entries = await readdir(this.location, { recursive: true, withFileTypes: true });
    } catch (err) {
      throw new Error(`store ${this.location}: cannot read the directory (${(err as NodeJS.ErrnoException).code}); check --store`);
    }
    return entries
      .filter((e) => e.isFile() && isStoreFile(e.name))
      .map((e) => relative(this.location, join(e.parentPath, e.name)).split(sep).join('/'))
      .sort();
  }

  read(name: string): Promise<Uint8Array> {
    return readFile(join(this.location, name));
  }

  display(name: string): string {
    return join(this.location, name);
  }
}
