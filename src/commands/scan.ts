// `badgepress scan`: measure the repositories a file lists and append their records to a store.
import { performance } from 'node:perf_hooks';
import { parseFlags, integerFlag } from './args.ts';
import { UsageError } from '../errors.ts';
import { resolveFlags, CONFIG_FLAGS } from './setup.ts';
import { progressShown } from './progress.ts';
import { DEFAULT_SCAN } from '../config/defaults.ts';
import { ruleIdProblem } from '../config/validate.ts';
import type { ForgeFor } from '../measure/types.ts';
import { botPatternProblem } from '../model/bot-pattern.ts';
import {
  FORGE_RULE_IDS,
  GIT_RULE_IDS,
  isMeasuredRule,
  measuredRuleIds,
  RULE,
} from '../model/measured-rules.ts';
import { counted } from '../model/plural.ts';
import { parseShard, type Shard } from '../model/shard.ts';
import { runScan, type ScanListener, type ScanOutcome } from '../scan/run.ts';
import { listingProgress, sourceWarnings } from '../measure/forge/sources.ts';
import { flagSource } from './discover.ts';

export const SCAN_USAGE = `usage: badgepress scan [--repos FILE] [--source URL]… [--store DIR|s3://…] [--config FILE] [--mirrors DIR]
                      [--as-of UNIX|ISO] [--history monthly --since YYYY-MM] [--fetch always|never]
                      [--forge always|never] [--rules ID,…] [--concurrency N] [--shard i/n] [--bot-pattern REGEX]… [--bus-factor-months N]
                      [--json] [--wait SECONDS] [--s3-endpoint URL] [--s3-path-style]

FILE lists one repository URL a line (# comments), optionally followed by mirror=PATH.
--source URL (repeatable; else the config's sources:) adds every public repository of an organisation,
user, group or instance: see badgepress discover --help.
Exit codes: 0 scanned, 1 some repositories or lines failed (or a stored record lacks rules), 2 bad arguments or config (nothing
fetched), 4 the store failed, 5 another scan holds the store (of the whole list, the same shard, or another n).`;

/** `scan --help`: the synopsis, then what each flag does and its default. */
export const SCAN_HELP = `${SCAN_USAGE}

Measures the repositories FILE lists, from git (and the forge's API where the host has one),
and appends one record per repository and scan time to the store.

  --repos FILE              the repositories to measure (required without a source)
  --source URL              an organisation, user, group or instance whose public repositories
                            are measured too (repeatable); default: sources: in the config
  --store DIR|s3://…        where records are appended; default: store: in the config
  --config FILE             site settings (YAML): its scan: and hosts: sections, the thresholds;
                            default ./config/badgepress.yaml, else the packaged one
  --mirrors DIR             where the blobless mirrors are kept; default: scan.mirrors
  --as-of UNIX|ISO          the scan time: Unix seconds, a date (midnight UTC) or an ISO time
                            with its zone; default: now, to the second. A repository already
                            holding a record at that time gets none and is not fetched
  --history monthly         also write one record per month start from --since up to the scan time
  --since YYYY-MM           the first month --history writes
  --fetch always|never      never: read the mirrors as they are and ask no server; default always
  --forge always|never      never: measure by git alone, asking no forge API or dependency
                            index (the forge rules are not asked); default always
  --rules ID,…              measure only these rules; default: every rule it can measure, of
                            ${[...GIT_RULE_IDS, ...FORGE_RULE_IDS].sort().join(', ')}
  --concurrency N           repositories measured at once; default: scan.concurrency (${DEFAULT_SCAN.concurrency})
  --shard i/n               only the repositories "badgepress build --shard i/n" builds
  --bot-pattern REGEX       one more bot (a regular expression on the name and e-mail), beside
                            scan.botPatterns; repeatable
  --bus-factor-months N     the months of commits ${RULE.busFactor.id} counts; default: scan.busFactorMonths (${DEFAULT_SCAN.busFactorMonths})
  --json                    print the summary as one JSON object
  --wait SECONDS            wait up to SECONDS (0-86400) for another scan's lease on the store
                            before exiting 5; default 0
  --s3-endpoint URL         the endpoint of an S3-compatible store (MinIO, R2, Ceph)
  --s3-path-style           address buckets in the path, not the host name

Every flag and rule: https://github.com/badgepress/badgepress/blob/main/docs/reference/scan.md`;

export const SCAN_FLAGS = {
  config: CONFIG_FLAGS.config,
  store: CONFIG_FLAGS.store,
  's3-endpoint': CONFIG_FLAGS['s3-endpoint'],
  's3-path-style': CONFIG_FLAGS['s3-path-style'],
  repos: { type: 'string' },
  source: { type: 'string', multiple: true },
  mirrors: { type: 'string' },
  'as-of': { type: 'string' },
  history: { type: 'string' },
  since: { type: 'string' },
  fetch: { type: 'string' },
  forge: { type: 'string' },
  rules: { type: 'string' },
  concurrency: { type: 'string' },
  shard: { type: 'string' },
  'bot-pattern': { type: 'string', multiple: true },
  'bus-factor-months': { type: 'string' },
  json: { type: 'boolean' },
  wait: { type: 'string' },
} as const;

