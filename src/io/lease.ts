// A lease on an output: one build at a time writes a site. Two builds into one output would
// each publish files judged under their own inputs, and the tree would end up mixing them.
// A scan holds one on its store the same way: two scans appending at once could both add a
// record at the same time to one repository.
// The lease is a small JSON object under `.badgepress/` (never served), created only if
// absent and replaced only if unchanged since read (a directory: a chain of generations
// linked with link(), see file-lease.ts; S3: conditional PUTs, If-None-Match: * and If-Match),
// renewed while the build runs and released at its end. A build whose renewal finds the
// lease gone stops publishing (leasedSink).
//
// A build is known by a random token of its own, never by host name and pid: in containers
// the host name is often fixed and pids repeat in every PID namespace, so a pid says nothing
// about whether the holder runs. A holder is alive while it renews: a lease is stale once its
// holder has not renewed it for longer than LEASE_SECONDS, whatever its pid.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { BadInputError, BadgepressError, EXIT, type FailureReport } from '../errors.ts';
import { isoTime } from '../model/calendar.ts';

/** The lease's key: one per output, or one per shard (shards write disjoint repositories). */
export function leaseKey(shard?: { index: number; count: number }): string {
  return shard
    ? `.badgepress/lease-shard-${shard.index}-of-${shard.count}.json`
    : '.badgepress/lease.json';
}
/**
 * How long a lease holds without renewal; a build renews it every quarter of that, so three
 * renewals in a row may fail (a store that answers 503 for a while) before it lapses. Short,
 * because a crashed build keeps others out until its lease lapses.
 */
const LEASE_SECONDS = 60;

export interface LeaseRecord {
  /** Where the holder ran, for people reading messages; never evidence of liveness. */
  host: string;
  pid: number;
  /** The holder's identity: random, one per build. */
  token: string;
  /** Unix seconds. */
  acquiredAt: number;
  expiresAt: number;
}

/** What a lease needs of an output: one small object read and written with a version check. */
export interface LeaseSlot {
  /** Where the lease lives, for messages (a path or an s3:// URL). */
  readonly where: string;
  /** The stored text and an opaque version of it, or undefined when there is none. */
  read(): Promise<{ text: string; version: string } | undefined>;
  /** Store `text` only if nothing is stored; false when something already is. */
  create(text: string): Promise<boolean>;
  /** Store `text` only if the stored version is still `version`; false otherwise. */
  replace(text: string, version: string): Promise<boolean>;
  /** End the lease read at `version` (a store without a conditional delete may ignore it). */
  remove(version: string): Promise<void>;
  /**
   * Whether the store refuses a conditional write whose condition fails (S3: a PUT with
   * If-None-Match: * on an existing key, or If-Match on another ETag, must answer 412).
   * Left out where the store's own primitives exclude (a directory's link()).
   */
  honoursConditions?(): Promise<boolean>;
}

/** What to do on a store that ignores conditional writes (the config's s3.conditionalWrites). */
type ConditionalWrites = 'required' | 'unsupported-accept-risk';

/** The output store ignores conditional writes and the config does not accept the risk: exit 2. */
export class ConditionalWritesError extends BadInputError {
  override name = 'ConditionalWritesError';
  constructor(where: string, holderKind: LeaseHolderKind = 'build') {
    super(
      `${where}: the store ignores conditional writes (it accepted a PUT with If-None-Match: * on an existing object, or If-Match on another ETag), ` +
        (holderKind === 'build'
          ? `so the build lease cannot keep two builds of this output apart and they could publish a mix of both; nothing written. ` +
            `Publish to a store that honours them (AWS S3 does), or make sure only one build runs at a time and set s3.conditionalWrites: unsupported-accept-risk in the config`
          : `so the scan lease cannot keep two scans of this store apart; nothing written. ` +
            `Scan into a store that honours them (AWS S3 does), or make sure only one scan runs at a time and set s3.conditionalWrites: unsupported-accept-risk in the config`),
    );
  }
}

