// Runs a build in-process as `badgepress build` does, build state included.
import { build, type BuildSummary } from '../../src/build/loop.ts';
import { resolveFlags, type ConfigFlags } from '../../src/commands/setup.ts';
import { openIncremental, openStateStore } from '../../src/incremental/open.ts';
import type { LoadIssue } from '../../src/load/types.ts';
import { inShard } from '../../src/model/shard.ts';
import { openSink, openStore } from '../../src/build/locations.ts';
import { loadShape } from '../../src/build/stages.ts';
import type { Sink } from '../../src/publish/sink.ts';
import { pagesBuild } from '../../src/render/pages/setup.ts';
import { runSiteWidePages } from '../../src/build/run.ts';
import type { SiteFile } from '../../src/model/site-file.ts';

export interface IncrementalRun {
  flags: ConfigFlags;
  now: number;
  force?: boolean;
  prune?: boolean;
  shard?: { index: number; count: number };
  /** Build the human site as `badgepress build` does (repository pages, site-wide pages). */
  pages?: boolean;
  /** Told the key of every file the build hands to the sink (rendered and compared or written). */
  onPut?: (key: string) => void;
  /** Told of a build state that cannot be trusted. */
  warn?: (message: string) => void;
}

export async function buildIncrementally(run: IncrementalRun): Promise<{ summary: BuildSummary; issues: LoadIssue[] }> {
  const config = await resolveFlags(run.flags);
  const { site } = config;
  const shape = loadShape(config);
  const store = await openStore(site.store, site);
  const opened = await openSink(site.out, site);
  const onPut = run.onPut;
  const sink: Sink = onPut
    ? new Proxy(opened, {
        get: (target, p) => {
          if (p === 'put') return (f: SiteFile) => (onPut(f.key), target.put(f));
          const v = Reflect.get(target, p) as unknown;
          return typeof v === 'function' ? v.bind(target) : v;
        },
      })
    : opened;
  const state = await openStateStore(site.out, site);
  const issues: LoadIssue[] = [];
  const prune = run.prune ?? true;
  try {
    const incremental = await openIncremental({ config, store, state, shard: run.shard, now: run.now, prune, force: run.force ?? false, ...(run.warn ? { warn: run.warn } : {}) });
    const { summary } = await build({
      shape,
      store,
      sink,
      now: run.now,
      prune,
      report: (i) => issues.push(i),
      redo: incremental,
      ...(run.pages && site.pages ? { pages: pagesBuild(config, run.shard)! } : {}),
      ...(run.shard ? { include: inShard(run.shard), reportUnassignable: run.shard.index === 0 } : {}),
    });
    return { summary, issues };
  } finally {
    await sink.close();
    await state.close();
  }
}

/** `badgepress site --shards n` after n sharded builds: the site-wide pages, in-process. */
export async function siteStep(flags: ConfigFlags, shards: number): Promise<void> {
  await runSiteWidePages(await resolveFlags(flags), shards, true);
}
