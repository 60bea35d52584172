// `npm run bench`: one run, side by side, on this machine. Not a test: figures go into the
// README with the machine they ran on. Compare ratios within a run; these machines are noisy.
//
// The work tree is kept, never deleted by the benchmark: on ext4, creating files right after
// deleting a large tree runs 15–20× slower for minutes, so a delete at the end of one run
// would slow the build that the next run times. Each run writes into its own fresh
// run-<time>/ under --work (default $TMPDIR/badgepress-bench); the generated store, which is
// deterministic, is reused across runs. The run names earlier trees it finds: delete them
// when the machine is idle, not right before a run.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import autocannon from 'autocannon';
import { makeBadge } from 'badge-maker';
import { generateStore } from './lib/synthetic-store.ts';
import { benchIncremental, scaleRuns } from './bench-incremental.ts';
import { scanRows } from './bench-scan.ts';
import { forgeRows } from './bench-forge.ts';
import { discoverRows } from './bench-discover.ts';
import { browseRows } from './bench-browse.ts';
import { reusedGoldFrom } from './lib/thresholds-variant.ts';
import { bundleWorker } from './build-worker.ts';
import { bundleCloudFrontFunction, bundleLambdaEdge } from './build-aws.ts';
import { renderBadge } from '../src/render/svg.ts';
import { badgeTemplates } from '../src/config/templates.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    repos: { type: 'string', default: '10000' },
    scans: { type: 'string', default: '10' },
    json: { type: 'string' },
    's3-repos': { type: 'string', default: '100' },
    work: { type: 'string', default: join(tmpdir(), 'badgepress-bench') },
    // Only the command-line rows (startup, example build): seconds, not minutes.
    quick: { type: 'boolean', default: false },
    // `--only serving`: build the store, then only the serving rows (with --repos 100: a minute).
    only: { type: 'string' },
    // Incremental builds and one large store file (scripts/bench-incremental.ts); 0 skips a row.
    // Scale runs: a comma-separated list of sizes, each compared per scan with the first.
    'scale-repos': { type: 'string', default: '10000,100000' },
    'spill-records': { type: 'string', default: '10000000' },
    // `--only scan`: generated repositories (kept under <work>/scan) and their sizes.
    'scan-repos': { type: 'string', default: '50' },
    'scan-commits': { type: 'string', default: '2000' },
    'scan-big-commits': { type: 'string', default: '100000' },
    'scan-wide-files': { type: 'string', default: '100000' },
    // `--only browse`: site-wide pages, group pages and search files from this many summaries.
    'browse-repos': { type: 'string', default: '100000' },
  },
});
const repos = Number(values.repos);
const scans = Number(values.scans);
const workRoot = values.work;
mkdirSync(workRoot, { recursive: true });
const earlier = readdirSync(workRoot).filter((n) => n.startsWith('run-'));
if (earlier.length > 0) {
  process.stderr.write(
    `bench: ${earlier.length} earlier run tree(s) kept in ${workRoot} (${earlier.join(', ')}); delete them when the machine is idle, not right before a run\n`,
  );
}
const work = join(workRoot, `run-${new Date().toISOString().replace(/[:.]/g, '-')}`);
mkdirSync(work);
const rows: Array<[string, string]> = [];
const figures: Record<string, number | string> = {};
const say = (name: string, value: string, key?: string, raw?: number | string) => {
  rows.push([name, value]);
  if (key) figures[key] = raw ?? value;
  process.stderr.write(`${name}: ${value}\n`);
};