/** Another build holds the output: the command exits with its own code (5). */
export class LeaseHeldError extends BadgepressError {
  override name = 'LeaseHeldError';
  readonly exitCode: number = EXIT.leaseHeld;
  readonly where: string;
  readonly holder: LeaseRecord | undefined;
  constructor(
    where: string,
    holder: LeaseRecord | undefined,
    holderKind: LeaseHolderKind = 'build',
  ) {
    const who = holder
      ? `host ${holder.host}, pid ${holder.pid}, since ${isoTime(holder.acquiredAt)}; it renews its lease while it runs, and the lease lapses at ${isoTime(holder.expiresAt)} if it stops`
      : `another ${holderKind} took it at the same moment`;
    super(
      holderKind === 'build'
        ? `the output is being built by another badgepress build (${who}); ` +
            `wait for it to finish (or pass --wait SECONDS), and delete ${where} only if you are sure no build is running`
        : `the store is being written by another badgepress scan (${who}); ` +
            `wait for it to finish (or pass --wait SECONDS), and delete ${where} only if you are sure no scan is running`,
    );
    this.where = where;
    this.holder = holder;
  }

  override report(): FailureReport {
    return {
      error: this.message,
      text: this.message,
      details: { lease: this.where, holder: this.holder ?? null },
    };
  }
}

/** Who holds leases of this kind, for the message another holder gets. */
export type LeaseHolderKind = 'build' | 'scan';

export interface Lease {
  readonly record: LeaseRecord;
  /** Whether a renewal found the lease taken by someone else (it had expired). */
  readonly lost: boolean;
  /** Throws LeaseLostError once the lease is lost: nothing more may be published. */
  check(): void;
  release(): Promise<void>;
}

/** A renewal found the lease gone to another build: this one stops publishing (exit 4). */
export class LeaseLostError extends BadgepressError {
  override name = 'LeaseLostError';
  readonly exitCode: number = EXIT.publish;
  constructor(where: string) {
    super(
      `the build lease at ${where} was lost (a renewal found it lapsed or taken by another build, e.g. after this process was paused); ` +
        `this build stopped publishing, and files it wrote may mix with the other build's: run the build again once the other one has ended`,
    );
  }
}

export interface LeaseOptions {
  /** Unix seconds now (a clock the tests can set). */
  now?: () => number;
  seconds?: number;
  /** Keep trying this long (seconds) while another build holds the lease. */
  waitSeconds?: number;
  /** Told when a renewal finds the lease lapsed or taken; from then on check() throws. */
  onLost?: (message: string) => void;
  /** A store that ignores conditional writes is refused unless this accepts the risk. */
  conditionalWrites?: ConditionalWrites;
  /** Told when the lease holds only as advice (a store that ignores conditional writes). */
  onWarning?: (message: string) => void;
  holderKind?: LeaseHolderKind;
}

const wallClock = () => Math.floor(Date.now() / 1000);

export async function acquireLease(slot: LeaseSlot, opts: LeaseOptions = {}): Promise<Lease> {
  const now = opts.now ?? wallClock;
  const seconds = opts.seconds ?? LEASE_SECONDS;
  const deadline = now() + (opts.waitSeconds ?? 0);
  if (slot.honoursConditions && !(await slot.honoursConditions())) {
    if ((opts.conditionalWrites ?? 'required') === 'required')
      throw new ConditionalWritesError(slot.where, opts.holderKind);
    opts.onWarning?.(
      `the store at ${slot.where} ignores conditional writes: the lease cannot keep a second ${opts.holderKind ?? 'build'} started at the same moment from writing too (s3.conditionalWrites: unsupported-accept-risk)`,
    );
  }
  for (;;) {
    try {
      return await tryAcquire(slot, now, seconds, opts.onLost, opts.holderKind);
    } catch (err) {
      if (!(err instanceof LeaseHeldError) || now() >= deadline) throw err;
      await new Promise((ok) => setTimeout(ok, 1000));
    }
  }
}

