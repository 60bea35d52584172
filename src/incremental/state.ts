// Build state: what a build needs to know to skip unchanged repositories, kept beside the
// output under `.badgepress/` (a prefix the resolver never serves), one file per shard layout
// and shard, so any machine can pick up where another left off. Deleting it only makes the
// next build slower. Written after the files it describes, so it is never ahead of them.
// This module is its wire format (keys, lines, the pending mark); state-types.ts says what it
// holds, state-lines.ts reads and writes lines, state-keeper.ts keeps it beside a directory.
import type { LoadIssue } from '../load/types.ts';
import { CompactFileStates, CompactRepositoryStates } from './compact-state.ts';
import type {
  BuildState,
  FileState,
  RepositoryState,
  ShardKey,
  StoreListed,
} from './state-types.ts';
import { StateDigest, UntrustedStateError } from './state-lines.ts';

export const STATE_PREFIX = '.badgepress/state/';
// 5: the end line holds a digest of the lines before it (an edited line is seen); 4: JSON
// lines, read and written one line at a time, the summary line a string in its repository's
// line; 3: page summaries are JSON lines (strings), not objects; 2: config split into parts.
// A state of another format means a full build.
const FORMAT = 5;
/** Where a state that cannot be trusted is moved, beside its key. */
export const SET_ASIDE_SUFFIX = '.untrusted';

/** `.badgepress/state/<n>/<i>.json`: shards of one layout never write the same key. */
export function stateKey(shard: ShardKey): string {
  return `${STATE_PREFIX}${shard.count}/${shard.index}.json`;
}

/**
 * `.badgepress/state/<n>/<i>.pending.json`: written before a build publishes anything, removed
 * once its state is written. A build that did not finish leaves it, and the next one redoes
 * what it names: every repository (`all`), or those listed.
 */
export function pendingKey(shard: ShardKey): string {
  return stateKey(shard).replace(/\.json$/, '.pending.json');
}

/** What a build that may not have finished may have published: everything, or these repositories. */
export type Pending = { all: true } | { repositories: string[] };

export function pendingText(p: Pending): string {
  return `${JSON.stringify({ format: 1, ...p })}\n`;
}

/** A pending mark read back; anything unreadable or unknown counts as everything. */
export async function readPending(
  lines: AsyncIterable<string> | Iterable<string> | undefined,
): Promise<Pending | undefined> {
  if (lines === undefined) return undefined;
  let text = '';
  try {
    for await (const line of lines) text += line;
    const p = JSON.parse(text) as { format?: unknown; all?: unknown; repositories?: unknown };
    if (
      p.format === 1 &&
      Array.isArray(p.repositories) &&
      p.repositories.every((u) => typeof u === 'string')
    )
      return { repositories: p.repositories as string[] };
  } catch {
    // Not what a build wrote: everything may have been published.
  }
  return { all: true };
}

/** A state to write: its files and repositories may be made as they are written (not held). */
export type StateLinesInput = Omit<BuildState, 'files' | 'repositories'> & {
  files: Iterable<[string, FileState]>;
  repositories: Iterable<[string, RepositoryState]>;
};

/** The state as JSON lines: a header, one line per store file and per repository, an end mark. */
export function* stateLines(
  s: StateLinesInput,
  summaries: { get(url: string): string | undefined },
): Generator<string> {
  const digest = new StateDigest();
  const line = (text: string) => (digest.add(text), text);
  yield line(
    `${JSON.stringify({ format: FORMAT, code: s.code, config: s.config, parts: s.parts, ...(s.headers ? { headers: s.headers } : {}), ...(s.gone ? { gone: s.gone } : {}) })}\n`,
  );
  // Repositories first: a reader then takes each file's repository names from them (one string each).
  let repositories = 0;
  for (const [url, r] of s.repositories) {
    const flip = r.flip === undefined ? null : r.flip;
    const flipped = r.flipped === undefined ? null : r.flipped ? 1 : 0;
    repositories++;
    yield line(
      `${JSON.stringify(['r', url, r.scans, r.files, r.pruned ? 1 : 0, flip, flipped, r.issues ?? null, summaries.get(url) ?? null])}\n`,
    );
  }
  let files = 0;
  for (const [name, f] of s.files) {
    files++;
    yield line(
      `${JSON.stringify(f.issues ? ['f', name, f.version, f.repositories, f.issues] : ['f', name, f.version, f.repositories])}\n`,
    );
  }
  yield `${JSON.stringify(['end', files, repositories, digest.digest()])}\n`;
}

/** The whole state as one text (tests; builds stream it with stateLines). */
export function serializeState(
  s: StateLinesInput,
  summaries: { get(url: string): string | undefined } = new Map(),
): string {
  return [...stateLines(s, summaries)].join('');
}

/**
 * Reads state lines one at a time; each repository's summary line goes to `summaries` (on
 * disk), not into memory. undefined for anything this code did not write (another format, a
 * torn, edited or foreign file).
 */
