// A repository is evaluated and rendered whole: every scan's files are in memory at once
// before they are published. A history long enough to outgrow V8's heap would end the whole
// build in a "heap out of memory" abort, naming nothing. It is refused first instead, as a
// named error, and the other repositories are built.
import { getHeapStatistics } from 'node:v8';
import type { RepositoryHistory } from '../load/types.ts';
import { counted } from '../model/plural.ts';

/**
 * Heap a scan takes while its repository is built: its evaluations, files and pages, with a
 * margin for more badges and styles than the packaged Shape A config has (what one scan took
 * is in docs/performance.md, "Pages and file writes made cheaper").
 */
export const HEAP_BYTES_PER_SCAN = 32 * 1024;

const MB = 1024 * 1024;

/**
 * The largest young-generation semi-space any supported Node line starts with (V8 defaults
 * differ by line: 16 MB on Node 22, 64 MB on 24, 32 MB on 26). Used only when no flag says.
 */
const LARGEST_DEFAULT_SEMI_SPACE_MB = 64;

/** The heap a repository's files can fill: the old generation's limit and what is used. */
interface HeapRoom {
  limit: number;
  used: number;
}

/** The value in MB of a V8 size flag, the last one given winning (NODE_OPTIONS first, then the command line). */
function sizeFlag(name: string, args: readonly string[]): number | undefined {
  let value: number | undefined;
  const spellings = [name, name.replaceAll('-', '_')];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    for (const flag of spellings) {
      const text =
        arg === `--${flag}`
          ? args[i + 1]
          : arg.startsWith(`--${flag}=`)
            ? arg.slice(flag.length + 3)
            : undefined;
      if (text !== undefined && /^\d+$/.test(text)) value = Number(text);
    }
  }
  return value;
}

/**
 * Where surviving objects live: `heap_size_limit` also counts the young generation (three
 * semi-spaces), which never holds a repository's files for long. Node 24 reserves 192 MB of
 * it by default, so a 96 MB old generation reads as a 288 MB heap. The old generation's size
 * is exact when --max-old-space-size says it; otherwise the young part is taken off at the
 * semi-space flag or the largest default, never more than half the heap.
 */
export function heapRoom(
  heap = getHeapStatistics(),
  args: readonly string[] = [
    ...(process.env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean),
    ...process.execArgv,
  ],
): HeapRoom {
  const old = sizeFlag('max-old-space-size', args);
  if (old !== undefined) return { limit: old * MB, used: heap.used_heap_size };
  const young = 3 * (sizeFlag('max-semi-space-size', args) ?? LARGEST_DEFAULT_SEMI_SPACE_MB) * MB;
  return {
    limit: Math.max(heap.heap_size_limit - young, heap.heap_size_limit / 2),
    used: heap.used_heap_size,
  };
}

/** Why a repository cannot be built in the heap left, or undefined when it fits. */
export function heapShortfall(
  h: RepositoryHistory,
  heap: HeapRoom = heapRoom(),
): string | undefined {
  const need = h.scans.length * HEAP_BYTES_PER_SCAN;
  const room = heap.limit - heap.used;
  if (need <= room) return undefined;
  const suggest = Math.ceil((heap.used + need * 1.5) / MB / 512) * 512;
  return (
    `${counted(h.scans.length, 'scan', 'scans')} ${h.scans.length === 1 ? 'needs' : 'need'} about ${Math.ceil(need / MB)} MB to build at once, more than the ${Math.floor(room / MB)} MB ` +
    `left of the heap's ${Math.round(heap.limit / MB)} MB; its files were left as they were. Give Node more heap ` +
    `(NODE_OPTIONS=--max-old-space-size=${suggest}) or keep fewer of its scans in the store`
  );
}
