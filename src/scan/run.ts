// A scan from start to end: the list of repositories read, the store opened, its lease held,
// the rules chosen from the thresholds, every repository measured, and everything closed again
// however it ends. `badgepress scan` turns argv into these options, calls runScan once, and
// prints what it returns.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { DirectoryStore, type StoreSource } from '../load/store.ts';
import type { ListedTarget } from '../measure/targets.ts';
import { storeFileName } from '../store/record-line.ts';
import { judgedRules, type ResolvedConfig } from '../config/resolve.ts';
import type { Settings, SourceSetting } from '../config/types.ts';
import { discoverSources, type Discovery } from '../measure/forge/sources.ts';
import { UsageError } from '../errors.ts';
import { dependentsNotAsked, measurersFor } from '../measure/index.ts';
import { noneAsked } from '../measure/not-asked.ts';
import { parseTargets } from '../measure/targets.ts';
import type { ForgeFor } from '../measure/types.ts';
import { measuredRuleIds, RULE } from '../model/measured-rules.ts';
import { inShard, type Shard } from '../model/shard.ts';
import { isS3, parseS3Location } from '../s3/location.ts';
import { DirectoryStoreWriter, type StoreWriter } from '../store/writer.ts';
import type { Lease } from '../io/lease.ts';
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
  /** The sources' listing: repositories kept so far, and once more when it ends. */
  onListed?: (kept: number, done: boolean) => void;
}

export interface ScanRun {
  /** The resolved config; its `settings.scan` already holds the command's overrides. */
  config: ResolvedConfig;
  /** The file that lists the repositories (--repos); with sources, it may be left out. */
  reposFile?: string;
  /** Organisations, groups and instances listed beside the file (`--source`, else the config's `sources:`). */
  sources?: readonly SourceSetting[];
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
  /** Lines of the list that named no repository, and sources that failed (0 on shards other than 0). */
  listProblems: number;
  /** What the sources listed (undefined without sources). */
  sources?: {
    repositories: number;
    moved: Discovery['moved'];
    left: Discovery['left'];
    requests: number;
  };
  /** Where the records went. */
  location: string;
}

async function openWriter(settings: Settings): Promise<StoreWriter> {
  if (!isS3(settings.store)) {
    await mkdir(settings.store, { recursive: true }).catch((err: unknown) => {
      throw new UsageError(
        `--store ${settings.store}: cannot create the directory (${(err as NodeJS.ErrnoException).code}); name a writable directory`,
      );
    });
    return new DirectoryStoreWriter(settings.store);
  }
  const loc = parseS3Location(settings.store);
  if (!loc)
    throw new UsageError(
      `--store ${JSON.stringify(settings.store)}: expected s3://bucket/prefix with a valid bucket name`,
    );
  const [{ S3StoreWriter }, { s3Client }] = await Promise.all([
    import('../store/s3-writer.ts'),
    import('../s3/client.ts'),
  ]);
  return new S3StoreWriter(s3Client(settings.s3), loc);
}

export async function runScan(run: ScanRun): Promise<ScanOutcome> {
  const { config, listener } = run;
  const { settings } = config;
  const judged = judgedRules(config.thresholds);
  // By default every rule badgepress can measure, whatever the thresholds judge today: a rule
  // added to a badge later finds its values in past scans.
  const rules = new Set(
    run.asked ?? [
      ...measuredRuleIds({ dependents: settings.dependents !== undefined }),
      ...judged.ids.filter((id) => !id.startsWith('MANUAL/')),
    ],
  );

  const { targets, listProblems, found } = await listTargets(run, settings);

  const { writer, lease } = await leasedWriter(run, settings);
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
      forgeFor: forgesAsked(run, settings, rules),
      report: listener.report,
      ...(listener.onProgress ? { onProgress: listener.onProgress } : {}),
    });
  } finally {
    await lease.release();
    await writer.close();
  }
  // Only rules someone asks for or judges are worth a word, whether nothing measured them or
  // they were not asked (the records hold those null with why: thresholds judging one later
  // find the cause).
  const wanted = new Set(run.asked ?? judged.ids);
  summary.unmeasured = summary.unmeasured.filter((id) => wanted.has(id));
  summary.notAsked = summary.notAsked.flatMap((n) => {
    const rules = n.rules.filter((id) => wanted.has(id));
    return rules.length > 0 ? [{ ...n, rules }] : [];
  });
  const sources = found && {
    repositories: found.targets.length,
    moved: found.moved,
    left: found.left,
    requests: found.requests,
    notModified: found.notModified,
  };
  return { summary, listProblems, location: writer.location, ...(sources ? { sources } : {}) };
}

/** The store's writer, with this scan's lease on it held (the writer closed if it cannot be). */
async function leasedWriter(
  run: ScanRun,
  settings: Settings,
): Promise<{ writer: StoreWriter; lease: Lease }> {
  const writer = await openWriter(settings);
  try {
    const lease = await holdScanLease(writer, run.shard, {
      waitSeconds: run.waitSeconds ?? 0,
      onLost: run.listener.warn,
      onWarning: run.listener.warn,
      conditionalWrites: settings.s3.conditionalWrites ?? 'required',
    });
    return { writer, lease };
  } catch (err) {
    await writer.close();
    throw err;
  }
}

/**
 * Each target's forge measurer; with no server to ask (or none known for the host), the forge
 * rules are null as not asked, never failures, and so is the dependents rule when `rules` want
 * it and the config names no index.
 */
