// Publishes one repository's files in phases: all per-time files are confirmed before
// index.json, and index.json before the latest files. Within a phase, puts run concurrently
// under the sink-wide limit.
import type { LimitFunction } from 'p-limit';
import type { OutputFile, Phase } from '../render/site-files.ts';
import type { Sink } from './sink.ts';

export interface PublishCounts {
  written: number;
  unchanged: number;
  removed: number;
}

const PHASES: Phase[] = ['at', 'index', 'latest'];

export async function publishRepository(sink: Sink, files: OutputFile[], limit: LimitFunction, counts: PublishCounts): Promise<void> {
  for (const phase of PHASES) {
    const outcomes = await Promise.all(files.filter((f) => f.phase === phase).map((f) => limit(() => sink.put(f))));
    for (const o of outcomes) counts[o]++;
  }
}

/** Keys under the repository's prefix that this build no longer produces. */
export async function staleKeys(sink: Sink, prefix: string, produced: Set<string>): Promise<string[]> {
  return (await sink.list(prefix)).filter((k) => !produced.has(k));
}
