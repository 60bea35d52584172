// A directory as the site: keys are relative paths. Each file is written under a temporary
// name and renamed into place, so a reader never sees half a file, and a file whose bytes
// are already there is left untouched (mtime included), so rebuilds only write changes.
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { OutputFile } from '../render/site-files.ts';
import type { PutOutcome, Sink } from './sink.ts';

let tmpCounter = 0;
const MAX_REMEMBERED_DIRS = 50_000;

export class DirectorySink implements Sink {
  private readonly root: string;
  /** Directory → whether this build created it (so it held no files before). */
  private readonly madeDirs = new Map<string, boolean>();
  private readonly freshRoots = new Set<string>();

  constructor(readonly location: string) {
    this.root = resolve(location);
  }

  private pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error(`key ${JSON.stringify(key)} leaves the output directory`);
    return path;
  }

  async put(file: OutputFile): Promise<PutOutcome> {
    const path = this.pathOf(file.key);
    const body = Buffer.from(file.body, 'utf8');
    const dir = dirname(path);
    let fresh = this.madeDirs.get(dir);
    if (fresh === undefined) {
      // mkdir reports the first directory it had to create: below it nothing can exist yet,
      // so a first build skips reading back every file it is about to write.
      const created = await mkdir(dir, { recursive: true });
      fresh = created !== undefined || this.isBelowFresh(dir);
      // Bounded memory on big builds: forgetting only costs a mkdir or a read-back later.
      if (this.madeDirs.size >= MAX_REMEMBERED_DIRS) this.madeDirs.clear();
      if (this.freshRoots.size >= MAX_REMEMBERED_DIRS) this.freshRoots.clear();
      this.madeDirs.set(dir, fresh);
      if (created !== undefined) this.freshRoots.add(created);
    }
    if (!fresh) {
      const existing = await this.read(file.key);
      if (existing && Buffer.compare(existing, body) === 0) return 'unchanged';
    }
    const tmp = `${path}.tmp-${process.pid}-${++tmpCounter}`;
    await writeFile(tmp, body);
    await rename(tmp, path);
    return 'written';
  }

  private isBelowFresh(dir: string): boolean {
    for (let d = dir; d.length > this.root.length; d = dirname(d)) if (this.freshRoots.has(d)) return true;
    return false;
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
      throw err;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const base = this.pathOf(prefix);
    let entries;
    try {
      entries = await readdir(base, { recursive: true, withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return entries
      .filter((e) => e.isFile())
      .map((e) => relative(this.root, join(e.parentPath, e.name)).split(sep).join('/'))
      .sort();
  }

  async remove(keys: string[]): Promise<void> {
    for (const key of keys) await rm(this.pathOf(key), { force: true });
  }

  async close(): Promise<void> {}
}
