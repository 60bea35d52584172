// Our mirrors: one bare, blobless (--filter=blob:none) repository per canonical URL, with heads
// and tags only (never refs/pull/*), never shallow, no work tree, no hooks; fetched
// incrementally; HEAD follows the remote's default branch. Transient failures are tried again
// with backoff; a mirror git cannot read is moved aside and fetched again once.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileLeaseSlot } from '../../io/file-lease.ts';
import { acquireLease, LeaseHeldError } from '../../io/lease.ts';
import { isoTime } from '../../model/calendar.ts';
import { GitError, runGit, type GitSettings } from './run.ts';

/** The mirror directory of a canonical URL: readable, and unique through a hash of the URL. */
export function mirrorPath(root: string, url: string, host: string, path: string): string {
  const safe = (s: string) =>
    s
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\./, '_')
      .slice(0, 80) || '_';
  const name = path.split('/').filter(Boolean).pop() ?? 'repository';
  const hash = createHash('sha256').update(url).digest('hex').slice(0, 16);
  return join(root, safe(host), `${safe(name)}-${hash}.git`);
}

export interface FetchPolicy {
  settings: GitSettings;
  /** Tries after the first, for transient failures. */
  retries: number;
  /** Milliseconds to wait before try `n` (1-based). */
  backoffMs: (n: number) => number;
}

// Failures that say the remote or the network is at fault (the mirror itself may be fine).
const TRANSPORT =
  /unable to access|could not resolve|failed to connect|connection refused|connection reset|returned error|authentication failed|could not read username|could not read from remote|early eof|rpc failed|remote end hung up|does not appear to be a git repository|repository .* not found|timed out|operation too slow|ssl|tls|gnutls/i;
// Among them, the ones worth another try.
const TRANSIENT =
  /returned error: (5\d\d|429)|could not resolve host|failed to connect|connection refused|connection reset|early eof|rpc failed|remote end hung up|operation too slow|timed out/i;

export function isTransportFailure(err: unknown): boolean {
  return err instanceof GitError && (err.timedOut || TRANSPORT.test(err.stderr));
}

function isTransient(err: unknown): boolean {
  return err instanceof GitError && (err.timedOut || TRANSIENT.test(err.stderr));
}

async function withRetries<T>(policy: FetchPolicy, attempt: () => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= policy.retries || !isTransient(err)) throw err;
      await new Promise((ok) => setTimeout(ok, policy.backoffMs(n + 1)));
    }
  }
}

// Another git process holds a ref or the index of the mirror: the mirror is busy, not broken.
const LOCKED =
  /cannot lock ref|unable to create '[^']*\.lock'|\.lock': file exists|another git process seems to be running/i;

/** Whether git failed because another process held one of the mirror's lock files. */
export function isLockFailure(err: unknown): boolean {
  return err instanceof GitError && LOCKED.test(err.stderr);
}

/** A mirror held by this scan: no other badgepress scan fetches, clones or moves it meanwhile. */
interface MirrorLock {
  release(): Promise<void>;
}

/**
 * Holds the mirror at `dir` for this scan alone, waiting up to `waitSeconds` while another
 * scan sharing the mirrors folder holds it: a lease beside it (`<mirror>.lease/`, a chain of
 * generations as a store's lease is, renewed while held, so a killed scan's lapses within a
 * minute whatever its pid). Once held, the clones a killed scan left (`<mirror>.tmp-…`) are
 * removed: no other scan can be making one.
 */
export async function lockMirror(dir: string, waitSeconds: number): Promise<MirrorLock> {
  await mkdir(dirname(dir), { recursive: true });
  const slot = fileLeaseSlot(
    `${dir}.lease.json`,
    (err) =>
      new Error(
        `mirror ${dir}: cannot write its lock ${dir}.lease (${(err as NodeJS.ErrnoException).code ?? String(err)}); check that scan.mirrors names a writable folder`,
      ),
  );
  let lease;
  try {
    lease = await acquireLease(slot, { waitSeconds, holderKind: 'scan' });
  } catch (err) {
    if (!(err instanceof LeaseHeldError)) throw err;
    const who = err.holder
      ? ` (host ${err.holder.host}, pid ${err.holder.pid}, since ${isoTime(err.holder.acquiredAt)})`
      : '';
    throw new Error(
      `mirror ${dir} is in use by another badgepress scan${who} sharing scan.mirrors; waited ${waitSeconds} s: scan this repository again once that scan has ended`,
    );
  }
  const prefix = `${basename(dir)}.tmp-`;
  const left = (await readdir(dirname(dir)).catch(() => [] as string[])).filter((n) =>
    n.startsWith(prefix),
  );
  for (const name of left) await rm(join(dirname(dir), name), { recursive: true, force: true });
  return { release: () => lease.release() };
}

