// Where the build state is kept beside a directory output: `.badgepress/state/` under it,
// each key replaced in one step (written under a temporary name, then renamed).
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { FileReadError, openRegularFile } from '../io/regular-file.ts';
import { LocationError } from '../errors.ts';
import { SET_ASIDE_SUFFIX, STATE_PREFIX } from './state.ts';
import { streamLines, UntrustedStateError, writeLines } from './state-lines.ts';

/** Where state is kept: beside a directory output, or under the S3 output prefix. */
export interface StateKeeper {
  /** The state's lines, read as they are consumed; undefined when there is none. */
  read(key: string): Promise<AsyncIterable<string> | undefined>;
  /**
   * Replaces the key in one step (a reader sees the old or the new state, never half); not at
   * all when the lines' digest is `unchanged` (the digest of the state as read: same bytes).
   */
  write(key: string, lines: Iterable<string>, unchanged?: string): Promise<void>;
  /** Every state key (few: one per shard). */
  list(): Promise<string[]>;
  /** Moves a state that cannot be trusted out of the way (to the key with SET_ASIDE_SUFFIX); returns where. */
  setAside(key: string): Promise<string>;
  /** How a key is named in messages. */
  display(key: string): string;
  remove(keys: string[]): Promise<void>;
  close(): Promise<void>;
}

export class DirectoryStateKeeper implements StateKeeper {
  private readonly root: string;
  constructor(out: string) {
    this.root = resolve(out);
  }

  async read(key: string): Promise<AsyncIterable<string> | undefined> {
    let handle;
    try {
      // Only a regular file: a FIFO or device at the state's path never blocks the build.
      handle = await openRegularFile(join(this.root, key), Number.POSITIVE_INFINITY);
    } catch (err) {
      // No state yet, or no output yet (the sink names an output that cannot be written).
      const code = (err as FileReadError).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      if (err instanceof FileReadError && code === undefined)
        throw new UntrustedStateError(err.reason);
      throw new Error(
        `build state ${join(this.root, key)}: ${(err as Error).message}; delete it to build everything`,
      );
    }
    return streamLines(handle.createReadStream({ encoding: 'utf8' }));
  }

  display(key: string): string {
    return join(this.root, key);
  }

  async setAside(key: string): Promise<string> {
    const path = join(this.root, key);
    await rm(`${path}${SET_ASIDE_SUFFIX}`, { recursive: true, force: true });
    await rename(path, `${path}${SET_ASIDE_SUFFIX}`);
    return `${path}${SET_ASIDE_SUFFIX}`;
  }

  async write(key: string, lines: Iterable<string>, unchanged?: string): Promise<void> {
    const path = join(this.root, key);
    try {
      await mkdir(dirname(path), { recursive: true });
      if ((await writeLines(`${path}.tmp`, lines)) === unchanged) await rm(`${path}.tmp`);
      else await rename(`${path}.tmp`, path);
    } catch (err) {
      await rm(`${path}.tmp`, { force: true }).catch(() => {});
      throw new LocationError(
        `build state ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)}); check that --out is writable (the site itself is published)`,
      );
    }
  }

  async list(): Promise<string[]> {
    const base = join(this.root, STATE_PREFIX);
    const entries = await readdir(base, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isFile() && e.name.endsWith('.json'))
      .map((e) =>
        join(e.parentPath, e.name)
          .slice(this.root.length + 1)
          .split('\\')
          .join('/'),
      );
  }

  async remove(keys: string[]): Promise<void> {
    for (const k of keys) await rm(join(this.root, k), { force: true });
  }

  async close(): Promise<void> {}
}