function cli(
  args: string[],
  env: Record<string, string> = {},
): { ms: number; cpuMs: number; rssKb: number; summary: Record<string, number> } {
  const started = Date.now();
  // /usr/bin/time -f %M reports the child's peak RSS in KB; %U and %S its CPU seconds, a
  // figure that holds up better than wall time on a shared machine.
  // Through the bin as a user runs it (its #! line sets Node's young generation, see bin/badgepress.js).
  const r = spawnSync('/usr/bin/time', ['-f', 'RSS %M CPU %U %S', BIN, ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...env, CI: 'true' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = Date.now() - started;
  const rss = /RSS (\d+) CPU ([\d.]+) ([\d.]+)/.exec(r.stderr);
  const line = r.stdout.trim().split('\n').pop() ?? '{}';
  if (r.status !== 0 && r.status !== 1)
    throw new Error(`badgepress ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return {
    ms,
    cpuMs: rss ? (Number(rss[2]) + Number(rss[3])) * 1000 : NaN,
    rssKb: rss ? Number(rss[1]) : NaN,
    summary: JSON.parse(line),
  };
}

function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile())
      out.set(
        relative(dir, join(e.parentPath, e.name)).split(sep).join('/'),
        readFileSync(join(e.parentPath, e.name)),
      );
  }
  return out;
}

// Every row runs the CLI as installed: the compiled lib/ (a tsx loader would add its own
// thread, memory and start-up to every figure).
const compiled = spawnSync(process.execPath, [join(ROOT, 'scripts/compile.mjs'), '--if-stale'], {
  encoding: 'utf8',
});
if (compiled.status !== 0) throw new Error(`compiling lib/ failed: ${compiled.stderr}`);
const CLI = join(ROOT, 'lib/cli.js');
const BIN = join(ROOT, 'bin/badgepress.js');

const digest = (b: Buffer) => createHash('md5').update(b).digest('hex');

// 0. The command line as installed (bin/badgepress.js → compiled lib/): start-up against
// node itself, in the same run, and a build of the example store. Runs alternate, median counts.
/** `--scale-repos 10000,100000`: the repository counts of the scale rows. */
const scaleRepos = values['scale-repos']
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
if (
  values.only !== undefined &&
  !['serving', 'scale', 'scan', 'forge', 'sizes', 'browse'].includes(values.only)
)
  throw new Error(
    `--only ${values.only}: the sections that run alone are "serving", "scale", "scan", "forge", "sizes" and "browse"`,
  );
// `--only browse`: the site-wide pages, group pages and search at --browse-repos (bench-browse.ts).
if (values.only === 'browse') {
  await browseRows(say, Number(values['browse-repos']), ROOT);
  finish();
  process.exit(0);
}
// `--only forge`: requests per repository on each forge kind (scripts/bench-forge.ts), seconds.
if (values.only === 'forge') {
  await forgeRows(say);
  await discoverRows(say);
  finish();
  process.exit(0);
}
// `--only sizes`: the edge bundles and the badge alone (seconds): the figures the guides quote.
if (values.only === 'sizes') {
  await sizeRows();
  finish();
  process.exit(0);
}
if (values.only === undefined) {
  const timed = (args: string[]) => {
    const started = performance.now();
    const r = spawnSync(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, CI: 'true' },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return performance.now() - started;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const node: number[] = [];
  const help: number[] = [];
  const version: number[] = [];
  const example: number[] = [];
  for (let i = 0; i < 11; i++) {
    node.push(timed(['-e', '0']));
    help.push(timed([BIN, '--help']));
    version.push(timed([BIN, '--version']));
    if (i < 5)
      example.push(
        timed([BIN, 'build', '--out', join(work, `example-${i}`), '--now', '1764000000']),
      );
  }
  const ratio = median(help) / median(node);
  say(
    'startup: node -e 0',
    `${median(node).toFixed(0)} ms (median of 11)`,
    'nodeStartMs',
    Math.round(median(node)),
  );
  say(
    'startup: badgepress --help / node -e 0 (target ≤ 3)',
    `${median(help).toFixed(0)} ms = ${ratio.toFixed(2)}×`,
    'helpToNodeRatio',
    Number(ratio.toFixed(2)),
  );
  say(
    'startup: badgepress --version',
    `${median(version).toFixed(0)} ms = ${(median(version) / median(node)).toFixed(2)}×`,
    'versionMs',
    Math.round(median(version)),
  );
  say(
    'badgepress build, example store (target ≤ 1.5 s)',
    `${(median(example) / 1000).toFixed(2)} s (median of 5, process start included)`,
    'exampleBuildSeconds',
    Number((median(example) / 1000).toFixed(2)),
  );
}
if (values.quick) {
  finish();
  process.exit(0);
}

// `--only scan`: badgepress scan against bare git, its memory, and history (scripts/bench-scan.ts).
if (values.only === 'scan') {
  await scanRows({
    root: join(workRoot, 'scan'),
    work,
    repos: Number(values['scan-repos']),
    commits: Number(values['scan-commits']),
    bigCommits: Number(values['scan-big-commits']),
    wideFiles: Number(values['scan-wide-files']),
    say,
    cli,
  });
  finish();
  process.exit(0);
}

// `--only scale`: the scale runs alone (full build and no-change rebuild at each --scale-repos).
if (values.only === 'scale') {
  scaleRuns({
    work,
    workRoot,
    scans,
    cli,
    say,
    scaleRepos,
  });
  finish();
  process.exit(0);
}

// 1. Store: deterministic, so one generated earlier with the same figures is reused.
const store = join(workRoot, `store-${repos}x${scans}-seed1`);
if (!existsSync(join(store, '.complete'))) {
  generateStore({ repos, scans, out: store, seed: 1 });
  writeFileSync(join(store, '.complete'), '');
}
say(
  'store',
  `${repos} repositories × ${scans} scans (one .ndjson file per repository)`,
  'store',
  `${repos}x${scans}`,
);

// 2. Build to a directory (fresh directory: never delete a large tree right before timing).
const out = join(work, 'site');
const b = cli(['build', '--store', store, '--out', out, '--now', '1763600000']);
const files = b.summary.written!;
say(
  'build: scans/s',
  `${Math.round((repos * scans) / (b.ms / 1000))}`,
  'buildScansPerSecond',
  Math.round((repos * scans) / (b.ms / 1000)),
);
say(
  'build: files/s',
  `${Math.round(files / (b.ms / 1000))} (${files} files in ${(b.ms / 1000).toFixed(1)} s, process start included)`,
  'buildFilesPerSecond',
  Math.round(files / (b.ms / 1000)),
);
say(
  'build: peak RSS (target ≤ 200 MB for 100,000 scans)',
  `${Math.round(b.rssKb / 1024)} MB for ${repos * scans} scans`,
  'buildPeakRssMb',
  Math.round(b.rssKb / 1024),
);
if (values.only === 'serving') {
  await servingRows(out, tree(out));
  finish();
  process.exit(0);
}

// 2b. The human site: the same build without pages (config `pages: false`), as a ratio. One
// pair swings by ±0.1 on these machines: three pairs in alternating order (the first build with
// pages is step 2's), each into a fresh directory, and the median.
{
  const noPagesConfig = join(work, 'no-pages.yaml');
  writeFileSync(noPagesConfig, 'pages: false\n');
  const withPages = (k: number) =>
    k === 0
      ? b
      : cli(['build', '--store', store, '--out', join(work, `site-${k}`), '--now', '1763600000']);
  const withoutPages = (k: number) =>
    cli([
      'build',
      '--config',
      noPagesConfig,
      '--store',
      store,
      '--out',
      join(work, `site-no-pages-${k}`),
      '--now',
      '1763600000',
    ]);
  const pairs: Array<{ wall: number; cpu: number }> = [];
  for (let k = 0; k < 3; k++) {
    // What runs second may find the disk and the caches warmer: the order alternates.
    const first = k % 2 === 0 ? withPages(k) : withoutPages(k);
    const second = k % 2 === 0 ? withoutPages(k) : withPages(k);
    const [w, n] = k % 2 === 0 ? [first, second] : [second, first];
    pairs.push({ wall: w.ms / n.ms, cpu: w.cpuMs / n.cpuMs });
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
  const wall = median(pairs.map((p) => p.wall));
  const cpu = median(pairs.map((p) => p.cpu));
  say(
    'pages: build with pages ÷ without, median of 3 alternating pairs (target ≤ 1.15)',
    `${wall.toFixed(2)} by wall (pairs ${pairs.map((p) => p.wall.toFixed(2)).join(', ')}), ${cpu.toFixed(2)} by CPU (${pairs.map((p) => p.cpu.toFixed(2)).join(', ')})`,
    'pagesBuildRatio',
    Number(wall.toFixed(3)),
  );
  say('pages: the same by CPU', cpu.toFixed(2), 'pagesBuildCpuRatio', Number(cpu.toFixed(3)));
  // The home, group pages and search at 100,000 repositories, written from synthetic summaries.
  await browseRows(say, Number(values['browse-repos']), ROOT);
}

// 3. Raw write limit: the same bytes, a minimal mkdir + writeFile + rename loop, same disk.
const built = tree(out);
const raw = join(work, 'raw');
const rawStarted = Date.now();
{
  const limit = pLimit(32);
  const made = new Set<string>();
  await Promise.all(
    [...built].map(([key, body]) =>
      limit(async () => {
        const path = join(raw, key);
        const d = dirname(path);
        if (!made.has(d)) {
          await mkdir(d, { recursive: true });
          made.add(d);
        }
        await writeFile(`${path}.tmp`, body);
        await rename(`${path}.tmp`, path);
      }),
    ),
  );
}
const rawMs = Date.now() - rawStarted;
say(
  'raw write limit: files/s',
  `${Math.round(built.size / (rawMs / 1000))}`,
  'rawFilesPerSecond',
  Math.round(built.size / (rawMs / 1000)),
);
say(
  'build / raw write (target ≥ 0.7)',
  (rawMs / b.ms).toFixed(2),
  'buildToRawRatio',
  Number((rawMs / b.ms).toFixed(2)),
);

// 4. Rebuild after a threshold change that flips about 1 % of badges.
const changedConfig = reusedGoldFrom(join(work, 'cfg'), 21);
const before = new Map([...built].map(([k, v]) => [k, digest(v)]));
const re = cli([
  'build',
  '--config',
  changedConfig,
  '--store',
  store,
  '--out',
  out,
  '--now',
  '1763600000',
]);
const after = tree(out);
const changed = [...after].filter(([k, v]) => before.get(k) !== digest(v)).length;
const badgeFiles = [...after.keys()].filter((k) => /\/at\/\d+\/badges\/[^/.]+$/.test(k));
const flipped = badgeFiles.filter(
  (k) =>
    JSON.parse(after.get(k)!.toString()).badgeStatus !==
    JSON.parse(built.get(k)!.toString()).badgeStatus,
).length;
say(
  'rebuild: badges flipped',
  `${flipped} of ${badgeFiles.length} (${((100 * flipped) / badgeFiles.length).toFixed(1)} %)`,
  'flippedPercent',
  Number(((100 * flipped) / badgeFiles.length).toFixed(2)),
);
say(
  'rebuild: files rewritten / files changed (target 1.0)',
  `${re.summary.written} / ${changed} = ${(re.summary.written! / changed).toFixed(2)}`,
  'rewriteRatio',
  Number((re.summary.written! / changed).toFixed(2)),
);
say(
  'rebuild: seconds',
  (re.ms / 1000).toFixed(1),
  'rebuildSeconds',
  Number((re.ms / 1000).toFixed(1)),
);

// 5. Republish to S3 (s3rver): PUTs sent against objects whose bytes changed, on a smaller store.
{
  const { startS3Peer } = await import('./lib/s3-peer.ts');
  const { startFaultProxy } = await import('./lib/fault-proxy.ts');
  const s3Repos = Number(values['s3-repos']);
  const small = join(work, 'store-s3');
  generateStore({ repos: s3Repos, scans, out: small, seed: 2 });
  const peer = await startS3Peer(['bench']);
  const proxy = await startFaultProxy(peer.port);
  const env = { ...peer.env };
  const args = [
    '--store',
    small,
    '--out',
    's3://bench/site',
    '--s3-endpoint',
    proxy.endpoint,
    '--s3-path-style',
    '--now',
    '1763600000',
  ];
  // Run asynchronously: the proxy lives in this process.
  const run = (extra: string[]) =>
    new Promise<Record<string, number>>((ok, fail) => {
      const c = spawn(process.execPath, [CLI, 'build', ...extra, ...args, '--json'], {
        cwd: ROOT,
        env: { ...process.env, ...env, CI: 'true' },
      });
      let stdout = '';
      c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      c.on('exit', (code) =>
        code === 0
          ? ok(JSON.parse(stdout.trim().split('\n').pop()!))
          : fail(new Error(`s3 build exited ${code}`)),
      );
    });
  const first = await run([]);
  const localSmall = join(work, 'site-s3-local');
  cli(['build', '--store', small, '--out', localSmall, '--now', '1763600000']);
  const smallBefore = new Map([...tree(localSmall)].map(([k, v]) => [k, digest(v)]));
  cli([
    'build',
    '--config',
    changedConfig,
    '--store',
    small,
    '--out',
    localSmall,
    '--now',
    '1763600000',
  ]);
  const smallChanged = [...tree(localSmall)].filter(
    ([k, v]) => smallBefore.get(k) !== digest(v),
  ).length;
  proxy.reset();
  await run(['--config', changedConfig]);
  say(
    'republish to S3: PUTs / objects changed (target 1.0)',
    `${proxy.counts.PUT ?? 0} / ${smallChanged} (store of ${s3Repos} repositories, ${first.written} objects)`,
    's3PutRatio',
    smallChanged ? Number(((proxy.counts.PUT ?? 0) / smallChanged).toFixed(2)) : 'n/a',
  );
  proxy.reset();
  await run(['--config', changedConfig]);
  say(
    'republish to S3 unchanged: PUTs',
    String(proxy.counts.PUT ?? 0),
    's3PutsUnchanged',
    proxy.counts.PUT ?? 0,
  );
  await proxy.close();
  await peer.stop();
}

// 6. Serving (servingRows, at the end of this file).
await servingRows(out, after);

// 6b. Incremental builds, the scale run and one large store file.
await benchIncremental({
  work,
  workRoot,
  store,
  repos,
  scans,
  fullMs: b.ms,
  changedConfig,
  cli,
  say,
  scaleRepos,
  spillRecords: Number(values['spill-records']),
});

// 7. Sizes.
await sizeRows();

finish();

/** The edge bundles, minified, and the badge against badge-maker's. */
async function sizeRows(): Promise<void> {
  const worker = await bundleWorker();
  say(
    'worker bundle (target ≤ 10 KB)',
    `${Buffer.byteLength(worker)} bytes minified`,
    'workerBytes',
    Buffer.byteLength(worker),
  );
  const cloudFront = Buffer.byteLength(await bundleCloudFrontFunction());
  say(
    'CloudFront Function (target ≤ 8 KB; AWS limit 10 KB)',
    `${cloudFront} bytes minified`,
    'cloudFrontFunctionBytes',
    cloudFront,
  );
  const lambdaEdge = Buffer.byteLength(await bundleLambdaEdge());
  say(
    'Lambda@Edge bundle',
    `${lambdaEdge} bytes minified (AWS SDK from the runtime)`,
    'lambdaEdgeBytes',
    lambdaEdge,
  );
  const ours = renderBadge(badgeTemplates(), {
    label: 'MAINTENANCE',
    message: 'silver',
    color: '#9f9f9f',
  });
  const theirs = makeBadge({ label: 'MAINTENANCE', message: 'silver', color: '#9f9f9f' });
  say(
    'SVG bytes vs badge-maker (target ≤)',
    `${ours.length} vs ${theirs.length}`,
    'svgBytes',
    `${ours.length}/${theirs.length}`,
  );
}

/** The machine row, the table and the JSON figures: the end of a full or a --quick run. */
function finish(): void {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM (${Math.round(freemem() / 2 ** 30)} free), Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} at the end`;
  say('machine', machine, 'machine');
  process.stdout.write(
    `\n| measure | figure |\n|---|---|\n${rows.map(([a, v]) => `| ${a} | ${v} |`).join('\n')}\n`,
  );
  if (values.json) writeFileSync(values.json, `${JSON.stringify(figures, null, 2)}\n`);
  process.stderr.write(
    `bench: this run's tree is kept in ${work} (see the top of scripts/bench.ts for why)\n`,
  );
}

// 6. Serving: serve, bare node:http, nginx on the static files, and nginx in front of serve
// (config/nginx/badgepress.conf), on a latest badge and on a ?timestamp= redirect. wrk (C, one
// thread) when installed: a Node load generator takes a core of its own on a 2-core machine
// and favours whichever server needs less CPU. Rounds alternate and the best of each counts.
// Beside req/s, the CPU each server process spends per request (Linux /proc): on a shared
// machine a busy neighbour moves req/s, far less the CPU one request costs.
/** The serving rows (section 6): `out` is the built site, `files` its keys and bytes. */
async function servingRows(out: string, files: Map<string, Buffer>): Promise<void> {
  const badgeKey = [...files.keys()].find((k) =>
    /^api\/v1\/repositories\/[^/]+\/badges\/MAINTENANCE\.svg$/.test(k),
  )!;
  const which = (cmd: string) =>
    spawnSync('sh', ['-c', `command -v ${cmd} || ls /usr/sbin/${cmd} 2>/dev/null`], {
      encoding: 'utf8',
    })
      .stdout.trim()
      .split('\n')[0] ?? '';
  const wrk = which('wrk');
  const loadTool = wrk ? 'wrk, 1 thread' : 'autocannon';
  const LOAD_SECONDS = 8;
  interface Load {
    rps: number;
    p99: number;
    /** CPU microseconds the measured process spent per request, when known. */
    cpuUs?: number;
  }
  /** utime + stime of a process in clock ticks (100 per second on Linux), or undefined. */
  function cpuTicks(pid: number | undefined): number | undefined {
    if (pid === undefined) return undefined;
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return undefined;
    }
  }
  async function load(url: string, pid?: number): Promise<Load> {
    const ticks = cpuTicks(pid);
    let result: Load;
    let requests: number;
    if (wrk) {
      const r = spawnSync(wrk, ['-t1', '-c32', `-d${LOAD_SECONDS}s`, '--latency', url], {
        encoding: 'utf8',
      });
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout);
      const p99 = /^\s+99%\s+([\d.]+)(us|ms|s)$/m.exec(r.stdout);
      const count = /(\d+) requests in/.exec(r.stdout);
      if (!rps || !p99 || !count)
        throw new Error(`wrk output not understood: ${r.stdout}${r.stderr}`);
      // A fast error page is not the file: every answer must have been the 200 (or the 302).
      if (/Non-2xx or 3xx responses/.test(r.stdout))
        throw new Error(`${url} answered errors under load: ${r.stdout}`);
      result = {
        rps: Math.round(Number(rps[1])),
        p99: Number(
          (Number(p99[1]) * { us: 0.001, ms: 1, s: 1000 }[p99[2] as 'us' | 'ms' | 's']).toFixed(2),
        ),
      };
      requests = Number(count[1]);
    } else {
      const r = await autocannon({ url, connections: 32, duration: LOAD_SECONDS, pipelining: 1 });
      if (r.non2xx > 0 && r['3xx'] !== r.non2xx)
        throw new Error(`${url} answered ${r.non2xx} errors under load`);
      result = { rps: Math.round(r.requests.average), p99: r.latency.p99 };
      requests = r.requests.total;
    }
    const after = cpuTicks(pid);
    if (ticks !== undefined && after !== undefined && requests > 0)
      result.cpuUs = Number((((after - ticks) * 10_000) / requests).toFixed(1));
    return result;
  }
  const best = (a: Load | undefined, b: Load) =>
    a && a.rps >= b.rps
      ? { ...a, cpuUs: minDefined(a.cpuUs, b.cpuUs) }
      : { ...b, cpuUs: minDefined(a?.cpuUs, b.cpuUs) };
  const minDefined = (x: number | undefined, y: number | undefined) =>
    x === undefined ? y : y === undefined ? x : Math.min(x, y);
  const { freePort, startNginx } = await import('./lib/nginx.ts');
  /** Waits until the URL answers with exactly these bytes (or this redirect): the server under test, ready. */
  async function ready(
    url: string,
    body: Buffer | { location: string },
    what: string,
  ): Promise<void> {
    for (let i = 0; i < 100; i++) {
      try {
        const res = await fetch(url, { redirect: 'manual' });
        if (
          Buffer.isBuffer(body)
            ? res.ok && Buffer.from(await res.arrayBuffer()).equals(body)
            : res.headers.get('location') === body.location
        )
          return;
      } catch {
        // not listening yet
      }
      await new Promise((ok) => setTimeout(ok, 100));
    }
    throw new Error(`${what} at ${url} did not answer as expected within 10 s`);
  }
  {
    // The server runs in its own process, as users run it.
    const [servePort, barePort, nginxPort] = [await freePort(), await freePort(), await freePort()];
    const server = spawn(
      process.execPath,
      [CLI, 'serve', '--dir', out, '--port', String(servePort)],
      {
        cwd: ROOT,
        stdio: 'ignore',
      },
    );
    // The ceiling of Node's own HTTP server on this machine: the same bytes and headers from
    // memory, no routing, no disk. serve can only approach it.
    const badgeBody = files.get(badgeKey)!;
    const bare = spawn(
      process.execPath,
      [
        '-e',
        `const b = Buffer.from(${JSON.stringify(badgeBody.toString('base64'))}, 'base64');
  require('node:http').createServer((q, r) => { r.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=300', etag: '"x"', 'content-length': b.length }); r.end(b); }).listen(${barePort}, '127.0.0.1');`,
      ],
      { stdio: 'ignore' },
    );
    const nginx = which('nginx');
    let ng: ReturnType<typeof spawn> | undefined;
    let fronted: Awaited<ReturnType<typeof startNginx>> | undefined;
    if (nginx) {
      const conf = join(work, 'nginx.conf');
      writeFileSync(
        conf,
        // Run as root, nginx's workers would be "nobody", who cannot read this run's 0700 temp
        // directory and answer 403 very fast: name the user who can.
        `${process.getuid?.() === 0 ? 'user root;' : ''} daemon off; worker_processes 1; pid ${work}/nginx.pid; error_log ${work}/nginx-error.log;
  events { worker_connections 1024; }
  http { access_log off; default_type image/svg+xml; types { image/svg+xml svg; }
    server { listen 127.0.0.1:${nginxPort}; root ${out}; location / { try_files /$uri =404; } } }`,
      );
      ng = spawn(nginx, ['-c', conf, '-p', work, '-e', `${work}/nginx-error.log`], {
        stdio: 'ignore',
      });
      // nginx in front of serve, with the configuration users take (one worker, as above).
      fronted = await startNginx(out, servePort);
    }
    // nginx decodes the path once, so the key's "%" is sent as "%25" to the plain static nginx;
    // the fronting configuration reads the request line as sent, as serve does.
    const { originPath } = await import('../src/model/origin-path.ts');
    const repoPath = `/${badgeKey.replace(/\/badges\/MAINTENANCE\.svg$/, '')}`;
    const index = JSON.parse(files.get(`${repoPath.slice(1)}/index.json`)!.toString()) as {
      timestamps: number[];
    };
    const middle = index.timestamps[Math.floor(index.timestamps.length / 2)]!;
    const redirectPath = `${repoPath}/badges/MAINTENANCE.svg?timestamp=${middle + 1}`;
    const redirectTo = { location: `${repoPath}/at/${middle}/badges/MAINTENANCE.svg` };
    const urls = {
      serve: `http://127.0.0.1:${servePort}/${badgeKey}`,
      bare: `http://127.0.0.1:${barePort}/`,
      nginx: `http://127.0.0.1:${nginxPort}/${originPath(badgeKey)}`,
      fronted: fronted ? `http://127.0.0.1:${fronted.port}/${badgeKey}` : '',
      serveRedirect: `http://127.0.0.1:${servePort}${redirectPath}`,
      frontedRedirect: fronted ? `http://127.0.0.1:${fronted.port}${redirectPath}` : '',
    };
    const m: Partial<Record<keyof typeof urls, Load>> = {};
    try {
      await ready(urls.serve, badgeBody, 'badgepress serve');
      await ready(urls.bare, badgeBody, 'bare node:http');
      await ready(urls.serveRedirect, redirectTo, 'badgepress serve (?timestamp=)');
      if (ng) await ready(urls.nginx, badgeBody, 'nginx');
      if (fronted) {
        await ready(urls.fronted, badgeBody, 'nginx in front of serve');
        await ready(urls.frontedRedirect, redirectTo, 'nginx in front of serve (?timestamp=)');
      }
      const pids: Partial<Record<keyof typeof urls, number>> = {
        serve: server.pid,
        bare: bare.pid,
        serveRedirect: server.pid,
      };
      for (let round = 0; round < 2; round++) {
        for (const name of Object.keys(urls) as Array<keyof typeof urls>) {
          if (urls[name] && (name !== 'nginx' || ng))
            m[name] = best(m[name], await load(urls[name], pids[name]));
        }
      }
    } finally {
      server.kill();
      bare.kill();
      ng?.kill();
      await fronted?.stop();
    }
    const how = `(${loadTool}, 32 connections, best of 2 × ${LOAD_SECONDS} s)`;
    const cpu = (l: Load) => (l.cpuUs === undefined ? '' : `, ${l.cpuUs} µs CPU per request`);
    const s = m.serve!;
    const bareNode = m.bare!;
    say(
      'serve: latest badge',
      `${s.rps} req/s, p99 ${s.p99} ms${cpu(s)} ${how}`,
      'serveRps',
      s.rps,
    );
    say(
      'bare node:http, same bytes from memory',
      `${bareNode.rps} req/s, p99 ${bareNode.p99} ms${cpu(bareNode)}`,
      'bareNodeRps',
      bareNode.rps,
    );
    say(
      'serve / bare node:http, req/s (target ≥ 0.8)',
      (s.rps / bareNode.rps).toFixed(2),
      'serveToBareNodeRatio',
      Number((s.rps / bareNode.rps).toFixed(2)),
    );
    if (s.cpuUs && bareNode.cpuUs) {
      say(
        'serve / bare node:http, by CPU per request (target ≥ 0.8)',
        (bareNode.cpuUs / s.cpuUs).toFixed(2),
        'serveToBareNodeCpuRatio',
        Number((bareNode.cpuUs / s.cpuUs).toFixed(2)),
      );
    }
    const r = m.serveRedirect!;
    say(
      'serve: ?timestamp= redirect',
      `${r.rps} req/s, p99 ${r.p99} ms${cpu(r)}`,
      'serveRedirectRps',
      r.rps,
    );
    if (m.nginx && m.fronted && m.frontedRedirect) {
      const n = m.nginx;
      say(
        'nginx: same file, static (1 worker)',
        `${n.rps} req/s, p99 ${n.p99} ms`,
        'nginxRps',
        n.rps,
      );
      say(
        'serve / nginx static (target ≥ 0.5)',
        (s.rps / n.rps).toFixed(2),
        'serveToNginxRatio',
        Number((s.rps / n.rps).toFixed(2)),
      );
      say(
        'nginx in front of serve: latest badge (served by nginx)',
        `${m.fronted.rps} req/s, p99 ${m.fronted.p99} ms (${(m.fronted.rps / n.rps).toFixed(2)} of nginx static, ${(m.fronted.rps / s.rps).toFixed(2)} × serve)`,
        'nginxFrontedRps',
        m.fronted.rps,
      );
      say(
        'nginx in front of serve: ?timestamp= redirect (passed to serve)',
        `${m.frontedRedirect.rps} req/s, p99 ${m.frontedRedirect.p99} ms (${(m.frontedRedirect.rps / r.rps).toFixed(2)} of serve alone)`,
        'nginxFrontedRedirectRps',
        m.frontedRedirect.rps,
      );
      say(
        'nginx static: ?timestamp= redirect',
        'n/a: plain files cannot resolve a time (the fronting configuration passes it to serve)',
      );
    } else {
      say('nginx', 'not installed: no comparison (apt-get install nginx)', 'nginxRps', 'n/a');
    }
  }
}