export async function readState(
  lines: AsyncIterable<string> | Iterable<string>,
  summaries: { set(url: string, line: string): void },
  listed: { get(name: string): StoreListed | undefined } = new Map(),
): Promise<BuildState | undefined> {
  const read = await checkState(lines, summaries, listed);
  return 'state' in read ? read.state : undefined;
}

/**
 * A state read: the state, or why it cannot be trusted (edited, torn, not a state), or that
 * another version of badgepress wrote it (a full build, nothing wrong).
 */
type StateRead = { state: BuildState } | { untrusted: string } | { otherFormat: true };

/** As readState, saying why a state is not used. */
export async function checkState(
  lines: AsyncIterable<string> | Iterable<string>,
  summaries: { set(url: string, line: string): void },
  listed: { get(name: string): StoreListed | undefined } = new Map(),
): Promise<StateRead> {
  let state: BuildState | undefined;
  const digest = new StateDigest();
  let n = 0;
  const untrusted = (why: string): StateRead => ({ untrusted: `line ${n} ${why}` });
  // Held compactly (compact-state.ts): at 100,000 repositories objects a file and a repository are megabytes.
  const files = new CompactFileStates();
  const repositories = new CompactRepositoryStates();
  let ended = false;
  // At 100,000 repositories a second copy of each name, version and URL is megabytes: a file's
  // name and version are the listing's strings when they match, its repositories' URLs those
  // of the repository lines.
  const urls = new Map<string, string>();
  try {
    for await (const line of lines) {
      n++;
      if (line === '') continue;
      if (ended) return untrusted('follows the end line');
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return untrusted('is not JSON');
      }
      if (!state) {
        const head = (parsed ?? {}) as {
          format?: unknown;
          code?: unknown;
          config?: unknown;
          parts?: unknown;
          headers?: unknown;
          gone?: unknown;
        };
        if (typeof head.format === 'number' && head.format !== FORMAT) return { otherFormat: true };
        if (
          head.format !== FORMAT ||
          typeof head.code !== 'string' ||
          typeof head.config !== 'string' ||
          typeof head.parts !== 'object' ||
          head.parts === null
        )
          return untrusted('is no state header');
        const gone =
          Array.isArray(head.gone) && head.gone.every((u) => typeof u === 'string')
            ? { gone: head.gone as string[] }
            : {};
        // No headers (a state of an earlier version): unknown, so the next build sends every file.
        const headers = typeof head.headers === 'string' ? { headers: head.headers } : {};
        state = {
          code: head.code,
          config: head.config,
          parts: head.parts as Record<string, string>,
          ...headers,
          files,
          repositories,
          ...gone,
        };
        digest.add(`${line}\n`);
        continue;
      }
      const row = parsed as unknown[];
      if (!Array.isArray(row)) return untrusted('is no state line');
      if (row[0] !== 'end') digest.add(`${line}\n`);
      if (
        row[0] === 'f' &&
        typeof row[1] === 'string' &&
        typeof row[2] === 'string' &&
        Array.isArray(row[3])
      ) {
        const now = listed.get(row[1]);
        const version = now?.version === row[2] ? now.version : row[2];
        const f: FileState = {
          version,
          repositories: (row[3] as string[]).map((u) => urls.get(u) ?? u),
        };
        if (Array.isArray(row[4])) f.issues = row[4] as LoadIssue[];
        files.set(now?.name ?? row[1], f);
      } else if (
        row[0] === 'r' &&
        typeof row[1] === 'string' &&
        typeof row[2] === 'number' &&
        typeof row[3] === 'number'
      ) {
        const r: RepositoryState = { scans: row[2], files: row[3], pruned: row[4] === 1 };
        if (typeof row[5] === 'number') r.flip = row[5];
        if (row[6] === 0 || row[6] === 1) r.flipped = row[6] === 1;
        if (Array.isArray(row[7])) r.issues = row[7] as LoadIssue[];
        if (typeof row[8] === 'string') summaries.set(row[1], row[8]);
        repositories.set(row[1], r);
        urls.set(row[1], row[1]);
      } else if (row[0] === 'end') {
        urls.clear();
        if (row[1] !== files.size || row[2] !== repositories.size)
          return untrusted('counts other files or repositories than the state holds');
        if (row[3] !== digest.digest())
          return untrusted('is the end of other lines than these: the state was edited');
        ended = true;
      } else return untrusted('is no state line');
    }
  } catch (err) {
    // The lines could not be read (a line too long, a read that failed, a bad record shape).
    return {
      untrusted:
        err instanceof UntrustedStateError
          ? err.reason
          : `cannot be read (${(err as Error).message})`,
    };
  }
  if (!state) return { untrusted: 'is empty' };
  return ended ? { state } : { untrusted: 'has no end line: it was cut short' };
}
