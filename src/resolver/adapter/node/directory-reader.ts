// KeyReader over a built directory. Keys come from the resolver's canonical layout, and the
// resolved path is checked to stay inside the directory all the same.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { KeyReader, StoredObject } from '../../core.ts';

const MAX_CACHED_FILES = 20_000;
const MAX_CACHED_BYTES = 256 * 1024;

export function directoryReader(dir: string): KeyReader {
  const root = resolve(dir);
  // Files are small and read again and again (a badge in a busy README): keep them in memory
  // until a rebuild replaces them (rename gives a new inode, so the stat tells). index.json,
  // read on every ?timestamp= request, is among them.
  const cache = new Map<string, { stamp: string; obj: StoredObject }>();
  return async (key) => {
    const path = resolve(root, key);
    if (!path.startsWith(root + sep)) return null;
    // A synchronous stat, as nginx does in its event loop: on a local directory it is a
    // dentry lookup of a microsecond, and a thread-pool round trip per request costs more
    // than the stat itself (half of serve's CPU in a profile under load).
    let st;
    try {
      st = statSync(path, { throwIfNoEntry: false });
    } catch {
      return null;
    }
    if (!st?.isFile()) return null;
    const stamp = `${st.ino}-${st.size}-${st.mtimeMs}`;
    const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
    const hit = cache.get(key);
    if (hit && hit.stamp === stamp) return hit.obj;
    let body: Buffer;
    try {
      body = await readFile(path);
    } catch {
      return null;
    }
    const obj = { body, etag };
    if (body.length <= MAX_CACHED_BYTES) {
      if (cache.size >= MAX_CACHED_FILES) cache.clear();
      cache.set(key, { stamp, obj });
    }
    return obj;
  };
}
