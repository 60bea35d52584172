// `badgepress build`: the whole pipeline from the store to the output.
import { performance } from 'node:perf_hooks';
import type { BuildSummary } from '../pipeline/loop.ts';
import { runBuild, type Built, type Sharding } from '../pipeline/run.ts';
import { integerFlag, parseFlags } from './args.ts';
import { UsageError } from '../errors.ts';
import { issuePrinter } from './report.ts';
import { counted } from '../model/plural.ts';
import { progressLine, progressShown } from './progress.ts';
import { inShard, parseShard } from '../model/shard.ts';
import { CONFIG_FLAGS, resolveFlags, warnOfLocalBaseUrl } from './setup.ts';

export const BUILD_USAGE = `usage: badgepress build [--config FILE] [--store DIR|s3://…] [--out DIR|s3://…] [--shape A|B]
                       [--base-url URL] [--now UNIX] [--shard i/n] [--strict] [--prune] [--force] [--json] [--wait SECONDS]
                       [--s3-endpoint URL] [--s3-path-style]`;

/** The flags build's parser accepts (BUILD_HELP describes each). */
export const BUILD_FLAGS = {
  ...CONFIG_FLAGS,
  strict: { type: 'boolean' },
  prune: { type: 'boolean' },
  force: { type: 'boolean' },
  shard: { type: 'string' },
  json: { type: 'boolean' },
  wait: { type: 'string' },
} as const;

/** `build --help`: the synopsis, then what each flag does and its default. */
export const BUILD_HELP = `${BUILD_USAGE}

Builds the site from the stored values: every report, badge, explanation and page.

  --config FILE        site settings (YAML); default ./config/badgepress.yaml, else the packaged one
  --store DIR|s3://…   the stored values to read; default: store: in the config
  --out DIR|s3://…     where the site is written; default: out: in the config
  --shape A|B          the report shape; default: shape: in the config
  --base-url URL       the public address every badge URL and link starts with; default: baseUrl: in the config
  --now UNIX           the moment the latest files answer for (expiry); default: the clock
  --shard i/n          build only shard i of n (by repository URL); n shards make one site
  --strict             any bad record is fatal: nothing is written, exit 2
  --prune              delete files this build no longer produces, and repositories no record names
  --force              ignore the build state: redo every repository (only changed bytes are written)
  --json               print the summary as one JSON object
  --wait SECONDS       wait up to SECONDS (0-86400) for another build's lease before exiting 5
  --s3-endpoint URL    the endpoint of an S3-compatible store (MinIO, R2, Ceph)
  --s3-path-style      address buckets in the path, not the host name

exit codes: 0 built, 1 built with records skipped, 2 bad configuration or arguments (nothing
written), 4 a store or bucket failed, 5 another build holds the output's lease (nothing written)`;

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
  return (await buildAndSay(argv)).exitCode;
}

/** `badgepress build`: the build, its summary printed, the exit code and what the build returned (demo shows its example). */
export async function buildAndSay(argv: string[]): Promise<Built & { exitCode: number }> {
  const { values } = parseFlags(argv, BUILD_FLAGS, BUILD_USAGE);
  const waitSeconds = integerFlag('wait', values.wait, 0, 86_400) ?? 0;
  const started = performance.now();
  const now = integerFlag('now', values.now) ?? Math.floor(Date.now() / 1000);
  const sharding = shardLoadOptions(values.shard);
  const resolved = await resolveFlags(values);
  warnOfLocalBaseUrl(resolved.settings);
  // Under --strict a bad record stops the build: it is not "skipped".
  const printer = issuePrinter(process.stderr, { strict: values.strict ?? false });
  const warn = (m: string) => process.stderr.write(`badgepress: warning: ${m}\n`);
  const built = await runBuild({
    config: resolved,
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
      progress: async (store) =>
        progressLine(
          process.stderr,
          progressShown(process.stderr)
            ? { names: await store.list(), display: (n: string) => store.display(n) }
            : undefined,
          Date.now(),
        ),
    },
  });
  const { summary, location } = built;
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const exitCode = summary.skipped > 0 ? 1 : 0;
  const config = resolved.settingsFile;
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ ...summary, seconds: Number(seconds), out: location, config: config.path, shard: values.shard ?? null, exitCode })}\n`,
    );
    return { ...built, exitCode };
  }
  // Without --config, which settings were read is not obvious: ./config/ or the packaged ones.
  const from =
    values.config !== undefined
      ? ''
      : config.own
        ? ` (settings: ${config.path})`
        : ` (settings: the packaged ${config.path})`;
  process.stdout.write(
    `${summaryLine(summary, values.prune ?? false)}, ${seconds} s → ${location}${from}\n`,
  );
  return { ...built, exitCode };
}

/**
 * The summary a person reads. Files count every file the build compared: written (bytes
 * changed or new) plus unchanged. A rebuild that redid no repository leaves the site-wide
 * pages as they were and counts only the repositories' files: it says so, or its unchanged
 * count would fall short of the last build's written one with no reason given.
 */
function summaryLine(s: BuildSummary, prune: boolean): string {
  const reused = s.reused > 0 ? ` (${s.reused} unchanged since the last build, not read)` : '';
  const kept = s.sitePagesKept ? ' (site-wide pages left as they were, not counted)' : '';
  const removed = prune ? `, ${s.removed} removed` : '';
  return (
    `badgepress: ${counted(s.repositories, 'repository', 'repositories')}${reused}, ${counted(s.scans, 'scan', 'scans')}, ` +
    `${counted(s.written, 'file', 'files')} written, ${s.unchanged} unchanged${kept}${removed}, ${counted(s.skipped, 'record', 'records')} skipped`
  );
}
