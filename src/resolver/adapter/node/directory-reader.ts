// KeyReader over a built directory. Keys come from the resolver's canonical layout, and the
// file a key reaches is checked to lie inside the directory all the same: symbolic links
// included, since the tree may hold links that point elsewhere.
import { realpathSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
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

export function directoryReader(dir: string, opts: DirectoryReaderOptions = {}): KeyReader {
  const root = resolve(dir);
  const revalidateMs = opts.revalidateMs ?? 1000;
  const now = opts.now ?? Date.now;
  // Files are small and read again and again (a badge in a busy README): keep them in memory
  // until a rebuild replaces them (rename gives a new inode, so the stat tells). index.json,
  // read on every ?timestamp= request, is among them. Asking the disk on every request
  // costs serve a third of its throughput, so a held file is trusted for revalidateMs.
  const cache = new Map<string, Held>();
  return async (key) => {
    const held = cache.get(key);
    const t = now();
    if (held && t - held.checkedAt < revalidateMs) return held.obj;
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
    const stamp = `${st.ino}-${st.size}-${st.mtimeMs}`;
    if (held && held.stamp === stamp) {
      held.checkedAt = t;
      return held.obj;
    }
    // Only a file not held yet (or replaced) pays for the containment check: the real path,
    // every link resolved, must lie under the real root. Reading that real path (not the
    // key's) means no link is followed after the check.
    const real = realPathInside(root, path);
    if (real === undefined) {
      cache.delete(key);
      return null;
    }
    let body: Buffer;
    try {
      body = await readFile(real);
    } catch {
      return null;
    }
    const obj = { body, etag: `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"` };
    if (body.length <= MAX_CACHED_BYTES) {
      if (cache.size >= MAX_CACHED_FILES) cache.clear();
      cache.set(key, { stamp, obj, checkedAt: t });
    }
    return obj;
  };
}

/**
 * The real path of `path` (links resolved) when it lies inside the real `root`, else
 * undefined. The root is resolved on every call, so a root that is itself a link (a
 * blue-green switch of `dist`) is followed to wherever it points now.
 */
export function realPathInside(root: string, path: string): string | undefined {
  try {
    const realRoot = realpathSync.native(root);
    const real = realpathSync.native(path);
    return real.startsWith(realRoot + sep) ? real : undefined;
  } catch {
    return undefined;
  }
}
