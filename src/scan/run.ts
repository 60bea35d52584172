// A scan from start to end: the list of repositories read, the store opened, its lease held,
// the rules chosen from the thresholds, every repository measured, and everything closed again
// however it ends. `badgepress scan` turns argv into these options, calls runScan once, and
// prints what it returns.
import { mkdir, readFile } from 'node:fs/promises';
import { judgedRules, type ResolvedConfig } from '../config/resolve.ts';
import type { Settings } from '../config/types.ts';
import { UsageError } from '../errors.ts';
import { forgeFor as forgesOf, noneAsked } from '../measure/forge/index.ts';
import { parseTargets } from '../measure/targets.ts';
import type { ForgeFor } from '../measure/types.ts';
import { measuredRuleIds } from '../model/measured-rules.ts';
import { inShard, type Shard } from '../model/shard.ts';
import { isS3, parseS3Location } from '../s3/location.ts';
import { DirectoryStoreWriter, type StoreWriter } from '../store/writer.ts';
import { holdScanLease } from './lease.ts';
import { monthStarts, type ScanSummary, scan } from './scan.ts';

/** What a command hears while a scan runs. */
export interface ScanListener {
  /** A line of the repository list that names no repository (said once, by shard 0 of n). */
  listProblem(problem: string): void;
  /** A repository's problem, once, as it happens. */
  report(line: string): void;
  warn(message: string): void;
  onProgress?: (done: number, total: number) => void;
}

export interface ScanRun {
  /** The resolved config; its `settings.scan` already holds the command's overrides. */
  config: ResolvedConfig;
  /** The file that lists the repositories (--repos). */
  reposFile: string;
  /** Unix seconds the scan is as of. */
  asOf: number;
  /** Backfill month starts from this Unix time (--history monthly --since). */
  since?: number;
  fetch: 'always' | 'never';
  /** --forge: `never` measures by git alone (no forge API, no dependency index); default always. */
  forge?: 'always' | 'never';
  /** --rules; undefined: every rule badgepress can measure, and those the thresholds judge. */
  asked?: readonly string[];
  botPatterns: readonly string[];
  shard?: Shard;
  /** Keep trying this long (seconds) while another scan holds the store (--wait). */
  waitSeconds?: number;
  /** The forge adapters (default: the config's `hosts:` and the known forges). */
  forgeFor?: ForgeFor;
  listener: ScanListener;
}

export interface ScanOutcome {
  summary: ScanSummary;
  /** Lines of the list that named no repository (0 on shards other than 0). */
  listProblems: number;
  /** Where the records went. */
  location: string;
}

async function openWriter(settings: Settings): Promise<StoreWriter> {
  if (!isS3(settings.store)) {
    await mkdir(settings.store, { recursive: true }).catch((err: unknown) => {
      throw new UsageError(`--store ${settings.store}: cannot create the directory (${(err as NodeJS.ErrnoException).code}); name a writable directory`);
    });
    return new DirectoryStoreWriter(settings.store);
  }
  const loc = parseS3Location(settings.store);
  if (!loc) throw new UsageError(`--store ${JSON.stringify(settings.store)}: expected s3://bucket/prefix with a valid bucket name`);
  const [{ S3StoreWriter }, { s3Client }] = await Promise.all([import('../store/s3-writer.ts'), import('../s3/client.ts')]);
  return new S3StoreWriter(s3Client(settings.s3), loc);
}

export async function runScan(run: ScanRun): Promise<ScanOutcome> {
  const { config, listener, shard } = run;
  const { settings } = config;
  const judged = judgedRules(config.thresholds);
  // By default every rule badgepress can measure, whatever the thresholds judge today: a rule
  // added to a badge later finds its values in past scans.
  const rules = new Set(run.asked ?? [...measuredRuleIds({ dependents: settings.dependents !== undefined }), ...judged.ids.filter((id) => !id.startsWith('MANUAL/'))]);

  let text: string;
  try {
    text = await readFile(run.reposFile, 'utf8');
  } catch (err) {
    throw new UsageError(`--repos ${run.reposFile}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); name a file with one repository URL a line`);
  }
  const parsed = parseTargets(text, run.reposFile);
  // A bad line belongs to no shard: shard 0 reports it, so n shards report it once.
  const listProblems = !shard || shard.index === 0 ? parsed.problems : [];
  for (const p of listProblems) listener.listProblem(p);
  const targets = shard ? parsed.targets.filter((t) => inShard(shard)(t.url)) : parsed.targets;

  const writer = await openWriter(settings);
  let lease;
  try {
    lease = await holdScanLease(writer, shard, { waitSeconds: run.waitSeconds ?? 0, onLost: listener.warn, onWarning: listener.warn, conditionalWrites: settings.s3.conditionalWrites ?? 'required' });
  } catch (err) {
    await writer.close();
    throw err;
  }
  // No server asked: the forge rules are null as not asked, never failures.
  const forges = run.forgeFor ?? forgesOf({ hosts: settings.hosts, ...(settings.dependents ? { dependents: settings.dependents } : {}), gitTokens: settings.scan.tokens }, process.env);
  const off = run.fetch === 'never' ? '--fetch never asks no server' : run.forge === 'never' ? '--forge never (git alone)' : undefined;
  let summary: ScanSummary;
  try {
    summary = await scan({
      targets,
      writer,
      asOf: run.asOf,
      ...(run.since === undefined ? {} : { historyTimes: monthStarts(run.since, run.asOf) }),
      fetch: run.fetch,
      rules,
      settings: settings.scan,
      botPatterns: run.botPatterns,
      windowMonths: judged.windowMonths,
      forgeFor: off ? noneAsked(forges, off) : forges,
      report: listener.report,
      ...(listener.onProgress ? { onProgress: listener.onProgress } : {}),
    });
  } finally {
    await lease.release();
    await writer.close();
  }
  // Only rules someone asks for or judges are worth a word when nothing measured them (a
  // repository on a host without a forge API leaves the forge rules out, as it should).
  const wanted = new Set(run.asked ?? judged.ids);
  summary.unmeasured = summary.unmeasured.filter((id) => wanted.has(id));
  return { summary, listProblems: listProblems.length, location: writer.location };
}
