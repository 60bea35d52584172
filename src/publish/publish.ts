// Publishes one repository's files in phases: all per-time files are confirmed before
// index.json, and index.json before the latest files. Within a phase, puts run concurrently
// under the sink-wide limit.
import type { LimitFunction } from 'p-limit';
import type { Phase, PublishFile } from '../model/publish-file.ts';
import { PublishError, type Sink } from './sink.ts';

export interface PublishCounts {
  written: number;
  unchanged: number;
  removed: number;
}

const PHASES: Phase[] = ['at', 'index', 'latest', 'page', 'home'];

export async function publishRepository(
  sink: Sink,
  files: PublishFile[],
  limit: LimitFunction,
  counts: PublishCounts,
): Promise<void> {
  for (const [i, phase] of PHASES.entries()) {
    const batch = files.filter((f) => f.phase === phase);
    const settled = await Promise.allSettled(batch.map((f) => limit(() => sink.put(f))));
    const failed: PublishError[] = [];
    for (const r of settled) {
      if (r.status === 'fulfilled') counts[r.value]++;
      else if (r.reason instanceof PublishError) failed.push(r.reason);
      else throw r.reason;
    }
    if (failed.length > 0) {
      // Later phases must not go out before this one is complete: they did not make it either.
      const notAttempted = files.filter((f) => PHASES.indexOf(f.phase) > i).map((f) => f.key);
      const held =
        notAttempted.length > 0
          ? [
              new PublishError(
                notAttempted,
                `held back: ${phase} files of the same repository failed`,
              ),
            ]
          : [];
      throw PublishError.combine([...failed, ...held]);
    }
  }
}

/** Keys under the repository's prefix that this build no longer produces. */
export async function staleKeys(
  sink: Sink,
  prefix: string,
  produced: Set<string>,
): Promise<string[]> {
  return (await sink.list(prefix)).filter((k) => !produced.has(k));
}
