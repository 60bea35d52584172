// The shards' summaries on the output: the parts an earlier, larger build left, and all of
// them read back for `badgepress site` to write the site-wide pages from.
import { BadInputError } from '../errors.ts';
import type { Sink } from '../publish/sink.ts';
import { SummaryLines } from '../incremental/summary-lines.ts';
import { NotRegularFileError } from '../publish/dir-sink.ts';
import {
  SUMMARIES_PREFIX,
  staleSummaryParts,
  summariesKey,
  type RepositorySummary,
  type SortedSummaries,
} from '../render/pages/summary.ts';

/** Summary parts of this shard past the `parts` written now (an earlier, larger build's): removed. */
export async function staleSummaryKeys(
  sink: Sink,
  shard: { index: number; count: number },
  parts: number,
): Promise<string[]> {
  return staleSummaryParts(await sink.list(SUMMARIES_PREFIX), shard.index, shard.count, parts);
}

/** The shards' summaries are missing or broken: `badgepress site` refuses them as bad input. */
class MissingSummariesError extends BadInputError {}

/**
 * The summaries of shards 0..count-1, merged and sorted by URL (kept on local disk, see
 * SummaryLines); close() releases that file. On an error it is released here.
 */
export async function readSummaries(
  sink: Sink,
  count: number,
): Promise<SortedSummaries & { close(): void }> {
  const all = new SummaryLines();
  try {
    await readSummariesInto(all, sink, count);
  } catch (err) {
    all.file.close();
    throw err;
  }
  return { ...all.sorted(), close: () => all.file.close() };
}

async function readSummariesInto(all: SummaryLines, sink: Sink, count: number): Promise<void> {
  const missing: number[] = [];
  for (let i = 0; i < count; i++) {
    for (let part = 1; ; part++) {
      const key = summariesKey(i, count, part);
      const bytes = await sink.read(key).catch((err: unknown) => {
        if (err instanceof NotRegularFileError)
          throw new MissingSummariesError(
            `${err.message}, or run "badgepress build --shard ${i}/${count}" again`,
          );
        throw err;
      });
      if (!bytes) {
        if (part === 1) missing.push(i);
        break;
      }
      const lines = new TextDecoder().decode(bytes).split('\n');
      lines.forEach((line, n) => {
        if (line.trim() === '') return;
        try {
          const url = (JSON.parse(line) as RepositorySummary).url;
          if (typeof url !== 'string') throw new Error('no url');
          all.set(url, line);
        } catch {
          throw new MissingSummariesError(
            `${sink.location}/${key}:${n + 1}: not a JSON summary; run "badgepress build --shard ${i}/${count}" again`,
          );
        }
      });
    }
  }
  if (missing.length > 0) {
    throw new MissingSummariesError(
      `no summaries of ${missing.length === 1 ? 'shard' : 'shards'} ${missing.map((i) => `${i}/${count}`).join(', ')} in ${sink.location}/${SUMMARIES_PREFIX}; ` +
        `run "badgepress build --shard i/${count}" for each shard first`,
    );
  }
}