type MirrorUpdate = 'cloned' | 'fetched';

/** Brings the mirror at `dir` up to date with `url`, cloning it when there is none. */
export async function updateMirror(
  dir: string,
  url: string,
  policy: FetchPolicy,
): Promise<MirrorUpdate> {
  const { settings } = policy;
  if (!existsSync(dir)) {
    await mkdir(dirname(dir), { recursive: true });
    const tmp = `${dir}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    try {
      // --template= leaves out the sample hooks; a bare clone has no work tree, and its
      // default refspec takes heads and tags; the URL kept in its config holds no credential.
      await withRetries(policy, async () => {
        await rm(tmp, { recursive: true, force: true });
        await runGit({
          settings,
          args: ['clone', '--bare', '--quiet', '--filter=blob:none', '--template=', '--', url, tmp],
        });
      });
      await rename(tmp, dir);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
    return 'cloned';
  }
  const gitDir = dir;
  await withRetries(policy, () =>
    runGit({
      gitDir,
      settings,
      args: [
        'fetch',
        '--quiet',
        '--prune',
        '--no-write-fetch-head',
        '--filter=blob:none',
        'origin',
        '+refs/heads/*:refs/heads/*',
        '+refs/tags/*:refs/tags/*',
      ],
    }),
  );
  const head = await withRetries(policy, () =>
    runGit({ gitDir, settings, args: ['ls-remote', '--symref', 'origin', 'HEAD'] }),
  );
  const branch = /^ref: (refs\/heads\/\S+)\tHEAD$/m.exec(head)?.[1];
  if (branch) await runGit({ gitDir, settings, args: ['symbolic-ref', 'HEAD', branch] });
  return 'fetched';
}

/**
 * Fetches the named blobs (the .mailmap of the measured trees) into a blobless mirror, all in
 * one request, as git's own lazy fetch would but at once: no negotiation, no tags, no refs moved.
 */
export async function fetchBlobs(
  dir: string,
  oids: readonly string[],
  policy: FetchPolicy,
): Promise<void> {
  if (oids.length === 0) return;
  await withRetries(policy, () =>
    runGit(
      {
        gitDir: dir,
        settings: policy.settings,
        args: [
          '-c',
          'fetch.negotiationAlgorithm=noop',
          'fetch',
          '--quiet',
          '--no-tags',
          '--no-write-fetch-head',
          '--recurse-submodules=no',
          '--filter=blob:none',
          '--stdin',
          'origin',
        ],
      },
      `${oids.join('\n')}\n`,
    ),
  );
}

/**
 * Why `dir` (a `mirror=PATH` of the list) is no git repository git can read as one, or
 * undefined when it is one: a bare repository or a `.git` directory.
 */
export async function gitDirProblem(
  dir: string,
  settings: GitSettings,
): Promise<string | undefined> {
  if (!existsSync(dir)) return 'no such directory';
  try {
    await runGit({ gitDir: dir, settings, noLazyFetch: true, args: ['rev-parse', '--git-dir'] });
    return undefined;
  } catch (err) {
    const cause =
      err instanceof GitError
        ? err.message.replace(/^git rev-parse failed \([^)]*\): /, '')
        : (err as Error).message;
    return existsSync(join(dir, '.git'))
      ? `${cause} (a working copy: its repository is ${join(dir, '.git')})`
      : cause;
  }
}

/** Moves a mirror git cannot read out of the way (kept for a person to look at); returns where. */
export async function moveAside(dir: string, now: number): Promise<string> {
  const aside = `${dir}.corrupt-${now}`;
  await rename(dir, aside);
  return aside;
}
