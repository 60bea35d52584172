// KeyReader over a built directory. Keys come from the resolver's canonical layout, and the
// file a key reaches is checked to lie inside the directory all the same: symbolic links
// included, since the tree may hold links that point elsewhere.
import { constants, existsSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { KeyReader, StoredObject } from '../../core.ts';

const MAX_CACHED_FILES = 20_000;
const MAX_CACHED_BYTES = 256 * 1024;

export interface DirectoryReaderOptions {
  /**
   * How long a file held in memory is served before the disk is asked again whether a
   * rebuild replaced it (nginx's open_file_cache_valid). 0 asks on every request.
   */
  revalidateMs?: number;
  /** The clock, in milliseconds; tests pass their own. */
  now?: () => number;
}

interface Held {
  stamp: string;
  obj: StoredObject;
  checkedAt: number;
}

/** A KeyReader that can also answer at once, without a read, from what it holds. */
interface DirectoryKeyReader extends KeyReader {
  /**
   * The file under `key` when no read is needed: a held copy still current, or null when
   * there is no such file; undefined when the file must be read (await the reader).
   */
  held(key: string): StoredObject | null | undefined;
}

export function directoryReader(
  dir: string,
  opts: DirectoryReaderOptions = {},
): DirectoryKeyReader {
  const root = resolve(dir);
  const revalidateMs = opts.revalidateMs ?? 1000;
  const now = opts.now ?? Date.now;
  // Files are small and read again and again (a badge in a busy README): keep them in memory
  // until a rebuild replaces them (rename gives a new inode, so the stat tells). index.json,
  // read on every ?timestamp= request, is among them. Asking the disk on every request
  // costs serve a third of its throughput, so a held file is trusted for revalidateMs.
  const cache = new Map<string, Held>();
  const held = (key: string): StoredObject | null | undefined => {
    const copy = cache.get(key);
    const t = now();
    if (copy && t - copy.checkedAt < revalidateMs) return copy.obj;
    const path = resolve(root, key);
    if (!path.startsWith(root + sep)) return null;
    // A synchronous stat, as nginx does in its event loop: on a local directory it is a
    // dentry lookup of a microsecond, less than a thread-pool round trip.
    let st;
    try {
      st = statSync(path, { throwIfNoEntry: false });
    } catch {
      return null;
    }
    if (!st?.isFile()) {
      cache.delete(key);
      return null;
    }
    if (copy && copy.stamp === stampOf(st)) {
      copy.checkedAt = t;
      return copy.obj;
    }
    return undefined;
  };
  const read = async (key: string): Promise<StoredObject | null> => {
    const known = held(key);
    if (known !== undefined) return known;
    const t = now();
    const path = resolve(root, key);
    // Only a file not held yet (or replaced) pays for the containment check, and the check is
    // made on the file actually opened: a directory on the path can be swapped for a link
    // between any check by name and the open, so the name is opened first and the opened
    // descriptor is asked where it lies. Its bytes are then read from that descriptor.
    const opened = await openInside(root, path);
    if (opened === undefined) {
      cache.delete(key);
      return null;
    }
    const { handle, stat } = opened;
    let body: Buffer;
    try {
      body = await handle.readFile();
    } catch {
      return null;
    } finally {
      await handle.close().catch(() => undefined);
    }
    const obj = {
      body,
      etag: `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`,
    };
    if (body.length <= MAX_CACHED_BYTES) {
      if (cache.size >= MAX_CACHED_FILES) cache.clear();
      // Held under the opened file's own stamp: a later stat by name that finds another file
      // (a link flipped to one outside) differs from it and is opened and checked again.
      cache.set(key, { stamp: stampOf(stat), obj, checkedAt: t });
    }
    return obj;
  };
  return Object.assign(read, { held });
}

/**
 * What tells one file from another by name: device and inode, size, and the change time
 * (a rename moving the inode elsewhere changes it), so a held copy is never taken for a
 * different file the same name now reaches.
 */
function stampOf(st: Stats): string {
  return `${st.dev}-${st.ino}-${st.size}-${st.mtimeMs}-${st.ctimeMs}`;
}

const PROC_FD = existsSync('/proc/self/fd');

/**
 * Opens `path` and returns the open file when the file opened is a regular file inside the
 * real root, else undefined (and nothing left open). On Linux the descriptor's own path
 * (/proc/self/fd/N) says where the opened file lies; elsewhere the opened file's device and
 * inode must equal those of the real path found inside the root, so whatever the name
 * reached at open time, what is read is the file that was checked.
 */
async function openInside(
  root: string,
  path: string,
): Promise<{ handle: FileHandle; stat: Stats } | undefined> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO put in the tree must not block the open; it is refused as not a file.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a regular file');
    const realRoot = realpathSync.native(root);
    if (PROC_FD) {
      const real = readlinkSync(`/proc/self/fd/${handle.fd}`);
      if (!real.startsWith(realRoot + sep)) throw new Error('outside the root');
    } else {
      const real = realPathInside(root, path);
      if (real === undefined) throw new Error('outside the root');
      const named = statSync(real);
      if (named.dev !== stat.dev || named.ino !== stat.ino)
        throw new Error('replaced while opened');
    }
    return { handle, stat };
  } catch {
    await handle.close().catch(() => undefined);
    return undefined;
  }
}

/**
 * The real path of `path` (links resolved) when it lies inside the real `root`, else
 * undefined. The root is resolved on every call, so a root that is itself a link (a
 * blue-green switch of `dist`) is followed to wherever it points now.
 */
function realPathInside(root: string, path: string): string | undefined {
  try {
    const realRoot = realpathSync.native(root);
    const real = realpathSync.native(path);
    return real.startsWith(realRoot + sep) ? real : undefined;
  } catch {
    return undefined;
  }
}