function forgesAsked(run: ScanRun, settings: Settings, rules: ReadonlySet<string>): ForgeFor {
  const dependents = settings.dependents ? { dependents: settings.dependents } : {};
  const forges =
    run.forgeFor ??
    measurersFor(
      {
        hosts: settings.hosts,
        ...dependents,
        gitTokens: settings.scan.tokens,
        answersDir: settings.scan.mirrors,
      },
      process.env,
    );
  const off =
    run.fetch === 'never'
      ? '--fetch never asks no server'
      : run.forge === 'never'
        ? '--forge never (git alone)'
        : undefined;
  const asked = off ? noneAsked(forges, off) : forges;
  // Without an index, the config is why, whatever --forge or --fetch say.
  return !settings.dependents && rules.has(RULE.dependents.id) ? dependentsNotAsked(asked) : asked;
}

/**
 * The repositories this run (this shard) scans: the repos file's lines, then what the sources
 * list; moved and left repositories and bad lines are told to the listener (by shard 0 alone).
 */
async function listTargets(
  run: ScanRun,
  settings: Settings,
): Promise<{ targets: ListedTarget[]; listProblems: number; found: Discovery | undefined }> {
  const { listener, shard } = run;
  const parsed =
    run.reposFile === undefined
      ? { targets: [], problems: [] }
      : parseTargets(await readList(run.reposFile), run.reposFile);
  const first = !shard || shard.index === 0;
  const found =
    run.sources && run.sources.length > 0
      ? await discoverSources(
          run.sources,
          { hosts: settings.hosts, gitTokens: settings.scan.tokens },
          process.env,
          // Shard 0 alone looks up what left: n shards ask the forge once.
          first
            ? async (listed) => [
                ...parsed.targets.map((t) => t.url),
                ...(await storedElsewhere(settings, run.sources!, listed)),
              ]
            : [],
          listener.onListed,
          // The listing's answers beside the mirrors: its pages asked conditionally next time.
          settings.scan.mirrors,
        )
      : undefined;
  // Every shard lists the sources whole (the same list on every machine) and keeps its share;
  // a line or source that fails belongs to no shard: shard 0 reports it, so n shards report it once.
  const listProblems = first ? [...parsed.problems, ...(found?.problems ?? [])] : [];
  for (const p of listProblems) listener.listProblem(p);
  if (found && first) {
    const inFile = new Set(parsed.targets.map((t) => t.url));
    for (const m of found.moved) {
      const then = inFile.has(m.from)
        ? 'the repos file names the old URL; both are scanned until it names the new one'
        : "the old URL's records stay under it in the store; the new one is scanned from now on";
      listener.warn(`moved: ${m.from} → ${m.to} (${then})`);
    }
    for (const l of found.left) {
      const then = inFile.has(l.url)
        ? 'the repos file still lists it, so it is scanned'
        : 'no longer scanned; its records stay in the store, and on the site until its store file is deleted and build --prune runs';
      listener.warn(`left: ${l.url}: ${l.why} (${then})`);
    }
  }
  // The repos file's own line wins (its mirror=), a source adds the rest.
  const listed = new Set(parsed.targets.map((t) => t.url));
  const all = [...parsed.targets, ...(found?.targets ?? []).filter((t) => !listed.has(t.url))];
  return {
    targets: shard ? all.filter((t) => inShard(shard)(t.url)) : all,
    listProblems: listProblems.length,
    found,
  };
}

/**
 * The repository URLs the store holds on the sources' hosts, in files no listed repository
 * writes: those that may have left a source or moved. Each such file is read (its records
 * name their repositoryUrl); a store not there yet holds none.
 */
async function storedElsewhere(
  settings: Settings,
  sources: readonly SourceSetting[],
  listed: readonly ListedTarget[],
): Promise<string[]> {
  let store: StoreSource;
  if (isS3(settings.store)) {
    const loc = parseS3Location(settings.store);
    if (!loc) return [];
    const [{ S3Store }, { s3Client }] = await Promise.all([
      import('../load/s3-store.ts'),
      import('../s3/client.ts'),
    ]);
    store = new S3Store(s3Client(settings.s3), loc);
  } else {
    if (
      !(await stat(settings.store).then(
        (s) => s.isDirectory(),
        () => false,
      ))
    )
      return [];
    store = new DirectoryStore(settings.store);
  }
  const hosts = new Set(
    sources.flatMap((s) => (URL.canParse(s.url) ? [new URL(s.url).host.toLowerCase()] : [])),
  );
  const folders = [...hosts].map((h) => storeFileName(h, '').replace(/\.ndjson$/, '/'));
  const written = new Set(listed.map((t) => storeFileName(t.host, t.path)));
  const urls = new Set<string>();
  for (const name of await store.list()) {
    if (written.has(name) || !folders.some((f) => name.startsWith(f))) continue;
    for (const line of Buffer.from(await store.read(name))
      .toString('utf8')
      .split('\n')) {
      try {
        const url = (JSON.parse(line) as { repositoryUrl?: unknown }).repositoryUrl;
        if (typeof url === 'string' && hosts.has(new URL(url).host.toLowerCase())) urls.add(url);
      } catch {
        // A line that is no record names nothing here; the build reports it.
      }
    }
  }
  return [...urls];
}

async function readList(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `--repos ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); name a file with one repository URL a line`,
    );
  }
}
