// The documentation's recipes, read: the scheduled-rebuild ones (docs/guides/
// scheduled-rebuilds.md) parse and name real flags, every flag the docs use exists, and the
// plan sample is what plan prints. The recipes run as written in test/docs-recipes-local
// (cron, systemd, the GitHub plan step), -kubernetes, -actions and test/docs-s3-guide: files
// of their own, which vitest runs side by side (it runs the tests of one file in turn).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { reusedGoldFrom } from '../scripts/lib/thresholds-variant.ts';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { tempDir } from './helpers/tmp.ts';

const doc = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const guide = doc('docs/guides/scheduled-rebuilds.md');
const cliReference = doc('docs/reference/cli.md');
/** Every Markdown page a user reads: the README and docs/. */
const allDocs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]
  .map(doc)
  .join('\n');
const blocks = (lang: string) =>
  [...guide.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

describe('documentation recipes', () => {
  it('the YAML recipes parse and name real flags', () => {
    const yamls = blocks('yaml').map((y) => parse(y));
    const workflow = yamls.find((y) => y?.jobs);
    expect(
      workflow.jobs.shards.steps.some((s: { run?: string }) =>
        s.run?.includes('npx badgepress build --config site/config/badgepress.yaml --store s3://'),
      ),
    ).toBe(true);
    // The scan step comes first, sharded like the build.
    const scanStep = workflow.jobs.shards.steps.find((s: { run?: string }) =>
      s.run?.includes('npx badgepress'),
    );
    expect(scanStep?.run).toContain(
      'npx badgepress scan --config site/config/badgepress.yaml --repos site/config/repositories.txt --store s3://scans/values --shard ${{ matrix.shard }}/4',
    );
    // The workflow picks a maintained Node itself.
    for (const job of Object.values(workflow.jobs) as Array<{
      steps: Array<{ uses?: string; with?: { 'node-version'?: number } }>;
    }>) {
      expect([22, 24, 26]).toContain(
        job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))?.with?.['node-version'],
      );
    }
    // Every badgepress command of the YAML recipes reads the site's own config, not the checkout's demo one.
    for (const command of blocks('yaml')
      .join('\n')
      .match(/npx badgepress \w+ [^|\n]*/g)!)
      expect(command).toContain('--config site/config/badgepress.yaml');
    // The GitHub API answers 60 requests an hour without a token: the scan gets the workflow's.
    expect(scanStep?.env).toEqual({ GITHUB_TOKEN: '${{ secrets.GITHUB_TOKEN }}' });
    // The scheduler's own guard beside the lease, and the site step after every shard.
    expect(workflow.concurrency).toEqual({
      group: 'badgepress-publish',
      'cancel-in-progress': false,
    });
    expect(workflow.jobs.site.needs).toBe('shards');
    expect(
      workflow.jobs.site.steps.some((s: { run?: string }) =>
        s.run?.includes(
          `npx badgepress site --config site/config/badgepress.yaml --shards ${workflow.jobs.shards.strategy.matrix.shard.length}`,
        ),
      ),
    ).toBe(true);
    const crons = yamls.filter((y) => y?.kind === 'CronJob');
    expect(crons).toHaveLength(2);
    const [shards, site] = [
      crons.find((c) => c.spec.jobTemplate.spec.completionMode === 'Indexed'),
      crons.find((c) => c.spec.jobTemplate.spec.completionMode === undefined),
    ];
    expect(shards.spec.jobTemplate.spec.template.spec.containers[0].args[0]).toContain(
      '--shard "$JOB_COMPLETION_INDEX/4"',
    );
    expect(shards.spec.jobTemplate.spec.template.spec.initContainers[0].args[0]).toContain(
      'npx badgepress scan --config site/config/badgepress.yaml --repos site/config/repositories.txt --store s3://scans/values --shard "$JOB_COMPLETION_INDEX/4"',
    );
    expect(site.spec.jobTemplate.spec.template.spec.containers[0].args[0]).toContain(
      'npx badgepress site --config site/config/badgepress.yaml --shards 4 ',
    );
    for (const cron of crons) expect(cron.spec.concurrencyPolicy).toBe('Forbid');
  });

  it('every badgepress flag the README and docs/ use exists in the command usage', async () => {
    const { BUILD_USAGE } = await import('../src/commands/build.ts');
    const { PLAN_USAGE } = await import('../src/commands/plan.ts');
    const { SERVE_USAGE } = await import('../src/commands/serve.ts');
    const { SITE_USAGE } = await import('../src/commands/site.ts');
    const { SCAN_USAGE } = await import('../src/commands/scan.ts');
    const { DISCOVER_USAGE } = await import('../src/commands/discover.ts');
    const usage = `${BUILD_USAGE} ${PLAN_USAGE} ${SERVE_USAGE} ${SITE_USAGE} ${SCAN_USAGE} ${DISCOVER_USAGE} --help`;
    const used = new Set(
      [
        ...allDocs.matchAll(/npx badgepress (?:build|plan|serve|site|scan|discover)[^\n`]*/g),
      ].flatMap((m) => [...m[0].matchAll(/--[a-z0-9-]+/g)].map((f) => f[0])),
    );
    expect(used.size).toBeGreaterThan(5);
    for (const flag of used) expect(usage, flag).toContain(flag);
  });
});

const dir = tempDir();

describe('plan sample in docs/reference/cli.md', () => {
  it('is what plan prints for the store and threshold change it names', async () => {
    const sample = /```\n(badgepress plan: [^]*?)```/.exec(cliReference)?.[1];
    expect(sample).toBeDefined();
    expect(cliReference).toContain(
      "`npm run gen-store -- --repos 200 --scans 10` after moving REUSED's gold band\nfrom 20 to 21 dependents",
    );
    const store = join(dir, 'plan-sample-store');
    generateStore({ repos: 200, scans: 10, out: store, seed: 1 });
    const out = join(dir, 'plan-sample-site');
    // Built as the CLI builds (pages and openapi.json included: plan counts them too).
    expect(
      (await runCommand(['build', '--store', store, '--out', out, '--now', '1763600000'])).code,
    ).toBe(0);
    const r = await runCommand([
      'plan',
      '--config',
      reusedGoldFrom(join(dir, 'plan-sample-cfg'), 21),
      '--store',
      store,
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe(sample);
  }, 120_000);
});
