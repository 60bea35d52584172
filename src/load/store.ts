// Where stored values come from. The loader only needs to list file names and read one file;
// a directory and an S3 prefix are two small implementations of that.
import { createHash } from 'node:crypto';
import { readdir, realpath, stat } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { isStoreFile } from './parse-file.ts';
import { FileReadError, openRegularFile } from '../io/regular-file.ts';
import { LocationError } from '../errors.ts';

/**
 * One store file that cannot be read (vanished, not a regular file, too large, no permission):
 * the loader reports it as a bad file and builds the others.
 */
export class UnreadableStoreFile extends Error {
  readonly where: string;
  readonly reason: string;
  constructor(where: string, reason: string) {
    super(`store ${where}: ${reason}`);
    this.where = where;
    this.reason = reason;
    this.name = 'UnreadableStoreFile';
  }
}

/** A store file as listed, with a version that changes whenever its content does. */
export interface StoreEntry {
  name: string;
  /** Size and modification time on disk (`<size>:<mtime ns>`), the ETag on S3. */
  version: string;
  /** Bytes, as listed. */
  size?: number;
}

/** One file's bytes together with the version they are (one consistent read). */
export interface VersionedBytes {
  bytes: Uint8Array;
  version: string;
}

/** A file read as a stream: its chunks, then the version they were (throws StoreFileChangedError if none). */
export interface VersionedStream {
  chunks: AsyncIterable<Uint8Array>;
  version(): Promise<string>;
}

/** A file that changed while it was being read, more often than a read is retried. */
export class StoreFileChangedError extends Error {}

export interface StoreSource {
  /** Human-readable location, e.g. the directory or s3://bucket/prefix. */
  readonly location: string;
  /** Store file names (relative), sorted, only the kinds the loader reads. */
  list(): Promise<string[]>;
  /** The same files with their versions, from the listing alone (no file is read). */
  entries(): Promise<StoreEntry[]>;
  /** Throws UnreadableStoreFile for a file that alone is at fault; anything else ends the build. */
  read(name: string): Promise<Uint8Array>;
  /**
   * The bytes of one version of the file and that version. A file that changes during the
   * read is read again; one that keeps changing is a StoreFileChangedError.
   */
  readVersioned(name: string): Promise<VersionedBytes>;
  /** The same as a stream, for files larger than memory should hold. */
  readStream(name: string): Promise<VersionedStream>;
  /** How a file is named in messages (path or s3 key). */
  display(name: string): string;
  /**
   * Bytes of files the loader may keep between its two passes instead of reading them again:
   * large where a read is a network round trip, small where it is the page cache.
   */
  readonly keepBetweenPassesBytes: number;
}

const READ_ATTEMPTS = 3;
const RECENT_MS = 2000;
/** Ends the version of a file read within RECENT_MS of its last write. */
const RECENT_MARK = ':recent';

/** A digest of a store file's bytes (base64 SHA-256). */
export const storeFileDigest = (bytes: Uint8Array) =>
  createHash('sha256').update(bytes).digest('base64');

/**
 * The version a build keeps for what it read: for a file read just after it was written (it
 * could be written again with the same size and mtime), the version marked recent and a digest
 * of its bytes, `<size>:<mtime>:recent:<sha256>`, so that version is known again by its bytes
 * (git's racily clean index entries); any other, the version as read.
 */
export function keptVersion(read: VersionedBytes): string {
  return read.version.endsWith(RECENT_MARK)
    ? `${read.version}:${storeFileDigest(read.bytes)}`
    : read.version;
}

/** The version without a recent mark and digest; the digest ('' for none). */
function splitVersion(version: string): { bare: string; digest: string } {
  const at = version.indexOf(RECENT_MARK);
  if (at < 0) return { bare: version, digest: '' };
  return { bare: version.slice(0, at), digest: version.slice(at + RECENT_MARK.length + 1) };
}

/** Whether the version was kept for a file read just after it was written (see keptVersion). */
function isRecentVersion(version: string): boolean {
  return version.includes(RECENT_MARK);
}

/**
 * Whether a second read is the version a first read kept (keptVersion). The mark says only
 * when a file was read, not what it holds: versions are compared without it, and for a file
 * written just before the first read the bytes are compared too.
 */
export function sameVersion(kept: string, again: VersionedBytes): boolean {
  const { bare, digest } = splitVersion(kept);
  if (bare !== splitVersion(again.version).bare) return false;
  return digest === '' || digest === storeFileDigest(again.bytes);
}

/**
 * Whether a file read now (its version, and the digest of the bytes read: undefined when they
 * were not held) is still the one a version kept after a read just after a write names: the
 * same size and mtime and the same bytes.
 */
export function verifiedByBytes(
  kept: string,
  readVersion: string,
  digest: () => string | undefined,
): boolean {
  const k = splitVersion(kept);
  if (k.digest === '' || k.bare !== splitVersion(readVersion).bare) return false;
  return k.digest === (splitVersion(readVersion).digest || digest());
}

