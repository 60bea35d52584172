// Runs a build in-process as `badgepress build` does: one call of the orchestrator (runBuild),
// build state and lease included.
import type { BuildSummary } from '../../src/pipeline/loop.ts';
import { openSink, openStore } from '../../src/pipeline/locations.ts';
import { runBuild, runSiteWidePages, type BuildIo } from '../../src/pipeline/run.ts';
import { shardLoadOptions } from '../../src/commands/build.ts';
import { resolveFlags, type ConfigFlags } from '../../src/commands/setup.ts';
import type { LoadIssue } from '../../src/load/types.ts';
import type { PublishFile } from '../../src/model/publish-file.ts';
import type { Sink } from '../../src/publish/sink.ts';

export interface IncrementalRun {
  flags: ConfigFlags;
  now: number;
  force?: boolean;
  /** --prune (default true). */
  prune?: boolean;
  shard?: { index: number; count: number };
  /** Build the human site as the config says (repository pages, site-wide pages); without it, as `pages: false`. Never api/v1/openapi.json. */
  pages?: boolean;
  /** Told the key of every file the build hands to the sink (rendered and compared or written). */
  onPut?: (key: string) => void;
  /** Told of a build state that cannot be trusted. */
  warn?: (message: string) => void;
}

/** The output as locations.ts opens it, every put told to `onPut` first. */
function observed(onPut: (key: string) => void): BuildIo {
  return {
    openStore,
    openSink: async (location, settings) => {
      const sink = await openSink(location, settings);
      return new Proxy(sink, {
        get: (target, p) => {
          if (p === 'put') return (f: PublishFile) => (onPut(f.key), target.put(f));
          const v = Reflect.get(target, p) as unknown;
          return typeof v === 'function' ? v.bind(target) : v;
        },
      }) satisfies Sink;
    },
  };
}

export async function buildIncrementally(
  run: IncrementalRun,
): Promise<{ summary: BuildSummary; issues: LoadIssue[] }> {
  const config = await resolveFlags(run.flags);
  config.settings.pages &&= run.pages === true;
  config.settings.openapi = false;
  const issues: LoadIssue[] = [];
  const { summary } = await runBuild({
    config,
    now: run.now,
    sharding: shardLoadOptions(run.shard && `${run.shard.index}/${run.shard.count}`),
    strict: false,
    prune: run.prune ?? true,
    force: run.force ?? false,
    waitSeconds: 0,
    listener: {
      issue: (i) => issues.push(i),
      flushIssues: () => {},
      warn: run.warn ?? (() => {}),
      progress: async () => ({ update: () => {}, done: () => {} }),
    },
    ...(run.onPut ? { io: observed(run.onPut) } : {}),
  });
  return { summary, issues };
}

/** `badgepress site --shards n` after n sharded builds: the site-wide pages, in-process. */
export async function siteStep(flags: ConfigFlags, shards: number): Promise<void> {
  await runSiteWidePages(await resolveFlags(flags), shards, true);
}
