// Runs a build in-process as `badgepress build` does, build state included.
import { build, type BuildOptions, type BuildSummary } from '../../src/build.ts';
import { loadSite, type SiteFlags } from '../../src/commands/setup.ts';
import { openIncremental, openStateStore } from '../../src/incremental/open.ts';
import type { LoadIssue } from '../../src/load/types.ts';
import { inShard } from '../../src/model/shard.ts';
import { openSink, openStore } from '../../src/site/locations.ts';
import { loadShape } from '../../src/site/stages.ts';

export interface IncrementalRun {
  flags: SiteFlags;
  now: number;
  force?: boolean;
  prune?: boolean;
  shard?: { index: number; count: number };
  summarize?: BuildOptions['summarize'];
  onSummaries?: BuildOptions['onSummaries'];
}

export async function buildIncrementally(run: IncrementalRun): Promise<{ summary: BuildSummary; issues: LoadIssue[] }> {
  const site = await loadSite(run.flags);
  const shape = await loadShape(site);
  const store = await openStore(site.store, site);
  const sink = await openSink(site.out, site);
  const state = await openStateStore(site.out, site);
  const issues: LoadIssue[] = [];
  const prune = run.prune ?? true;
  try {
    const incremental = await openIncremental({ site, store, state, shard: run.shard, now: run.now, prune, force: run.force ?? false });
    const summary = await build({
      shape,
      store,
      sink,
      now: run.now,
      prune,
      report: (i) => issues.push(i),
      incremental,
      ...(run.shard ? { include: inShard(run.shard), reportUnassignable: run.shard.index === 0 } : {}),
      ...(run.summarize ? { summarize: run.summarize } : {}),
      ...(run.onSummaries ? { onSummaries: run.onSummaries } : {}),
    });
    return { summary, issues };
  } finally {
    await sink.close();
    await state.close();
  }
}
