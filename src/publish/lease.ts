// The output's lease as a sink sees it; the lease itself is io/lease.ts's (a scan holds one on
// its store too), imported from there.
import type { Lease } from '../io/lease.ts';
import type { Sink } from './sink.ts';

/**
 * The sink as a lease holder may use it: every write and removal first checks that the lease
 * is still held, so a build whose lease went to another stops publishing at its next file
 * rather than at its end.
 */
export function leasedSink(sink: Sink, lease: Lease): Sink {
  return {
    location: sink.location,
    put: async (file) => (lease.check(), sink.put(file)),
    remove: async (keys) => (lease.check(), sink.remove(keys)),
    list: (prefix) => sink.list(prefix),
    compare: (file) => sink.compare(file),
    read: (key) => sink.read(key),
    leaseSlot: (key) => sink.leaseSlot(key),
    close: () => sink.close(),
    ...(sink.children ? { children: (prefix: string) => sink.children!(prefix) } : {}),
    ...(sink.removeEmptyDirectories
      ? { removeEmptyDirectories: (prefix: string) => sink.removeEmptyDirectories!(prefix) }
      : {}),
    ...(sink.narrowListing ? { narrowListing: () => sink.narrowListing!() } : {}),
    ...(sink.resendUnchanged ? { resendUnchanged: () => sink.resendUnchanged!() } : {}),
  };
}
