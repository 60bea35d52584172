import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from './helpers/cli.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const blocks = (lang: string) => [...readme.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

describe('README recipes', () => {
  it('the YAML recipes parse and name real flags', () => {
    const yamls = blocks('yaml').map((y) => parse(y));
    const workflow = yamls.find((y) => y?.jobs);
    expect(workflow.jobs.publish.steps.some((s: { run?: string }) => s.run?.includes('npx badgepress build --store s3://'))).toBe(true);
    const cron = yamls.find((y) => y?.kind === 'CronJob');
    expect(cron.spec.jobTemplate.spec.completionMode).toBe('Indexed');
    expect(cron.spec.jobTemplate.spec.template.spec.containers[0].args[0]).toContain('--shard "$JOB_COMPLETION_INDEX/4"');
  });

  it('every badgepress flag the README uses exists in the command usage', async () => {
    const { BUILD_USAGE } = await import('../src/commands/build.ts');
    const { PLAN_USAGE } = await import('../src/commands/plan.ts');
    const { SERVE_USAGE } = await import('../src/commands/serve.ts');
    const usage = `${BUILD_USAGE} ${PLAN_USAGE} ${SERVE_USAGE} --help`;
    const used = new Set([...readme.matchAll(/npx badgepress (?:build|plan|serve)[^\n`]*/g)].flatMap((m) => [...m[0].matchAll(/--[a-z0-9-]+/g)].map((f) => f[0])));
    expect(used.size).toBeGreaterThan(5);
    for (const flag of used) expect(usage, flag).toContain(flag);
  });
});
