// `badgepress plan`: what a build under the current thresholds would change, writing nothing.
// Exit 0 no change, 3 changes (like terraform plan -detailed-exitcode), 2 errors.
import { formatPlan } from '../publish/plan.ts';
import { formatPlanMarkdown } from '../publish/plan-markdown.ts';
import { integerFlag, parseFlags } from './args.ts';
import { UsageError } from '../errors.ts';
import { shardLoadOptions } from './build.ts';
import { runPlan } from '../pipeline/run.ts';
import { issuePrinter } from './report.ts';
import { CONFIG_FLAGS, resolveFlags } from './setup.ts';

export const PLAN_USAGE = `usage: badgepress plan [--config FILE] [--store DIR|s3://…] [--out DIR|s3://…] [--shape A|B]
                      [--base-url URL] [--now UNIX] [--shard i/n] [--force] [--json | --format text|json|markdown]
                      [--s3-endpoint URL] [--s3-path-style]`;

const FORMATS = ['text', 'json', 'markdown'] as const;

export async function planCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    argv,
    {
      ...CONFIG_FLAGS,
      shard: { type: 'string' },
      force: { type: 'boolean' },
      json: { type: 'boolean' },
      format: { type: 'string' },
    },
    PLAN_USAGE,
  );
  const format = values.format ?? (values.json ? 'json' : 'text');
  if (!(FORMATS as readonly string[]).includes(format) || (values.json && format !== 'json')) {
    throw new UsageError(
      `--format must be one of ${FORMATS.join(', ')} (--json is --format json); got ${JSON.stringify(values.format)}`,
    );
  }
  const now = integerFlag('now', values.now) ?? Math.floor(Date.now() / 1000);
  const sharding = shardLoadOptions(values.shard);
  const config = await resolveFlags(values);
  const printer = issuePrinter(process.stderr);
  const plan = await runPlan({
    config,
    now,
    sharding,
    force: values.force ?? false,
    listener: {
      issue: printer.print,
      flushIssues: printer.flush,
      warn: (m) => process.stderr.write(`badgepress: warning: ${m}\n`),
    },
  });
  process.stdout.write(
    `${format === 'json' ? JSON.stringify(plan) : format === 'markdown' ? formatPlanMarkdown(plan) : formatPlan(plan)}\n`,
  );
  return plan.added + plan.changed + plan.removed > 0 ? 3 : 0;
}