/** Whether a listed version is that of a kept recent version (then only its bytes can tell). */
export function listedAsKept(kept: string, listed: string | undefined): boolean {
  return isRecentVersion(kept) && splitVersion(kept).bare === listed;
}

/** Size and modification time (ns): what changes when a file is written, without reading it. */
function fileVersion(s: {
  size: number | bigint;
  mtimeNs?: bigint;
  mtimeMs: number | bigint;
}): string {
  // join makes one flat string; a template literal makes a rope of three (about 96 bytes
  // instead of 40), kept for every store file for the whole build.
  return [s.size, s.mtimeNs ?? BigInt(Math.round(Number(s.mtimeMs) * 1e6))].join(':');
}

async function statOf(path: string) {
  return stat(path, { bigint: true }).catch(() => undefined);
}

export class DirectoryStore implements StoreSource {
  // A second read of a local file costs less than holding the store in memory.
  readonly keepBetweenPassesBytes = 4 * 1024 * 1024;

  readonly location: string;
  constructor(location: string) {
    this.location = location;
  }

  /**
   * Follows symbolic links (a Kubernetes ConfigMap or Secret mount presents every file as one,
   * and stores are often assembled with `ln -s`), each directory once by its real path.
   * Hidden entries are skipped: such a mount keeps the real files again under `..<time>/`.
   */
  async list(): Promise<string[]> {
    return (await this.entries()).map((e) => e.name);
  }

  async entries(): Promise<StoreEntry[]> {
    const names: StoreEntry[] = [];
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
        const advice = rel
          ? "let the build's user read it (chmod a+rx) or move it out of the store"
          : 'check --store';
        throw new LocationError(`store ${dir}: cannot read the directory (${code}); ${advice}`, {
          cause: err,
        });
      }
      for (const e of entries) {
        if (e.name.startsWith('.')) continue;
        const name = rel ? `${rel}/${e.name}` : e.name;
        // A link is judged by what it points to; a link to nothing is listed, and reading it
        // says so with its name.
        const target =
          e.isSymbolicLink() || (e.isFile() && isStoreFile(e.name))
            ? await statOf(join(dir, e.name))
            : e;
        if (target?.isDirectory()) await walk(join(dir, e.name), name);
        else if ((target === undefined || target.isFile()) && isStoreFile(e.name))
          names.push(
            target
              ? {
                  name,
                  version: fileVersion(target as BigIntStats),
                  size: Number((target as BigIntStats).size),
                }
              : { name, version: 'missing' },
          );
      }
    };
    await walk(this.location, '');
    return names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async read(name: string): Promise<Uint8Array> {
    return (await this.readVersioned(name)).bytes;
  }

  /**
   * The file's size and mtime before and after the read must agree (a scanner appending while
   * the build reads would otherwise hand out bytes of no single version); if not, read again.
   */
  async readVersioned(name: string): Promise<VersionedBytes> {
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      let handle;
      try {
        handle = await this.open(name);
        const before = fileVersion(await handle.stat({ bigint: true }));
        const bytes = await handle.readFile();
        const stats = await handle.stat({ bigint: true });
        const after = fileVersion(stats);
        // A file written within the file system's timestamp granularity of now could be
        // written again with the same size and mtime: such a version is marked, so it never
        // matches a later listing and the file is read again (git's "racily clean" files).
        const recent = stats.mtimeNs > BigInt(Date.now() - RECENT_MS) * 1_000_000n;
        if (before === after) return { bytes, version: recent ? `${after}${RECENT_MARK}` : after };
      } catch (err) {
        if (err instanceof UnreadableStoreFile) throw err;
        throw new UnreadableStoreFile(
          this.display(name),
          `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
        );
      } finally {
        await handle?.close();
      }
    }
    throw new StoreFileChangedError(
      `store ${this.display(name)}: the file changed during each of ${READ_ATTEMPTS} reads; its repositories were left as they were (the next build reads it again)`,
    );
  }

  /** Only regular files are opened (a FIFO never blocks the build); a file at fault is named. */
  private async open(name: string, maxBytes?: number) {
    try {
      return await openRegularFile(join(this.location, name), maxBytes);
    } catch (err) {
      if (err instanceof FileReadError)
        throw new UnreadableStoreFile(this.display(name), err.reason);
      throw err;
    }
  }

  async readStream(name: string): Promise<VersionedStream> {
    const path = this.display(name);
    // Streamed in chunks: no 2 GiB buffer limit applies.
    const handle = await this.open(name, Number.POSITIVE_INFINITY);
    const before = fileVersion(await handle.stat({ bigint: true }));
    const h = handle;
    return {
      chunks: h.createReadStream({ highWaterMark: 1 << 20, autoClose: false }),
      async version() {
        const after = fileVersion(await h.stat({ bigint: true }));
        await h.close();
        if (after !== before)
          throw new StoreFileChangedError(
            `store ${path}: the file changed while the build read it; its repositories were left as they were (the next build reads it again)`,
          );
        return after;
      },
    };
  }

  display(name: string): string {
    return join(this.location, name);
  }
}
