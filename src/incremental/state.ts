// Build state: what a build needs to know to skip unchanged repositories, kept beside the
// output under `.badgepress/` (a prefix the resolver never serves), one file per shard layout
// and shard, so any machine can pick up where another left off. Deleting it only makes the
// next build slower. Written after the files it describes, so it is never ahead of them.
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { LoadIssue } from '../load/types.ts';

export const STATE_PREFIX = '.badgepress/state/';
// 3: page summaries are JSON lines (strings), not objects; 2: config split into parts. A
// state of another format means a full build.
const FORMAT = 3;

export interface RepositoryState {
  /** Scans built, files produced: counted again when the repository is skipped. */
  scans: number;
  files: number;
  /** The --now moment at which its latest files change (Shape A expiry), and which side it was built on. */
  flip?: number;
  flipped?: boolean;
  /** Built with --prune (a later --prune must prune what an earlier build kept). */
  pruned: boolean;
  /** Bad records of this repository, reported again while it is skipped. */
  issues?: LoadIssue[];
  /** Opaque per-repository data for site-wide pages, carried while the repository is skipped. */
  summary?: unknown;
}

export interface FileState {
  version: string;
  /** The repositories of this shard the file names. */
  repositories: string[];
  /** Problems of the file that belong to no repository. */
  issues?: LoadIssue[];
}

export interface BuildState {
  code: string;
  /** The global config part: a change redoes everything (incremental/parts.ts). */
  config: string;
  /** The other config parts by name: a change redoes their files only. */
  parts: Record<string, string>;
  files: Map<string, FileState>;
  repositories: Map<string, RepositoryState>;
  /**
   * Repositories of this shard no store file names any more whose files may still be
   * published (a build without --prune leaves them); absent when the state cannot tell (it
   * was begun without knowing what the output held), and `build --prune` lists the output.
   */
  gone?: string[];
}

export interface ShardKey {
  index: number;
  count: number;
}

/** `.badgepress/state/<n>/<i>.json`: shards of one layout never write the same key. */
export function stateKey(shard: ShardKey): string {
  return `${STATE_PREFIX}${shard.count}/${shard.index}.json`;
}

export function serializeState(s: BuildState): string {
  return JSON.stringify({ format: FORMAT, code: s.code, config: s.config, parts: s.parts, files: [...s.files], repositories: [...s.repositories], ...(s.gone ? { gone: s.gone } : {}) });
}

/** undefined for anything this code did not write (another format, a torn or foreign file). */
export function parseState(text: string): BuildState | undefined {
  try {
    const raw = JSON.parse(text) as { format?: unknown; code: string; config: string; parts?: unknown; files: Array<[string, FileState]>; repositories: Array<[string, RepositoryState]>; gone?: unknown };
    if (raw.format !== FORMAT || !Array.isArray(raw.files) || !Array.isArray(raw.repositories) || typeof raw.parts !== 'object' || raw.parts === null) return undefined;
    const gone = Array.isArray(raw.gone) && raw.gone.every((u) => typeof u === 'string') ? { gone: raw.gone as string[] } : {};
    return { code: raw.code, config: raw.config, parts: raw.parts as Record<string, string>, files: new Map(raw.files), repositories: new Map(raw.repositories), ...gone };
  } catch {
    return undefined;
  }
}

/** Where state is kept: beside a directory output, or under the S3 output prefix. */
export interface StateStore {
  read(key: string): Promise<string | undefined>;
  /** Replaces the key in one step (a reader sees the old or the new state, never half). */
  write(key: string, body: string): Promise<void>;
  /** Every state key (few: one per shard). */
  list(): Promise<string[]>;
  remove(keys: string[]): Promise<void>;
  close(): Promise<void>;
}

export class DirectoryStateStore implements StateStore {
  private readonly root: string;
  constructor(out: string) {
    this.root = resolve(out);
  }

  async read(key: string): Promise<string | undefined> {
    try {
      return await readFile(join(this.root, key), 'utf8');
    } catch (err) {
      // No state yet, or no output yet (the sink names an output that cannot be written).
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw new Error(`build state ${join(this.root, key)}: cannot read (${code}); delete it to build everything`);
    }
  }

  async write(key: string, body: string): Promise<void> {
    const path = join(this.root, key);
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(`${path}.tmp`, body);
      await rename(`${path}.tmp`, path);
    } catch (err) {
      throw new Error(`build state ${path}: cannot write (${(err as NodeJS.ErrnoException).code}); check that --out is writable (the site itself is published)`);
    }
  }

  async list(): Promise<string[]> {
    const base = join(this.root, STATE_PREFIX);
    const entries = await readdir(base, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isFile() && e.name.endsWith('.json')).map((e) => join(e.parentPath, e.name).slice(this.root.length + 1).split('\\').join('/'));
  }

  async remove(keys: string[]): Promise<void> {
    for (const k of keys) await rm(join(this.root, k), { force: true });
  }

  async close(): Promise<void> {}
}
