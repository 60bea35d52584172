// `badgepress plan`: what a build under the current thresholds would change, writing nothing.
// Exit 0 no change, 3 changes (like terraform plan -detailed-exitcode), 2 errors.
import { loadHistories } from '../load/histories.ts';
import { Planner, formatPlan } from '../publish/plan.ts';
import { formatPlanMarkdown } from '../publish/plan-markdown.ts';
import { integerFlag, parseFlags, UsageError } from './args.ts';
import { shardLoadOptions } from './build.ts';
import { siteWideOf } from '../build/run.ts';
import { issuePrinter } from './report.ts';
import { SITE_FLAGS, loadSite } from './setup.ts';
import { openSink, openStore } from '../build/locations.ts';
import { loadShape } from '../build/stages.ts';
import { openIncremental, openStateStore } from '../incremental/open.ts';
import { goneRepositories, keysOfRepository } from '../publish/gone.ts';
import { staleSiteWideKeys } from '../publish/site-wide-prune.ts';
import { PagesCollector } from '../render/pages/build-pages.ts';
import { staleSummaryKeys } from '../build/pages.ts';
import { pagesBuild } from '../render/pages/setup.ts';
import type { SiteFile } from '../render/site-files.ts';

export const PLAN_USAGE = `usage: badgepress plan [--config FILE] [--store DIR|s3://…] [--out DIR|s3://…] [--shape A|B]
                      [--base-url URL] [--now UNIX] [--shard i/n] [--force] [--json | --format text|json|markdown]
                      [--s3-endpoint URL] [--s3-path-style]`;

const FORMATS = ['text', 'json', 'markdown'] as const;

export async function planCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { ...SITE_FLAGS, shard: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' }, format: { type: 'string' } }, PLAN_USAGE);
  const format = values.format ?? (values.json ? 'json' : 'text');
  if (!(FORMATS as readonly string[]).includes(format) || (values.json && format !== 'json')) {
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (--json is --format json); got ${JSON.stringify(values.format)}`);
  }
  const now = integerFlag('now', values.now) ?? Math.floor(Date.now() / 1000);
  const sharding = shardLoadOptions(values.shard);
  const config = await loadSite(values);
  const { site } = config;
  const shape = loadShape(config);
  const store = await openStore(site.store, site);
  const sink = await openSink(site.out, site);
  const printer = issuePrinter(process.stderr);
  const planner = new Planner(sink);
  const state = await openStateStore(site.out, site);
  const { shard, ...loadSharding } = sharding;
  // The state's summaries file, released however the plan ends.
  let summaries: { close(): void } | undefined;
  try {
    // The build state answers for unchanged repositories, as a build would skip them; prune as
    // if --prune were given, since the plan reports what --prune would remove.
    const incremental = await openIncremental({ config, store, state, shard, now, prune: true, force: values.force ?? false, readOnly: true, warn: (m) => process.stderr.write(`badgepress: warning: ${m}\n`) });
    summaries = incremental;
    const report = (i: Parameters<typeof printer.print>[0], owner?: Parameters<typeof incremental.note>[1]) => (incremental.note(i, owner), printer.print(i));
    // The pages and site-wide files, as the build would write them (commands/build.ts).
    const pages = pagesBuild(config, sharding.shard);
    const collector = pages ? new PagesCollector(pages) : undefined;
    const { summaries: lines } = incremental;
    for await (const h of loadHistories(store, { catalog: shape.evaluator.catalog, schemes: site.repositoryUrlSchemes, report, ...loadSharding, ...incremental.loadOptions(loadSharding.include) })) {
      if (h.scans.length === 0) continue;
      const evaluation = shape.evaluator.evaluate(h, now);
      const partial = incremental.partial(h);
      const page = collector?.repository(evaluation);
      if (page) lines.set(h.repositoryUrl, page.summary);
      await planner.add(h.encoded, h.scans.length, shape.renderer.render(evaluation, partial?.filter), partial, page?.files);
    }
    const carried = incremental.carry(printer.print, lines);
    planner.addUnchanged(carried.repositories, carried.scans, carried.files);
    if (!incremental.siteWideUnchanged) {
      const produced = new Set<string>();
      const track = function* (files: Iterable<SiteFile>) {
        for (const f of files) yield (produced.add(f.key), f);
      };
      if (collector) {
        const parts = { n: 0 };
        await planner.addFiles(track(collector.files(lines.sorted(), parts)));
        planner.addRemoved(await staleSummaryKeys(sink, collector.shard, parts.n));
      }
      const { siteFiles, siteWide } = siteWideOf(site, sharding.shard, pages !== undefined, shape.evaluator.badgeIds);
      await planner.addFiles(track(siteFiles));
      if (siteWide) planner.addRemoved(await staleSiteWideKeys(sink, produced, siteWide));
    }
    for (const url of (await goneRepositories(sink, incremental, loadSharding.include)) ?? []) planner.addRemoved(await keysOfRepository(sink, url));
  } finally {
    summaries?.close();
    await sink.close();
    await state.close();
  }
  printer.flush();
  const plan = planner.result();
  process.stdout.write(`${format === 'json' ? JSON.stringify(plan) : format === 'markdown' ? formatPlanMarkdown(plan) : formatPlan(plan)}\n`);
  return plan.added + plan.changed + plan.removed > 0 ? 3 : 0;
}
