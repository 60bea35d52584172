// Batch commands (build, plan) keep a small live set: one repository's files at a time.
// V8, seeing memory to spare, lets garbage pile up first; a smaller heap-growing step
// collects sooner and keeps the peak near the live set (docs/performance.md, "Start-up",
// what the figures rest on: Memory). Heuristic flags like this one are read at each collection, so
// setting it at run time takes effect; the heap's limits are left as they are.
import { setFlagsFromString } from 'node:v8';

export function preferSmallHeap(): void {
  setFlagsFromString('--heap-growing-percent=25');
}
