// Bench rows of incremental builds (the build state) and bounded memory on one large store
// file (the loader's spill to disk), called from scripts/bench.ts. Ratios within one run, as every other row.
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { generateStore, repositoryUrl } from './lib/synthetic-store.ts';

type Cli = (args: string[]) => {
  ms: number;
  cpuMs: number;
  rssKb: number;
  summary: Record<string, number>;
};
type Say = (name: string, value: string, key?: string, raw?: number | string) => void;

export interface IncrementalBenchContext {
  work: string;
  workRoot: string;
  /** The main run's store (kept across runs: never modified here) and its size. */
  store: string;
  repos: number;
  scans: number;
  /** The main run's full build into an empty directory. */
  fullMs: number;
  /** A config whose thresholds differ from the default (one badge's bands). */
  changedConfig: string;
  cli: Cli;
  say: Say;
  /** Sizes of the scale runs, each compared per scan with the first; empty skips them. */
  scaleRepos: number[];
  spillRecords: number;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NOW = '1763600000';
const ratio = (a: number, b: number) => Number((a / b).toFixed(3));
const mb = (kb: number) => Math.round(kb / 1024);

export async function benchIncremental(c: IncrementalBenchContext): Promise<void> {
  // A copy keeping mtimes (the state knows files by size and mtime), so edits leave the shared store alone.
  const store = join(c.work, 'store-incremental');
  spawnSync('cp', ['-a', c.store, store]);
  const out = join(c.work, 'site-incremental');
  const full = c.cli(['build', '--store', store, '--out', out, '--now', NOW]);

  const same = c.cli(['build', '--store', store, '--out', out, '--now', NOW]);
  c.say(
    'incremental: no-change rebuild ÷ full build (target ≤ 0.05)',
    `${ratio(same.ms, full.ms)} (${(same.ms / 1000).toFixed(1)} s vs ${(full.ms / 1000).toFixed(1)} s, ${c.repos} × ${c.scans}, ${same.summary.written} written)`,
    'incrementalNoChangeRatio',
    ratio(same.ms, full.ms),
  );

  // A store a scanner has just written: every file read within 2 s of its last write, so the
  // state keeps its version marked recent with a digest of its bytes; the next build reads such
  // a file and knows it by its bytes instead of redoing its repositories. An mtime an hour
  // ahead keeps every file recent through both builds.
  {
    const fresh = join(c.work, 'store-fresh');
    spawnSync('cp', ['-a', c.store, fresh]);
    const ahead = Date.now() / 1000 + 3600;
    for (const n of readdirSync(fresh)) utimesSync(join(fresh, n), ahead, ahead);
    const freshOut = join(c.work, 'site-fresh');
    const first = c.cli(['build', '--store', fresh, '--out', freshOut, '--now', NOW]);
    const racy = c.cli(['build', '--store', fresh, '--out', freshOut, '--now', NOW]);
    c.say(
      'incremental: no-change rebuild right after a write ÷ full build (unchanged store: the row above)',
      `${ratio(racy.ms, first.ms)} (${(racy.ms / 1000).toFixed(1)} s vs ${(first.ms / 1000).toFixed(1)} s, ${racy.summary.reused} of ${c.repos} repositories skipped)`,
      'incrementalRacyRatio',
      ratio(racy.ms, first.ms),
    );
  }

  // One new scan in 1 % of repositories (every 100th file), mtimes in the past as a scanner's would be.
  const names = readdirSync(store)
    .filter((n) => n.endsWith('.ndjson'))
    .sort();
  const width = String(c.repos).length;
  for (let i = 0; i < names.length; i += 100) {
    const file = join(store, `repo-${String(i).padStart(width, '0')}.ndjson`);
    appendFileSync(
      file,
      `${JSON.stringify({ repositoryUrl: repositoryUrl(i), timestamp: 1_763_500_000, values: { BUS_FACTOR: 5, ISSUE_REACTION_TIME: 1, SECURITY_POLICY: true, DEPENDENTS: 9 } })}\n`,
    );
    utimesSync(file, 1_763_500_000, 1_763_500_000);
  }
  const onePercent = c.cli(['build', '--store', store, '--out', out, '--now', NOW]);
  c.say(
    'incremental: 1 % of repositories with a new scan ÷ full build (target ≤ 0.08)',
    `${ratio(onePercent.ms, full.ms)} (${onePercent.summary.written} files written)`,
    'incrementalOnePercentRatio',
    ratio(onePercent.ms, full.ms),
  );

  // One badge's bands: every repository is loaded and evaluated, but only the files of the
  // changed config parts (reports, that badge's files, pages) are rendered and compared.
  const threshold = c.cli([
    'build',
    '--config',
    c.changedConfig,
    '--store',
    store,
    '--out',
    out,
    '--now',
    NOW,
  ]);
  c.say(
    'incremental: threshold change on one badge ÷ full build (target ≤ 1.0)',
    `${ratio(threshold.ms, full.ms)} by wall, ${ratio(threshold.cpuMs, full.cpuMs)} by CPU (${threshold.summary.written} files written, ${threshold.summary.unchanged} unchanged)`,
    'incrementalThresholdRatio',
    ratio(threshold.ms, full.ms),
  );

  await s3Requests(c);
  if (c.scaleRepos.length > 0) scaleRuns(c);
  if (c.spillRecords > 0) await spillRun(c);
}

/** Requests of an unchanged rebuild and of one with one changed repository, counted at a proxy in front of s3rver. */
async function s3Requests(c: IncrementalBenchContext): Promise<void> {
  const { startS3Peer } = await import('./lib/s3-peer.ts');
  const { startFaultProxy } = await import('./lib/fault-proxy.ts');
  const repos = 200;
  const store = join(c.work, 'store-s3-incremental');
  generateStore({ repos, scans: c.scans, out: store, seed: 3 });
  for (const n of readdirSync(store)) utimesSync(join(store, n), 1_700_000_000, 1_700_000_000);
  const peer = await startS3Peer(['incr']);
  const proxy = await startFaultProxy(peer.port);
  const run = () =>
    new Promise<void>((ok, fail) => {
      const args = [
        'build',
        '--store',
        store,
        '--out',
        's3://incr/site',
        '--s3-endpoint',
        proxy.endpoint,
        '--s3-path-style',
        '--now',
        NOW,
        '--json',
      ];
      const child = spawn(process.execPath, [join(ROOT, 'lib/cli.js'), ...args], {
        cwd: ROOT,
        env: { ...process.env, ...peer.env, CI: 'true' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) =>
        code === 0 ? ok() : fail(new Error(`s3 build exited ${code}: ${stderr.slice(-1500)}`)),
      );
    });
  const total = () => Object.values(proxy.counts).reduce((a, b) => a + b, 0);
  await run();
  proxy.reset();
  await run();
  const unchanged = total();
  const puts = proxy.counts.PUT ?? 0;
  const file = join(store, `repo-${String(7).padStart(String(repos).length, '0')}.ndjson`);
  appendFileSync(
    file,
    `${JSON.stringify({ repositoryUrl: repositoryUrl(7), timestamp: 1_763_500_000, values: { BUS_FACTOR: 5 } })}\n`,
  );
  utimesSync(file, 1_763_500_000, 1_763_500_000);
  proxy.reset();
  await run();
  c.say(
    'incremental S3: requests of an unchanged rebuild (target ≤ store listing + O(1))',
    `${unchanged} requests, ${puts} PUT (the lease; an unchanged state is not sent), for ${repos} repositories; one changed repository: ${total()} requests`,
    'incrementalS3UnchangedRequests',
    unchanged,
  );
  await proxy.close();
  await peer.stop();
}

/**
 * Full build and no-change rebuild at each size (e.g. 10,000 and 100,000 × 10): peak RSS, and
 * time per scan against the first size (linear growth), by wall time and by CPU time.
 */
export function scaleRuns(
  c: Pick<IncrementalBenchContext, 'work' | 'workRoot' | 'scans' | 'cli' | 'say' | 'scaleRepos'>,
): void {
  let first: { repos: number; ms: number; cpuMs: number } | undefined;
  for (const repos of c.scaleRepos) {
    const store = join(c.workRoot, `store-${repos}x${c.scans}-seed1`);
    if (!existsSync(join(store, '.complete'))) {
      generateStore({ repos, scans: c.scans, out: store, seed: 1 });
      writeFileSync(join(store, '.complete'), '');
    }
    const out = join(c.work, `site-scale-${repos}`);
    const full = c.cli(['build', '--store', store, '--out', out, '--now', NOW]);
    const again = c.cli(['build', '--store', store, '--out', out, '--now', NOW]);
    const scansAt = repos * c.scans;
    c.say(
      `scale: ${repos} × ${c.scans} full build`,
      `${(full.ms / 1000).toFixed(0)} s (${(full.cpuMs / 1000).toFixed(0)} s CPU), ${full.summary.written} files; no-change rebuild ${(again.ms / 1000).toFixed(1)} s = ${ratio(again.ms, full.ms)} of it`,
      `scale${repos}FullSeconds`,
      Math.round(full.ms / 1000),
    );
    c.say(
      `scale: ${repos} × ${c.scans} peak RSS (target ≤ 200 MB)`,
      `full ${mb(full.rssKb)} MB, no-change rebuild ${mb(again.rssKb)} MB`,
      `scale${repos}PeakRssMb`,
      Math.max(mb(full.rssKb), mb(again.rssKb)),
    );
    if (first) {
      const byWall = ratio(full.ms / scansAt, first.ms / (first.repos * c.scans));
      const byCpu = ratio(full.cpuMs / scansAt, first.cpuMs / (first.repos * c.scans));
      c.say(
        `scale: time per scan at ${repos} ÷ at ${first.repos} (target ≤ 1.2)`,
        `${byWall} by wall time, ${byCpu} by CPU time`,
        `scale${repos}PerScanRatio`,
        byWall,
      );
    } else first = { repos, ms: full.ms, cpuMs: full.cpuMs };
  }
}

/**
 * Spill: one .ndjson of N small records (100 per repository). Built with --shard 0/10000 so that
 * the loader streams, buckets and parses every record while only a handful of repositories
 * are rendered: the row measures the loader's memory, not the writing of 70 M files.
 */
async function spillRun(c: IncrementalBenchContext): Promise<void> {
  const dir = join(c.workRoot, `store-one-file-${c.spillRecords}`);
  if (!existsSync(join(dir, '.complete'))) {
    mkdirSync(dir, { recursive: true });
    const stream = createWriteStream(join(dir, 'all.ndjson'));
    for (let i = 0; i < c.spillRecords; i++) {
      const line = `{"repositoryUrl":"https://github.com/o${Math.floor(i / 100) % 1000}/r${Math.floor(i / 100)}","timestamp":${1_700_000_000 + (i % 100) * 86400},"values":{"BUS_FACTOR":${i % 7}}}\n`;
      if (!stream.write(line)) await once(stream, 'drain');
    }
    stream.end();
    await once(stream, 'finish');
    writeFileSync(join(dir, '.complete'), '');
  }
  const r = c.cli([
    'build',
    '--store',
    dir,
    '--out',
    join(c.work, 'site-one-file'),
    '--now',
    NOW,
    '--shard',
    '0/10000',
  ]);
  c.say(
    `one store file of ${c.spillRecords} records: peak RSS (target ≤ 300 MB)`,
    `${mb(r.rssKb)} MB in ${(r.ms / 1000).toFixed(0)} s (--shard 0/10000: every record streamed, bucketed and parsed)`,
    'oneFilePeakRssMb',
    mb(r.rssKb),
  );
}
