// The scan's lease on its store. Scans of one store run at once only when they provably write
// disjoint repositories: shards of the same n with distinct i. Each holds the lease of its own
// shard (two scans of one shard exclude each other there), and once it holds it, looks at every
// other scan lease the store keeps: one held by a scan of the whole list or of another n means
// the two would measure some repositories both, and append them twice (a duplicate the build
// refuses), so this scan lets its lease go and stops. Each takes its own before it looks, so of
// two started at the same moment at least one sees the other (both may, and both stop).
import { BadgepressError, EXIT, type FailureReport } from '../errors.ts';
import {
  acquireLease,
  liveHolder,
  type Lease,
  type LeaseOptions,
  type LeaseRecord,
} from '../io/lease.ts';
import { isoTime } from '../model/calendar.ts';
import type { Shard } from '../model/shard.ts';
import { scanLeaseKey, shardOfLeaseKey, type StoreWriter } from '../store/writer.ts';

/** A scan whose repositories may overlap this one's holds the store: exit 5, nothing written. */
class ScanOverlapError extends BadgepressError {
  override name = 'ScanOverlapError';
  readonly exitCode: number = EXIT.leaseHeld;
  readonly where: string;
  readonly holder: LeaseRecord;
  constructor(where: string, holder: LeaseRecord, theirs: Shard | null, ours: Shard | undefined) {
    const spec = (s: Shard | null | undefined) =>
      s ? `--shard ${s.index}/${s.count}` : 'no --shard (the whole list)';
    super(
      `the store is being written by another badgepress scan with ${spec(theirs)} (host ${holder.host}, pid ${holder.pid}, since ${isoTime(holder.acquiredAt)}; ` +
        `its lease lapses at ${isoTime(holder.expiresAt)} if it stops), and this one has ${spec(ours)}: they would measure some repositories both and write them twice. ` +
        `Scans share a store only as shards of one n (--shard i/n, distinct i): wait for it to finish (or pass --wait SECONDS)` +
        (theirs ? `, or run this one as another shard of ${theirs.count}` : ''),
    );
    this.where = where;
    this.holder = holder;
  }

  override report(): FailureReport {
    return {
      error: this.message,
      text: this.message,
      details: { lease: this.where, holder: this.holder },
    };
  }
}

/** Whether scans with these shard specs may write the same repository. */
function overlap(a: Shard | null | undefined, b: Shard | null | undefined): boolean {
  return !a || !b || a.count !== b.count || a.index === b.index;
}

/**
 * Holds the scan lease of `shard` on the store, once no scan that may overlap it holds one;
 * with `waitSeconds`, keeps trying once a second (and a random part of one, so two that
 * stopped each other do not meet again) for that long.
 */
export async function holdScanLease(
  writer: StoreWriter,
  shard: Shard | undefined,
  opts: LeaseOptions,
): Promise<Lease> {
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const deadline = now() + (opts.waitSeconds ?? 0);
  const own = scanLeaseKey(shard);
  for (;;) {
    const lease = await acquireLease(writer.leaseSlot(own), {
      ...opts,
      holderKind: 'scan',
      waitSeconds: Math.max(0, deadline - now()),
    });
    let found: ScanOverlapError | undefined;
    try {
      for (const key of await writer.scanLeaseKeys()) {
        const theirs = shardOfLeaseKey(key);
        if (key === own || theirs === undefined || !overlap(shard, theirs)) continue;
        const slot = writer.leaseSlot(key);
        const holder = await liveHolder(slot, now());
        if (holder) {
          found = new ScanOverlapError(slot.where, holder, theirs, shard);
          break;
        }
      }
    } catch (err) {
      await lease.release();
      throw err;
    }
    if (!found) return lease;
    await lease.release();
    if (now() >= deadline) throw found;
    await new Promise((ok) => setTimeout(ok, 1000 + Math.floor(Math.random() * 1000)));
  }
}