async function tryAcquire(
  slot: LeaseSlot,
  now: () => number,
  seconds: number,
  onLost: LeaseOptions['onLost'],
  kind: LeaseHolderKind = 'build',
): Promise<Lease> {
  const record: LeaseRecord = {
    host: hostname(),
    pid: process.pid,
    token: randomBytes(12).toString('hex'),
    acquiredAt: now(),
    expiresAt: now() + seconds,
  };
  const current = await slot.read();
  if (current === undefined) await slot.create(text(record));
  else await takeOverIfStale(slot, current, now());
  // Whatever the write answered, the lease read back says who holds it: a refused write
  // (412) may be the retry of our own that landed with its answer lost, and a write that
  // succeeded may have been beaten by another's on a store that ignored its condition.
  const check = await slot.read();
  const holder = parse(check?.text);
  if (!check || holder?.token !== record.token) throw new LeaseHeldError(slot.where, holder, kind);
  return holdLease(slot, record, check.version, now, seconds, onLost);

  function takeOverIfStale(
    s: LeaseSlot,
    cur: { text: string; version: string },
    at: number,
  ): Promise<boolean> {
    const holder = parse(cur.text);
    if (holder && isLive(holder, at)) throw new LeaseHeldError(s.where, holder, kind);
    return s.replace(text(record), cur.version);
  }
}

function holdLease(
  slot: LeaseSlot,
  record: LeaseRecord,
  version: string,
  now: () => number,
  seconds: number,
  onLost: LeaseOptions['onLost'],
): Lease {
  let current = version;
  let lost = false;
  let renewing: Promise<void> = Promise.resolve();
  const renew = async () => {
    const next = { ...record, expiresAt: now() + seconds };
    await slot.replace(text(next), current).catch(() => false);
    // Read back whatever the answer was: a renewal whose answer was lost may have landed.
    const after = await slot.read().then(
      (stored) => stored ?? null,
      () => undefined,
    );
    const holder = after ? parse(after.text) : undefined;
    if (after && holder?.token === record.token) {
      current = after.version;
      record.expiresAt = holder.expiresAt;
    }
    // A renewal that failed on the way (the store unreachable for a moment) is tried again at
    // the next one; the lease is lost when it is gone or another holds it, or when it lapsed.
    const taken = after === null || (after !== undefined && holder?.token !== record.token);
    if ((taken || record.expiresAt <= now()) && !lost) {
      lost = true;
      onLost?.(
        `the lease at ${slot.where} could not be renewed (another build may have taken it after it expired); this build publishes nothing more`,
      );
    }
  };
  const timer = setInterval(() => (renewing = renewing.then(renew)), (seconds * 1000) / 4);
  timer.unref();
  return {
    record,
    get lost() {
      return lost;
    },
    check() {
      if (lost) throw new LeaseLostError(slot.where);
    },
    async release() {
      clearInterval(timer);
      await renewing;
      const stored = await slot.read();
      if (stored && parse(stored.text)?.token === record.token) await slot.remove(stored.version);
    },
  };
}

/** The holder of the lease `slot` keeps, when it is live at `at`; undefined otherwise. */
export async function liveHolder(slot: LeaseSlot, at: number): Promise<LeaseRecord | undefined> {
  const holder = parse((await slot.read())?.text);
  return holder && isLive(holder, at) ? holder : undefined;
}

/** A lease holds while its holder renews it: until the time its last renewal set. */
function isLive(holder: LeaseRecord, at: number): boolean {
  return holder.expiresAt > at;
}

function text(record: LeaseRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** A lease that cannot be read (torn by hand, not ours) counts as no holder: it is taken over. */
function parse(body: string | undefined): LeaseRecord | undefined {
  if (body === undefined) return undefined;
  try {
    const r = JSON.parse(body) as Partial<LeaseRecord>;
    if (
      typeof r.host === 'string' &&
      Number.isInteger(r.pid) &&
      typeof r.token === 'string' &&
      Number.isFinite(r.expiresAt) &&
      Number.isFinite(r.acquiredAt)
    ) {
      return r as LeaseRecord;
    }
  } catch {
    // fall through
  }
  return undefined;
}
