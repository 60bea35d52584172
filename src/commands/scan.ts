// `badgepress scan`: measure the repositories a file lists and append their records to a store.
import { mkdir, readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { parseFlags, integerFlag, UsageError } from './args.ts';
import { loadSite, SITE_FLAGS } from './setup.ts';
import { progressShown } from './progress.ts';
import type { ShapeThresholds } from '../config/resolve.ts';
import { ruleIdProblem } from '../config/validate.ts';
import type { SiteConfig } from '../config/types.ts';
import { acquireLease } from '../io/lease.ts';
import { parseTargets } from '../measure/targets.ts';
import type { ForgeFor } from '../measure/types.ts';
import { botPatternProblem } from '../model/bot-pattern.ts';
import { FORGE_RULE_IDS, GIT_RULE_IDS } from '../model/measured-rules.ts';
import { plural } from '../model/plural.ts';
import { inShard, parseShard, type Shard } from '../model/shard.ts';
import { isS3, parseS3Location } from '../s3/location.ts';
import { monthStarts, scan } from '../scan/scan.ts';
import { forgeFor as forgesOf } from '../measure/forge/index.ts';
import { DirectoryStoreWriter, scanLeaseKey, type StoreWriter } from '../store/writer.ts';

export const SCAN_USAGE = `usage: badgepress scan --repos FILE [--store DIR|s3://…] [--config FILE] [--mirrors DIR]
                      [--as-of UNIX|ISO] [--history monthly --since YYYY-MM] [--fetch always|never]
                      [--rules ID,…] [--concurrency N] [--shard i/n] [--bot-pattern REGEX]… [--bus-factor-months N]
                      [--json] [--s3-endpoint URL] [--s3-path-style]

FILE lists one repository URL a line (# comments), optionally followed by mirror=PATH.
Exit codes: 0 scanned, 1 some repositories or lines failed, 2 bad arguments or config (nothing
fetched), 4 the store failed, 5 another scan holds the store.`;

const FLAGS = {
  config: SITE_FLAGS.config,
  store: SITE_FLAGS.store,
  's3-endpoint': SITE_FLAGS['s3-endpoint'],
  's3-path-style': SITE_FLAGS['s3-path-style'],
  repos: { type: 'string' },
  mirrors: { type: 'string' },
  'as-of': { type: 'string' },
  history: { type: 'string' },
  since: { type: 'string' },
  fetch: { type: 'string' },
  rules: { type: 'string' },
  concurrency: { type: 'string' },
  shard: { type: 'string' },
  'bot-pattern': { type: 'string', multiple: true },
  'bus-factor-months': { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** Unix seconds, or an ISO 8601 date or time (a time must name its zone: Z or ±hh:mm). */
export function parseAsOf(text: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const zoned = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text);
  const ms = dateOnly || zoned ? Date.parse(dateOnly ? `${text}T00:00:00Z` : text) : NaN;
  if (Number.isNaN(ms) || ms < 0) throw new UsageError(`--as-of ${JSON.stringify(text)}: expected Unix seconds or ISO 8601 with a zone, e.g. 2026-11-01 or 2026-11-01T00:00:00Z`);
  return Math.floor(ms / 1000);
}

function parseMonth(text: string): number {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(text);
  if (!m) throw new UsageError(`--since ${JSON.stringify(text)}: expected a month, YYYY-MM, e.g. 2024-01`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, 1) / 1000;
}

/** Each rule's window in months, and the rule ids the active thresholds judge by measurement. */
function thresholdRules(thresholds: ShapeThresholds): { windowMonths: Record<string, number>; ids: string[] } {
  const windowMonths: Record<string, number> = {};
  const ids: string[] = [];
  if (thresholds.shape === 'A') {
    for (const r of thresholds.t.rules) {
      ids.push(r.id);
      if (r.type === 'numeric' && r.timeRangeInMonths !== undefined) windowMonths[r.id] = r.timeRangeInMonths;
    }
  } else {
    for (const r of thresholds.t.rules) {
      if (r.manual) continue;
      ids.push(r.id);
      if (r.threshold.timeRangeInMonths !== undefined) windowMonths[r.id] = r.threshold.timeRangeInMonths;
    }
  }
  return { windowMonths, ids };
}

async function openWriter(site: SiteConfig): Promise<StoreWriter> {
  if (!isS3(site.store)) {
    await mkdir(site.store, { recursive: true }).catch((err: unknown) => {
      throw new UsageError(`--store ${site.store}: cannot create the directory (${(err as NodeJS.ErrnoException).code}); name a writable directory`);
    });
    return new DirectoryStoreWriter(site.store);
  }
  const loc = parseS3Location(site.store);
  if (!loc) throw new UsageError(`--store ${JSON.stringify(site.store)}: expected s3://bucket/prefix with a valid bucket name`);
  const [{ S3StoreWriter }, { s3Client }] = await Promise.all([import('../store/s3-writer.ts'), import('../s3/client.ts')]);
  return new S3StoreWriter(s3Client(site.s3), loc);
}

/** `forgeFor`: the forge adapters (default: the config's `hosts:` and the known forges). */
export async function scanCommand(argv: string[], forgeFor?: ForgeFor): Promise<number> {
  const { values: v } = parseFlags(argv, FLAGS, SCAN_USAGE);
  const started = performance.now();
  if (v.repos === undefined) throw new UsageError(`--repos FILE is required: a file with one repository URL a line\n${SCAN_USAGE}`);
  const asOf = v['as-of'] === undefined ? Math.floor(Date.now() / 1000) : parseAsOf(v['as-of']);
  if (v.history !== undefined && v.history !== 'monthly') throw new UsageError(`--history ${JSON.stringify(v.history)}: the only history is monthly`);
  if ((v.history === undefined) !== (v.since === undefined)) throw new UsageError('--history monthly and --since YYYY-MM go together');
  const since = v.since === undefined ? undefined : parseMonth(v.since);
  if (since !== undefined && since > asOf) throw new UsageError(`--since ${v.since} is after --as-of: nothing to backfill`);
  const fetch = v.fetch ?? 'always';
  if (fetch !== 'always' && fetch !== 'never') throw new UsageError(`--fetch ${JSON.stringify(fetch)}: expected always or never`);
  const concurrency = integerFlag('concurrency', v.concurrency, 1, 256);
  const busFactorMonths = integerFlag('bus-factor-months', v['bus-factor-months'], 1, 1200);
  const parsedShard = v.shard === undefined ? undefined : parseShard(v.shard);
  if (parsedShard && 'problem' in parsedShard) throw new UsageError(`--shard ${JSON.stringify(v.shard)}: ${parsedShard.problem}`);
  const shard = parsedShard as Shard | undefined;
  for (const p of v['bot-pattern'] ?? []) {
    const problem = botPatternProblem(p);
    if (problem) throw new UsageError(`--bot-pattern ${JSON.stringify(p)}: ${problem}`);
  }
  const asked =
    v.rules === undefined
      ? undefined
      : v.rules
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean);
  for (const r of asked ?? []) {
    const problem = ruleIdProblem(r);
    if (problem) throw new UsageError(`--rules ${JSON.stringify(r)}: ${problem}`);
  }
  if (asked?.length === 0) throw new UsageError('--rules: name at least one rule id, e.g. --rules COMMITS,BUS_FACTOR');

  const config = await loadSite(v);
  const { site } = config;
  if (v.mirrors !== undefined) site.scan.mirrors = v.mirrors;
  if (concurrency !== undefined) site.scan.concurrency = concurrency;
  if (busFactorMonths !== undefined) site.scan.busFactorMonths = busFactorMonths;
  const judged = thresholdRules(config.thresholds);
  // By default every rule badgepress can measure, whatever the thresholds judge today: a rule
  // added to a badge later finds its values in past scans.
  const measurable = [...GIT_RULE_IDS, ...FORGE_RULE_IDS.filter((id) => id !== 'DEPENDENTS' || site.dependents)];
  const rules = new Set(asked ?? [...measurable, ...judged.ids.filter((id) => !id.startsWith('MANUAL/'))]);

  let text: string;
  try {
    text = await readFile(v.repos, 'utf8');
  } catch (err) {
    throw new UsageError(`--repos ${v.repos}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); name a file with one repository URL a line`);
  }
  const parsed = parseTargets(text, v.repos);
  // A bad line belongs to no shard: shard 0 reports it, so n shards report it once.
  const list = { targets: parsed.targets, problems: !shard || shard.index === 0 ? parsed.problems : [] };
  for (const p of list.problems) process.stderr.write(`badgepress: ${p}\n`);
  const targets = shard ? list.targets.filter((t) => inShard(shard)(t.url)) : list.targets;

  const writer = await openWriter(site);
  let lease;
  try {
    const warn = (m: string) => process.stderr.write(`badgepress: warning: ${m}\n`);
    lease = await acquireLease(writer.leaseStore(scanLeaseKey(shard)), { holderKind: 'scan', onLost: warn, onWarning: warn, conditionalWrites: site.s3.conditionalWrites ?? 'required' });
  } catch (err) {
    await writer.close();
    throw err;
  }
  const progress = progressShown(process.stderr);
  let drawn = 0;
  // At most ten redraws a second, and the last one.
  const onProgress = (done: number, total: number) => {
    const now = Date.now();
    if (done < total && now - drawn < 100) return;
    drawn = now;
    process.stderr.write(`\r\x1b[Kscan: ${done}/${total} repositories`);
  };
  let summary;
  try {
    summary = await scan({
      targets,
      writer,
      asOf,
      ...(since === undefined ? {} : { historyTimes: monthStarts(since, asOf) }),
      fetch,
      rules,
      settings: site.scan,
      botPatterns: v['bot-pattern'] ?? [],
      windowMonths: judged.windowMonths,
      forgeFor: forgeFor ?? forgesOf({ hosts: site.hosts, ...(site.dependents ? { dependents: site.dependents } : {}), gitTokens: site.scan.tokens }, process.env),
      report: (line) => process.stderr.write(`${progress ? '\r\x1b[K' : ''}badgepress: ${line}\n`),
      ...(progress ? { onProgress } : {}),
    });
  } finally {
    if (progress) process.stderr.write('\r\x1b[K');
    await lease.release();
    await writer.close();
  }
  // Only rules someone asks for or judges are worth a word when nothing measured them (a
  // repository on a host without a forge API leaves the forge rules out, as it should).
  const wanted = new Set(asked ?? judged.ids);
  summary.unmeasured = summary.unmeasured.filter((id) => wanted.has(id));
  const seconds = Number(((performance.now() - started) / 1000).toFixed(2));
  const exitCode = summary.failed > 0 || list.problems.length > 0 ? 1 : 0;
  if (v.json) {
    process.stdout.write(`${JSON.stringify({ ...summary, listProblems: list.problems.length, seconds, store: writer.location, shard: v.shard ?? null, asOf, exitCode })}\n`);
    return exitCode;
  }
  const unmeasured = summary.unmeasured.length > 0 ? `; not measured (no forge adapter answers them): ${summary.unmeasured.join(', ')}` : '';
  const skipped = list.problems.length > 0 ? `, ${plural(list.problems.length, 'list line', 'list lines')} skipped` : '';
  process.stdout.write(
    `badgepress scan: ${plural(summary.repositories, 'repository', 'repositories')}, ${summary.measured} measured, ${summary.upToDate} already stored, ` +
      `${plural(summary.records, 'record', 'records')} written, ${summary.failed} failed${skipped}, ${seconds} s → ${writer.location}${unmeasured}\n`,
  );
  return exitCode;
}
