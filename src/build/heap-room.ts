// A repository is evaluated and rendered whole: every scan's files are in memory at once
// before they are published. A history long enough to outgrow V8's heap would end the whole
// build in a "heap out of memory" abort, naming nothing. It is refused first instead, as a
// named error, and the other repositories are built.
import { getHeapStatistics } from 'node:v8';
import type { RepositoryHistory } from '../load/types.ts';

/**
 * Heap a scan takes while its repository is built: its evaluations, files and pages. Measured
 * at about 23 KB with the packaged Shape A config (one repository of 5,000 and of 20,000
 * scans, peak RSS 279 and 624 MB); the margin covers more badges and styles.
 */
export const HEAP_BYTES_PER_SCAN = 32 * 1024;

const MB = 1024 * 1024;

/** Why a repository cannot be built in the heap left, or undefined when it fits. */
export function heapShortfall(h: RepositoryHistory, heap = getHeapStatistics()): string | undefined {
  const need = h.scans.length * HEAP_BYTES_PER_SCAN;
  const room = heap.heap_size_limit - heap.used_heap_size;
  if (need <= room) return undefined;
  const suggest = Math.ceil((heap.used_heap_size + need * 1.5) / MB / 512) * 512;
  return (
    `${h.scans.length} scans need about ${Math.ceil(need / MB)} MB to build at once, more than the ${Math.floor(room / MB)} MB ` +
    `left of the heap's ${Math.round(heap.heap_size_limit / MB)} MB; its files were left as they were. Give Node more heap ` +
    `(NODE_OPTIONS=--max-old-space-size=${suggest}) or keep fewer of its scans in the store`
  );
}
