// KeyReader over a built directory. Keys come from the resolver's canonical layout, and the
// resolved path is checked to stay inside the directory all the same.
import { readFile, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { KeyReader, StoredObject } from '../../core.ts';

export function directoryReader(dir: string): KeyReader {
  const root = resolve(dir);
  // index.json is read on every ?timestamp= request: keep it in memory until a rebuild
  // replaces the file (rename gives a new inode, so the stat tells).
  const indexes = new Map<string, { stamp: string; obj: StoredObject }>();
  return async (key) => {
    const path = resolve(root, key);
    if (!path.startsWith(root + sep)) return null;
    let st;
    try {
      st = await stat(path);
    } catch {
      return null;
    }
    if (!st.isFile()) return null;
    const stamp = `${st.ino}-${st.size}-${st.mtimeMs}`;
    const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
    const isIndex = key.endsWith('/index.json');
    if (isIndex) {
      const hit = indexes.get(key);
      if (hit && hit.stamp === stamp) return hit.obj;
    }
    let body: Buffer;
    try {
      body = await readFile(path);
    } catch {
      return null;
    }
    const obj = { body, etag };
    if (isIndex) indexes.set(key, { stamp, obj });
    return obj;
  };
}
