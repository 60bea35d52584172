// A lease on an output: one build at a time writes a site. Two builds into one output would
// each publish files judged under their own inputs, and the tree would end up mixing them.
// A scan holds one on its store the same way: two scans appending at once could both add a
// record at the same time to one repository.
// The lease is a small JSON object at `.badgepress/lease.json` (never served), created only
// if absent (directory: O_EXCL; S3: a conditional PUT with If-None-Match: *), renewed while
// the build runs and deleted at its end. A holder that crashed stops renewing: its lease
// expires, and on the same host a lease whose process is gone is taken over at once.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** The lease's key: one per output, or one per shard (shards write disjoint repositories). */
export function leaseKey(shard?: { index: number; count: number }): string {
  return shard ? `.badgepress/lease-shard-${shard.index}-of-${shard.count}.json` : '.badgepress/lease.json';
}
/** How long a lease holds without renewal; a build renews it every third of that. */
export const LEASE_SECONDS = 600;

export interface LeaseRecord {
  host: string;
  pid: number;
  token: string;
  /** Unix seconds. */
  acquiredAt: number;
  expiresAt: number;
}

/** What a lease needs of an output: one small object read and written with a version check. */
export interface LeaseStore {
  /** Where the lease lives, for messages (a path or an s3:// URL). */
  readonly where: string;
  /** The stored text and an opaque version of it, or undefined when there is none. */
  read(): Promise<{ text: string; version: string } | undefined>;
  /** Store `text` only if nothing is stored; false when something already is. */
  create(text: string): Promise<boolean>;
  /** Store `text` only if the stored version is still `version`; false otherwise. */
  replace(text: string, version: string): Promise<boolean>;
  /** Remove the object (and anything the store made only to hold it). */
  remove(): Promise<void>;
}

/** Another build holds the output: the command exits with its own code (5). */
export class LeaseHeldError extends Error {
  override name = 'LeaseHeldError';
  constructor(
    readonly where: string,
    readonly holder: LeaseRecord | undefined,
    holderKind: LeaseHolderKind = 'build',
  ) {
    const who = holder
      ? `host ${holder.host}, pid ${holder.pid}, since ${iso(holder.acquiredAt)}; its lease expires ${iso(holder.expiresAt)}`
      : `another ${holderKind} took it at the same moment`;
    super(
      holderKind === 'build'
        ? `the output is being built by another badgepress build (${who}); ` +
            `wait for it to finish (or pass --wait SECONDS), and delete ${where} only if you are sure no build is running`
        : `the store is being written by another badgepress scan (${who}); ` +
            `wait for it to finish, and delete ${where} only if you are sure no scan is running`,
    );
  }
}

/** Who holds leases of this kind, for the message another holder gets. */
export type LeaseHolderKind = 'build' | 'scan';

export interface Lease {
  readonly record: LeaseRecord;
  /** Whether a renewal found the lease taken by someone else (it had expired). */
  readonly lost: boolean;
  release(): Promise<void>;
}

export interface LeaseOptions {
  /** Unix seconds now (a clock the tests can set). */
  now?: () => number;
  seconds?: number;
  /** Keep trying this long (seconds) while another build holds the lease. */
  waitSeconds?: number;
  /** Told when a renewal fails; the build goes on but its operator should know. */
  onLost?: (message: string) => void;
  holderKind?: LeaseHolderKind;
}

const wallClock = () => Math.floor(Date.now() / 1000);

export async function acquireLease(store: LeaseStore, opts: LeaseOptions = {}): Promise<Lease> {
  const now = opts.now ?? wallClock;
  const seconds = opts.seconds ?? LEASE_SECONDS;
  const deadline = now() + (opts.waitSeconds ?? 0);
  for (;;) {
    try {
      return await tryAcquire(store, now, seconds, opts.onLost, opts.holderKind);
    } catch (err) {
      if (!(err instanceof LeaseHeldError) || now() >= deadline) throw err;
      await new Promise((ok) => setTimeout(ok, 1000));
    }
  }
}

async function tryAcquire(store: LeaseStore, now: () => number, seconds: number, onLost: LeaseOptions['onLost'], kind: LeaseHolderKind = 'build'): Promise<Lease> {
  const record: LeaseRecord = { host: hostname(), pid: process.pid, token: randomBytes(12).toString('hex'), acquiredAt: now(), expiresAt: now() + seconds };
  const current = await store.read();
  const written = current === undefined ? await store.create(text(record)) : await takeOverIfStale(store, current, now());
  if (!written) throw new LeaseHeldError(store.where, parse((await store.read())?.text), kind);
  // A store that ignores the condition (some S3-compatible servers) still cannot hand the
  // lease to two builds unnoticed: the one whose token is not read back steps aside.
  const check = await store.read();
  if (parse(check?.text)?.token !== record.token) throw new LeaseHeldError(store.where, parse(check?.text), kind);
  return holdLease(store, record, check!.version, now, seconds, onLost);

  function takeOverIfStale(s: LeaseStore, cur: { text: string; version: string }, at: number): Promise<boolean> {
    const holder = parse(cur.text);
    if (holder && isLive(holder, at)) throw new LeaseHeldError(s.where, holder, kind);
    return s.replace(text(record), cur.version);
  }
}

function holdLease(store: LeaseStore, record: LeaseRecord, version: string, now: () => number, seconds: number, onLost: LeaseOptions['onLost']): Lease {
  let current = version;
  let lost = false;
  let renewing: Promise<void> = Promise.resolve();
  const renew = async () => {
    const next = { ...record, expiresAt: now() + seconds };
    const ok = await store.replace(text(next), current).catch(() => false);
    const after = await store.read().catch(() => undefined);
    if (ok && after && parse(after.text)?.token === record.token) {
      current = after.version;
      record.expiresAt = next.expiresAt;
    } else if (!lost) {
      lost = true;
      onLost?.(`the lease at ${store.where} could not be renewed (another build may have taken it after it expired); check the output when this build ends`);
    }
  };
  const timer = setInterval(() => (renewing = renewing.then(renew)), (seconds * 1000) / 3);
  timer.unref();
  return {
    record,
    get lost() {
      return lost;
    },
    async release() {
      clearInterval(timer);
      await renewing;
      const stored = await store.read();
      if (parse(stored?.text)?.token === record.token) await store.remove();
    },
  };
}

/** A lease holds while unexpired, unless its holder is a process of this host that is gone. */
export function isLive(holder: LeaseRecord, at: number): boolean {
  if (holder.expiresAt <= at) return false;
  return !(holder.host === hostname() && !processExists(holder.pid));
}

function processExists(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function text(record: LeaseRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** A lease that cannot be read (torn by hand, not ours) counts as no holder: it is taken over. */
function parse(body: string | undefined): LeaseRecord | undefined {
  if (body === undefined) return undefined;
  try {
    const r = JSON.parse(body) as Partial<LeaseRecord>;
    if (typeof r.host === 'string' && Number.isInteger(r.pid) && typeof r.token === 'string' && Number.isFinite(r.expiresAt) && Number.isFinite(r.acquiredAt)) {
      return r as LeaseRecord;
    }
  } catch {
    // fall through
  }
  return undefined;
}

function iso(unix: number): string {
  return new Date(unix * 1000).toISOString().replace('.000Z', 'Z');
}