/** Unix seconds, or an ISO 8601 date or time (a time must name its zone: Z or ±hh:mm). */
function parseAsOf(text: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const zoned = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text);
  const ms = dateOnly || zoned ? Date.parse(dateOnly ? `${text}T00:00:00Z` : text) : NaN;
  if (Number.isNaN(ms) || ms < 0)
    throw new UsageError(
      `--as-of ${JSON.stringify(text)}: expected Unix seconds or ISO 8601 with a zone, e.g. 2026-11-01 or 2026-11-01T00:00:00Z`,
    );
  return Math.floor(ms / 1000);
}

function parseMonth(text: string): number {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(text);
  if (!m)
    throw new UsageError(
      `--since ${JSON.stringify(text)}: expected a month, YYYY-MM, e.g. 2024-01`,
    );
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, 1) / 1000;
}

/**
 * The rules nothing measured, grouped by why: a rule badgepress does not measure (the
 * thresholds judge it: another scanner writes it), and forge rules when no repository got as
 * far as its host's forge (none was scanned, or each failed before). A host without a forge
 * API, like the dependents rule without `dependents:`, is no such why: its rules are not
 * asked, and the records and the summary's "not asked" say why.
 */
function unmeasuredWhy(ids: readonly string[]): string {
  const why = (id: string) =>
    !isMeasuredRule(id)
      ? 'badgepress does not measure them; another scanner writes them'
      : "no scanned repository got as far as its host's forge API";
  const groups = new Map<string, string[]>();
  for (const id of ids) groups.set(why(id), [...(groups.get(why(id)) ?? []), id]);
  return [...groups].map(([reason, group]) => `${group.join(', ')} (${reason})`).join('; ');
}

type ScanValues = ReturnType<typeof parseFlags<typeof SCAN_FLAGS>>['values'];

/** The flags that need no config, checked: a bad one throws before anything is read or fetched. */
function checkedFlags(v: ScanValues) {
  const asOf = v['as-of'] === undefined ? Math.floor(Date.now() / 1000) : parseAsOf(v['as-of']);
  if (v.history !== undefined && v.history !== 'monthly')
    throw new UsageError(`--history ${JSON.stringify(v.history)}: the only history is monthly`);
  if ((v.history === undefined) !== (v.since === undefined))
    throw new UsageError('--history monthly and --since YYYY-MM go together');
  const since = v.since === undefined ? undefined : parseMonth(v.since);
  if (since !== undefined && since > asOf)
    throw new UsageError(`--since ${v.since} is after --as-of: nothing to backfill`);
  const fetch = v.fetch ?? 'always';
  if (fetch !== 'always' && fetch !== 'never')
    throw new UsageError(`--fetch ${JSON.stringify(fetch)}: expected always or never`);
  const forge = v.forge ?? 'always';
  if (forge !== 'always' && forge !== 'never')
    throw new UsageError(
      `--forge ${JSON.stringify(forge)}: expected always or never (never: git alone, no forge API asked)`,
    );
  const concurrency = integerFlag('concurrency', v.concurrency, 1, 256);
  const busFactorMonths = integerFlag('bus-factor-months', v['bus-factor-months'], 1, 1200);
  const waitSeconds = integerFlag('wait', v.wait, 0, 86_400) ?? 0;
  const parsedShard = v.shard === undefined ? undefined : parseShard(v.shard);
  if (parsedShard && 'problem' in parsedShard)
    throw new UsageError(`--shard ${JSON.stringify(v.shard)}: ${parsedShard.problem}`);
  const shard = parsedShard as Shard | undefined;
  for (const p of v['bot-pattern'] ?? []) {
    const problem = botPatternProblem(p);
    if (problem) throw new UsageError(`--bot-pattern ${JSON.stringify(p)}: ${problem}`);
  }
  const asked = askedRules(v.rules);
  return {
    asOf,
    since,
    fetch,
    forge,
    concurrency,
    busFactorMonths,
    waitSeconds,
    shard,
    asked,
  } as const;
}

/** The rule ids `--rules` names, each one badgepress scan measures; undefined without the flag. */
function askedRules(flag: string | undefined): string[] | undefined {
  if (flag === undefined) return undefined;
  const asked = flag
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const known = measuredRuleIds({ dependents: true }).sort();
  for (const r of asked) {
    const problem = ruleIdProblem(r);
    if (problem) throw new UsageError(`--rules ${JSON.stringify(r)}: ${problem}`);
    if (!known.includes(r))
      throw new UsageError(
        `--rules ${JSON.stringify(r)}: no rule badgepress scan measures has this id; it measures ${known.join(', ')} (ids are case-sensitive)`,
      );
  }
  if (asked.length === 0)
    throw new UsageError(
      `--rules: name at least one rule id, e.g. --rules ${RULE.commits.id},${RULE.busFactor.id}`,
    );
  return asked;
}

