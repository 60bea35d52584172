// Where stored values come from. The loader only needs to list file names and read one file;
// a directory and an S3 prefix are two small implementations of that.
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isStoreFile } from './parse-file.ts';
import { FileReadError, readRegularFile } from './regular-file.ts';

/**
 * One store file that cannot be read (vanished, not a regular file, too large, no permission):
 * the loader reports it as a bad file and builds the others.
 */
export class UnreadableStoreFile extends Error {
  constructor(
    readonly where: string,
    readonly reason: string,
  ) {
    super(`store ${where}: ${reason}`);
    this.name = 'UnreadableStoreFile';
  }
}

export interface StoreSource {
  /** Human-readable location, e.g. the directory or s3://bucket/prefix. */
  readonly location: string;
  /** Store file names (relative), sorted, only the kinds the loader reads. */
  list(): Promise<string[]>;
  /** Throws UnreadableStoreFile for a file that alone is at fault; anything else ends the build. */
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

  /**
   * Follows symbolic links (a Kubernetes ConfigMap or Secret mount presents every file as one,
   * and stores are often assembled with `ln -s`), each directory once by its real path.
   * Hidden entries are skipped: such a mount keeps the real files again under `..<time>/`.
   */
  async list(): Promise<string[]> {
    const names: string[] = [];
    const walked = new Set<string>();
    const walk = async (dir: string, rel: string): Promise<void> => {
      let entries;
      try {
        const real = await realpath(dir);
        if (walked.has(real)) return;
        walked.add(real);
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? String(err);
        const advice = rel ? "let the build's user read it (chmod a+rx) or move it out of the store" : 'check --store';
        throw new Error(`store ${dir}: cannot read the directory (${code}); ${advice}`, { cause: err });
      }
      for (const e of entries) {
        if (e.name.startsWith('.')) continue;
        const name = rel ? `${rel}/${e.name}` : e.name;
        // A link is judged by what it points to; a link to nothing is listed, and reading it
        // says so with its name.
        const target = e.isSymbolicLink() ? await stat(join(dir, e.name)).catch(() => undefined) : e;
        if (target?.isDirectory()) await walk(join(dir, e.name), name);
        else if ((target === undefined || target.isFile()) && isStoreFile(e.name)) names.push(name);
      }
    };
    await walk(this.location, '');
    return names.sort();
  }

  async read(name: string): Promise<Uint8Array> {
    try {
      return await readRegularFile(join(this.location, name));
    } catch (err) {
      if (err instanceof FileReadError) throw new UnreadableStoreFile(this.display(name), err.reason);
      throw err;
    }
  }

  display(name: string): string {
    return join(this.location, name);
  }
}
