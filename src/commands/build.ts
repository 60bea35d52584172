// `badgepress build`: the whole pipeline from the store to the output.
import { performance } from 'node:perf_hooks';
import { runBuild, type Sharding } from '../build/run.ts';
import { integerFlag, parseFlags, UsageError } from './args.ts';
import { issuePrinter } from './report.ts';
import { progressLine, progressShown } from './progress.ts';
import { inShard, parseShard } from '../model/shard.ts';
import { SITE_FLAGS, loadSite } from './setup.ts';

export const BUILD_USAGE = `usage: badgepress build [--config FILE] [--store DIR|s3://…] [--out DIR|s3://…] [--shape A|B]
                       [--base-url URL] [--now UNIX] [--shard i/n] [--strict] [--prune] [--force] [--json] [--wait SECONDS]
                       [--s3-endpoint URL] [--s3-path-style]`;

/** What --shard means to the loader: only this shard's repositories, and records that belong
 *  to no repository (no valid URL, a broken line) reported by shard 0 alone, so n shards
 *  report every bad record exactly once. */
export function shardLoadOptions(text: string | undefined): Sharding {
  if (text === undefined) return { reportUnassignable: true };
  const shard = parseShard(text);
  if ('problem' in shard) throw new UsageError(`--shard ${JSON.stringify(text)}: ${shard.problem}`);
  return { include: inShard(shard), reportUnassignable: shard.index === 0, shard };
}

export async function buildCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { ...SITE_FLAGS, strict: { type: 'boolean' }, prune: { type: 'boolean' }, force: { type: 'boolean' }, shard: { type: 'string' }, json: { type: 'boolean' }, wait: { type: 'string' } }, BUILD_USAGE);
  const waitSeconds = integerFlag('wait', values.wait, 0, 86_400) ?? 0;
  const started = performance.now();
  const now = integerFlag('now', values.now) ?? Math.floor(Date.now() / 1000);
  const sharding = shardLoadOptions(values.shard);
  const config = await loadSite(values);
  const printer = issuePrinter(process.stderr);
  const warn = (m: string) => process.stderr.write(`badgepress: warning: ${m}\n`);
  const { summary, location } = await runBuild({
    config,
    now,
    sharding,
    strict: values.strict ?? false,
    prune: values.prune ?? false,
    force: values.force ?? false,
    waitSeconds,
    listener: {
      issue: printer.print,
      flushIssues: printer.flush,
      warn,
      progress: async (store) => progressLine(process.stderr, progressShown(process.stderr) ? { names: await store.list(), display: (n: string) => store.display(n) } : undefined, Date.now()),
    },
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const exitCode = summary.skipped > 0 ? 1 : 0;
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...summary, seconds: Number(seconds), out: location, shard: values.shard ?? null, exitCode })}\n`);
    return exitCode;
  }
  const removed = values.prune ? `, ${summary.removed} removed` : '';
  const reused = summary.reused > 0 ? ` (${summary.reused} unchanged since the last build, not read)` : '';
  process.stdout.write(
    `badgepress: ${summary.repositories} repositories${reused}, ${summary.scans} scans, ${summary.written} files written, ` +
      `${summary.unchanged} unchanged${removed}, ${summary.skipped} records skipped, ${seconds} s → ${location}\n`,
  );
  return exitCode;
}