/** `forgeFor`: the forge adapters (default: the config's `hosts:` and the known forges). */
export async function scanCommand(argv: string[], forgeFor?: ForgeFor): Promise<number> {
  const { values: v } = parseFlags(argv, SCAN_FLAGS, SCAN_USAGE);
  const started = performance.now();
  const { asOf, since, fetch, forge, concurrency, busFactorMonths, waitSeconds, shard, asked } =
    checkedFlags(v);

  const config = await resolveFlags(v);
  const { settings } = config;
  const sources =
    v.source !== undefined ? v.source.map((u) => flagSource(u, '--source')) : settings.sources;
  if (v.repos === undefined && sources.length === 0)
    throw new UsageError(
      `--repos FILE or a source is required: a file with one repository URL a line, --source URL, or sources: in the config\n${SCAN_USAGE}`,
    );
  if (fetch === 'never' && sources.length > 0) {
    throw new UsageError(
      `--fetch never asks no server, and a source is listed through its forge's API: give --repos FILE instead (badgepress discover writes one), or leave --fetch never out`,
    );
  }
  for (const w of sourceWarnings(sources)) process.stderr.write(`badgepress: warning: ${w}\n`);
  if (v.mirrors !== undefined) settings.scan.mirrors = v.mirrors;
  if (concurrency !== undefined) settings.scan.concurrency = concurrency;
  if (busFactorMonths !== undefined) settings.scan.busFactorMonths = busFactorMonths;

  const progress = progressShown(process.stderr);
  let outcome;
  try {
    outcome = await runScan({
      config,
      ...(v.repos === undefined ? {} : { reposFile: v.repos }),
      sources,
      asOf,
      ...(since === undefined ? {} : { since }),
      fetch,
      forge,
      ...(asked ? { asked } : {}),
      botPatterns: v['bot-pattern'] ?? [],
      ...(shard ? { shard } : {}),
      waitSeconds,
      ...(forgeFor ? { forgeFor } : {}),
      listener: stderrListener(progress),
    });
  } finally {
    if (progress) process.stderr.write('\r\x1b[K');
  }
  const { summary, listProblems } = outcome;
  const seconds = Number(((performance.now() - started) / 1000).toFixed(2));
  const exitCode = summary.failed > 0 || summary.incomplete > 0 || listProblems > 0 ? 1 : 0;
  if (v.json) {
    process.stdout.write(
      `${JSON.stringify({ ...summary, listProblems, ...(outcome.sources ? { sources: outcome.sources } : {}), seconds, store: outcome.location, shard: v.shard ?? null, asOf, exitCode })}\n`,
    );
    return exitCode;
  }
  process.stdout.write(summaryLine(outcome, seconds));
  return exitCode;
}

/** What the scan tells stderr as it runs: problems, warnings and, on a terminal, its progress line. */
function stderrListener(progress: boolean): ScanListener {
  let drawn = 0;
  // At most ten redraws a second, and the last one.
  const onProgress = (done: number, total: number) => {
    const now = Date.now();
    if (done < total && now - drawn < 100) return;
    drawn = now;
    process.stderr.write(`\r\x1b[Kscan: ${done}/${total} repositories`);
  };
  return {
    listProblem: (p) => process.stderr.write(`badgepress: ${p}\n`),
    report: (line) => process.stderr.write(`${progress ? '\r\x1b[K' : ''}badgepress: ${line}\n`),
    warn: (m) => process.stderr.write(`badgepress: warning: ${m}\n`),
    ...(progress ? { onProgress, onListed: listingProgress(process.stderr, true) } : {}),
  };
}

/** The one line a scan without --json prints: what it measured, wrote, skipped and why. */
function summaryLine(outcome: ScanOutcome, seconds: number): string {
  const { summary, listProblems } = outcome;
  const unmeasured =
    summary.unmeasured.length > 0 ? `; not measured: ${unmeasuredWhy(summary.unmeasured)}` : '';
  const notAsked =
    summary.notAsked.length > 0
      ? `; not asked: ${summary.notAsked.map((n) => `${n.rules.join(', ')} (${n.why})`).join('; ')}`
      : '';
  const [one, many, what] = outcome.sources
    ? ['list line or source', 'list lines or sources', 'failed']
    : ['list line', 'list lines', 'skipped'];
  const skipped = listProblems > 0 ? `, ${counted(listProblems, one, many)} ${what}` : '';
  const listedBySources = outcome.sources
    ? ` (${outcome.sources.repositories} from sources, ${outcome.sources.requests} requests)`
    : '';
  const incomplete =
    summary.incomplete > 0 ? `, ${summary.incomplete} stored with fewer rules` : '';
  return (
    `badgepress scan: ${counted(summary.repositories, 'repository', 'repositories')}${listedBySources}, ${summary.measured} measured, ${summary.upToDate} already stored, ` +
    `${counted(summary.records, 'record', 'records')} written, ${summary.failed} failed${incomplete}${skipped}, ${seconds} s → ${outcome.location}${unmeasured}${notAsked}\n`
  );
}
