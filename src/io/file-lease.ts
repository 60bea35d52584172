// A lease kept as one small file (a build's output directory, a scan's store directory).
import { link, mkdir, readFile, rename, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LeaseStore } from './lease.ts';

/** `fail` words an unexpected file system error for the caller's location. */
export function fileLeaseStore(path: string, fail: (err: unknown) => Error): LeaseStore {
  const temporary = () => `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const read = async () => {
    try {
      const text = await readFile(path, 'utf8');
      return { text, version: text };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      // ENOTDIR (the location is a file), EACCES: said like any other write there.
      throw fail(err);
    }
  };
  return {
    where: path,
    read,
    async create(text) {
      await mkdir(dirname(path), { recursive: true }).catch((err: unknown) => {
        throw fail(err);
      });
      // Written whole under a private name, then linked into place: link() fails when the
      // lease exists, so a reader never sees a half-written lease and two creators never both win.
      const tmp = temporary();
      await writeFile(tmp, text);
      try {
        await link(tmp, path);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw err;
      } finally {
        await unlink(tmp).catch(() => {});
      }
    },
    async replace(text, version) {
      if ((await read())?.version !== version) return false;
      const tmp = temporary();
      await writeFile(tmp, text);
      await rename(tmp, path);
      return true;
    },
    async remove() {
      await rm(path, { force: true });
      // The folder made only to hold the lease goes with it (one holding anything else stays).
      await rmdir(dirname(path)).catch(() => {});
    },
  };
}
