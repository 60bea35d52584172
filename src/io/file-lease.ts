// A lease kept in a directory (a build's output, a scan's store), as a chain of generations.
import { link, mkdir, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LocationError } from '../errors.ts';
import type { LeaseSlot } from './lease.ts';
import { FileReadError, readRegularFile } from './regular-file.ts';

/**
 * The lease as a chain of generations, `<path without .json>/<n>.json`, the current lease
 * the highest. Every write (take, renew, take over, release) links a whole file to the
 * name of the next generation, n + 1 after the n it read: link() fails when the name
 * exists, so of two writers that read the same generation exactly one succeeds, a
 * compare-and-swap made of one atomic call (a read, compare and rename is not one: two
 * holders could both take over a stale lease). A release writes an empty generation rather
 * than deleting the chain, so numbers never restart and a writer that read an old
 * generation can never land on top. A writer whose generation is not the highest once
 * linked (it read before the chain moved on and the old name was cleaned up) removes it.
 *
 * `fail` words an unexpected file system error (ENOTDIR, EACCES) for the caller's location.
 */
export function fileLeaseSlot(path: string, fail: (err: unknown) => Error): LeaseSlot {
  const chain = path.replace(/\.json$/, '');
  const generation = (n: number) => join(chain, `${n}.json`);
  const generations = async (): Promise<number[]> => {
    try {
      return (await readdir(chain))
        .flatMap((name) => (/^\d+\.json$/.test(name) ? [Number.parseInt(name, 10)] : []))
        .sort((a, b) => a - b);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  };
  /** The highest generation and its text ('' for a release), or undefined when there is none. */
  const top = async (): Promise<{ n: number; text: string } | undefined> => {
    for (;;) {
      const n = (await generations()).at(-1);
      if (n === undefined) return undefined;
      try {
        // Only a regular file: a FIFO or device put in the chain never blocks the build.
        return { n, text: (await readRegularFile(generation(n))).toString('utf8') };
      } catch (err) {
        // A newer writer cleaned it up between the listing and the read: look again.
        if (err instanceof FileReadError && err.code === 'ENOENT') continue;
        if (err instanceof FileReadError && err.code === undefined) {
          throw new LocationError(
            `lease ${generation(n)}: ${err.reason}; badgepress writes its lease as regular files only: remove ${generation(n)} and run again`,
          );
        }
        throw err;
      }
    }
  };
  /** Link `text` as generation n; false when another writer has it, or a higher one exists. */
  const write = async (n: number, text: string): Promise<boolean> => {
    await mkdir(chain, { recursive: true });
    // Written whole under a private name, so a reader never sees a half-written lease.
    const tmp = join(
      dirname(chain),
      `.${basename(chain)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`,
    );
    await writeFile(tmp, text);
    try {
      await link(tmp, generation(n));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    } finally {
      await unlink(tmp).catch(() => {});
    }
    const all = await generations();
    if (all.at(-1) !== n) {
      await rm(generation(n), { force: true });
      return false;
    }
    for (const old of all) if (old < n) await rm(generation(old), { force: true });
    return true;
  };
  const failed = (err: unknown) => Promise.reject(fail(err));
  return {
    where: chain,
    read: async () => {
      const current = await top().catch(failed);
      return current && current.text !== ''
        ? { text: current.text, version: String(current.n) }
        : undefined;
    },
    create: async (text) => {
      const current = await top().catch(failed);
      if (current && current.text !== '') return false;
      return write(current ? current.n + 1 : 0, text).catch(failed);
    },
    replace: (text, version) => write(Number(version) + 1, text).catch(failed),
    remove: async (version) => void (await write(Number(version) + 1, '').catch(failed)),
  };
}
