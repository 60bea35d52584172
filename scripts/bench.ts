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
import { cpus, freemem, tmpdir, totalmem } from 'node:os';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import autocannon from 'autocannon';
import { makeBadge } from 'badge-maker';
import { generateStore } from './gen-store.ts';
import { benchIncremental } from './bench-incremental.ts';
import { reusedGoldFrom } from '../test/helpers/thresholds.ts';
import { bundleWorker } from './build-worker.ts';
import { bundleCloudFrontFunction, bundleLambdaEdge } from './build-aws.ts';
import { renderBadge } from '../src/render/svg.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    repos: { type: 'string', default: '10000' },
    scans: { type: 'string', default: '10' },
    json: { type: 'string' },
    's3-repos': { type: 'string', default: '100' },
    work: { type: 'string', default: join(tmpdir(), 'badgepress-bench') },
    // Incremental builds and one large store file (scripts/bench-incremental.ts); 0 skips a row.
    'scale-repos': { type: 'string', default: '100000' },
    'spill-records': { type: 'string', default: '10000000' },
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

function cli(args: string[], env: Record<string, string> = {}): { ms: number; rssKb: number; summary: Record<string, number> } {
  const started = Date.now();
  // /usr/bin/time -f %M reports the child's peak RSS in KB.
  const r = spawnSync('/usr/bin/time', ['-f', 'RSS %M', process.execPath, '--import', 'tsx', join(ROOT, 'src/cli.ts'), ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...env, CI: 'true' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = Date.now() - started;
  const rss = /RSS (\d+)/.exec(r.stderr);
  const line = r.stdout.trim().split('\n').pop() ?? '{}';
  if (r.status !== 0 && r.status !== 1) throw new Error(`badgepress ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return { ms, rssKb: rss ? Number(rss[1]) : NaN, summary: JSON.parse(line) };
}

function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out.set(relative(dir, join(e.parentPath, e.name)).split(sep).join('/'), readFileSync(join(e.parentPath, e.name)));
  }
  return out;
}

const digest = (b: Buffer) => createHash('md5').update(b).digest('hex');

// 1. Store: deterministic, so one generated earlier with the same figures is reused.
const store = join(workRoot, `store-${repos}x${scans}-seed1`);
if (!existsSync(join(store, '.complete'))) {
  generateStore({ repos, scans, out: store, seed: 1 });
  writeFileSync(join(store, '.complete'), '');
}
say('store', `${repos} repositories × ${scans} scans (one .ndjson file per repository)`, 'store', `${repos}x${scans}`);

// 2. Build to a directory (fresh directory: never delete a large tree right before timing).
const out = join(work, 'site');
const b = cli(['build', '--store', store, '--out', out, '--now', '1763600000']);
const files = b.summary.written!;
say('build: scans/s', `${Math.round((repos * scans) / (b.ms / 1000))}`, 'buildScansPerSecond', Math.round((repos * scans) / (b.ms / 1000)));
say('build: files/s', `${Math.round(files / (b.ms / 1000))} (${files} files in ${(b.ms / 1000).toFixed(1)} s, process start included)`, 'buildFilesPerSecond', Math.round(files / (b.ms / 1000)));
say('build: peak RSS (target ≤ 200 MB for 100,000 scans)', `${Math.round(b.rssKb / 1024)} MB for ${repos * scans} scans`, 'buildPeakRssMb', Math.round(b.rssKb / 1024));

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
say('raw write limit: files/s', `${Math.round(built.size / (rawMs / 1000))}`, 'rawFilesPerSecond', Math.round(built.size / (rawMs / 1000)));
say('build / raw write (target ≥ 0.7)', (rawMs / b.ms).toFixed(2), 'buildToRawRatio', Number((rawMs / b.ms).toFixed(2)));

// 4. Rebuild after a threshold change that flips about 1 % of badges.
const changedConfig = reusedGoldFrom(join(work, 'cfg'), 21);
const before = new Map([...built].map(([k, v]) => [k, digest(v)]));
const re = cli(['build', '--config', changedConfig, '--store', store, '--out', out, '--now', '1763600000']);
const after = tree(out);
const changed = [...after].filter(([k, v]) => before.get(k) !== digest(v)).length;
const badgeFiles = [...after.keys()].filter((k) => /\/at\/\d+\/badges\/[^/.]+$/.test(k));
const flipped = badgeFiles.filter((k) => JSON.parse(after.get(k)!.toString()).badgeStatus !== JSON.parse(built.get(k)!.toString()).badgeStatus).length;
say('rebuild: badges flipped', `${flipped} of ${badgeFiles.length} (${((100 * flipped) / badgeFiles.length).toFixed(1)} %)`, 'flippedPercent', Number(((100 * flipped) / badgeFiles.length).toFixed(2)));
say('rebuild: files rewritten / files changed (target 1.0)', `${re.summary.written} / ${changed} = ${(re.summary.written! / changed).toFixed(2)}`, 'rewriteRatio', Number((re.summary.written! / changed).toFixed(2)));
say('rebuild: seconds', (re.ms / 1000).toFixed(1), 'rebuildSeconds', Number((re.ms / 1000).toFixed(1)));

// 5. Republish to S3 (s3rver): PUTs sent against objects whose bytes changed, on a smaller store.
{
  const { startS3Peer } = await import('../test/helpers/s3-peer.ts');
  const { startFaultProxy } = await import('../test/helpers/fault-proxy.ts');
  const s3Repos = Number(values['s3-repos']);
  const small = join(work, 'store-s3');
  generateStore({ repos: s3Repos, scans, out: small, seed: 2 });
  const peer = await startS3Peer(['bench']);
  const proxy = await startFaultProxy(peer.port);
  const env = { ...peer.env };
  const args = ['--store', small, '--out', 's3://bench/site', '--s3-endpoint', proxy.endpoint, '--s3-path-style', '--now', '1763600000'];
  // Run asynchronously: the proxy lives in this process.
  const run = (extra: string[]) =>
    new Promise<Record<string, number>>((ok, fail) => {
      const c = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'build', ...extra, ...args, '--json'], { cwd: ROOT, env: { ...process.env, ...env, CI: 'true' } });
      let stdout = '';
      c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      c.on('exit', (code) => (code === 0 ? ok(JSON.parse(stdout.trim().split('\n').pop()!)) : fail(new Error(`s3 build exited ${code}`))));
    });
  const first = await run([]);
  const localSmall = join(work, 'site-s3-local');
  cli(['build', '--store', small, '--out', localSmall, '--now', '1763600000']);
  const smallBefore = new Map([...tree(localSmall)].map(([k, v]) => [k, digest(v)]));
  cli(['build', '--config', changedConfig, '--store', small, '--out', localSmall, '--now', '1763600000']);
  const smallChanged = [...tree(localSmall)].filter(([k, v]) => smallBefore.get(k) !== digest(v)).length;
  proxy.reset();
  await run(['--config', changedConfig]);
  say('republish to S3: PUTs / objects changed (target 1.0)', `${proxy.counts.PUT ?? 0} / ${smallChanged} (store of ${s3Repos} repositories, ${first.written} objects)`, 's3PutRatio', smallChanged ? Number(((proxy.counts.PUT ?? 0) / smallChanged).toFixed(2)) : 'n/a');
  proxy.reset();
  await run(['--config', changedConfig]);
  say('republish to S3 unchanged: PUTs', String(proxy.counts.PUT ?? 0), 's3PutsUnchanged', proxy.counts.PUT ?? 0);
  await proxy.close();
  await peer.stop();
}

// 6. serve on a latest badge, and nginx on the same file when installed. wrk (C, one thread)
// when installed: a Node load generator takes a core of its own on a 2-core machine and
// favours whichever server needs less CPU. Rounds alternate and the best of each counts.
const badgeKey = [...after.keys()].find((k) => /^api\/v1\/repositories\/[^/]+\/badges\/MAINTENANCE\.svg$/.test(k))!;
const which = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim();
const wrk = which('wrk');
const loadTool = wrk ? 'wrk, 1 thread' : 'autocannon';
async function load(url: string): Promise<{ rps: number; p99: number }> {
  if (wrk) {
    const r = spawnSync(wrk, ['-t1', '-c32', '-d8s', '--latency', url], { encoding: 'utf8' });
    const rps = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout);
    const p99 = /^\s+99%\s+([\d.]+)(us|ms|s)$/m.exec(r.stdout);
    if (!rps || !p99) throw new Error(`wrk output not understood: ${r.stdout}${r.stderr}`);
    // A fast error page is not the file: every answer must have been the 200.
    if (/Non-2xx or 3xx responses/.test(r.stdout)) throw new Error(`${url} answered errors under load: ${r.stdout}`);
    return { rps: Math.round(Number(rps[1])), p99: Number((Number(p99[1]) * { us: 0.001, ms: 1, s: 1000 }[p99[2] as 'us' | 'ms' | 's']).toFixed(2)) };
  }
  const r = await autocannon({ url, connections: 32, duration: 8, pipelining: 1 });
  if (r.non2xx > 0) throw new Error(`${url} answered ${r.non2xx} errors under load`);
  return { rps: Math.round(r.requests.average), p99: r.latency.p99 };
}
const best = (a: { rps: number; p99: number } | undefined, b: { rps: number; p99: number }) => (a && a.rps >= b.rps ? a : b);
/** A port nothing listens on now: a fixed one could be held by a stray server, and then measured. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
  const { port } = probe.address() as { port: number };
  await new Promise((ok) => probe.close(ok));
  return port;
}
/** Waits until the URL answers with exactly these bytes: the server under test, ready. */
async function ready(url: string, body: Buffer, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(url);
      if (res.ok && Buffer.from(await res.arrayBuffer()).equals(body)) return;
    } catch {
      // not listening yet
    }
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`${what} at ${url} did not answer with the badge's bytes within 10 s`);
}
{
  // The server runs in its own process, as users run it.
  const [servePort, barePort, nginxPort] = [await freePort(), await freePort(), await freePort()];
  const server = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'serve', '--dir', out, '--port', String(servePort)], { cwd: ROOT, stdio: 'ignore' });
  // The ceiling of Node's own HTTP server on this machine: the same bytes and headers from
  // memory, no routing, no disk. serve can only approach it.
  const badgeBody = after.get(badgeKey)!;
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
    ng = spawn(nginx, ['-c', conf, '-p', work], { stdio: 'ignore' });
  }
  // nginx decodes the path once, so the key's "%" is sent as "%25".
  const { originPath } = await import('../src/model/origin-path.ts');
  const serveUrl = `http://127.0.0.1:${servePort}/${badgeKey}`;
  const bareUrl = `http://127.0.0.1:${barePort}/`;
  const nginxUrl = `http://127.0.0.1:${nginxPort}/${originPath(badgeKey)}`;
  let s: { rps: number; p99: number } | undefined;
  let bareNode: { rps: number; p99: number } | undefined;
  let n: { rps: number; p99: number } | undefined;
  try {
    await ready(serveUrl, badgeBody, 'badgepress serve');
    await ready(bareUrl, badgeBody, 'bare node:http');
    if (ng) await ready(nginxUrl, badgeBody, 'nginx');
    for (let round = 0; round < 2; round++) {
      s = best(s, await load(serveUrl));
      bareNode = best(bareNode, await load(bareUrl));
      if (ng) n = best(n, await load(nginxUrl));
    }
  } finally {
    server.kill();
    bare.kill();
    ng?.kill();
  }
  say('serve: latest badge', `${s!.rps} req/s, p99 ${s!.p99} ms (${loadTool}, 32 connections, best of 2 × 8 s)`, 'serveRps', s!.rps);
  say('bare node:http, same bytes from memory', `${bareNode!.rps} req/s, p99 ${bareNode!.p99} ms (serve reaches ${(s!.rps / bareNode!.rps).toFixed(2)} of it)`, 'bareNodeRps', bareNode!.rps);
  if (n) {
    say('nginx: same file (1 worker)', `${n.rps} req/s, p99 ${n.p99} ms`, 'nginxRps', n.rps);
    say('serve / nginx (target ≥ 0.5)', (s!.rps / n.rps).toFixed(2), 'serveToNginxRatio', Number((s!.rps / n.rps).toFixed(2)));
  } else {
    say('nginx', 'not installed: no comparison', 'nginxRps', 'n/a');
  }
}

// 6b. Incremental builds, the scale run and one large store file.
await benchIncremental({ work, workRoot, store, repos, scans, fullMs: b.ms, changedConfig, cli, say, scaleRepos: Number(values['scale-repos']), spillRecords: Number(values['spill-records']) });

// 7. Sizes.
const worker = await bundleWorker();
say('worker bundle (target ≤ 10 KB)', `${Buffer.byteLength(worker)} bytes minified`, 'workerBytes', Buffer.byteLength(worker));
const cloudFront = Buffer.byteLength(await bundleCloudFrontFunction());
say('CloudFront Function (AWS limit 10 KB)', `${cloudFront} bytes minified`, 'cloudFrontFunctionBytes', cloudFront);
const lambdaEdge = Buffer.byteLength(await bundleLambdaEdge());
say('Lambda@Edge bundle', `${lambdaEdge} bytes minified (AWS SDK from the runtime)`, 'lambdaEdgeBytes', lambdaEdge);
const ours = renderBadge({ label: 'MAINTENANCE', message: 'silver', color: '#9f9f9f' });
const theirs = makeBadge({ label: 'MAINTENANCE', message: 'silver', color: '#9f9f9f' });
say('SVG bytes vs badge-maker (target ≤)', `${ours.length} vs ${theirs.length}`, 'svgBytes', `${ours.length}/${theirs.length}`);

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM (${Math.round(freemem() / 2 ** 30)} free), Node ${process.version}`;
say('machine', machine, 'machine');
process.stdout.write(`\n| measure | figure |\n|---|---|\n${rows.map(([a, v]) => `| ${a} | ${v} |`).join('\n')}\n`);
if (values.json) writeFileSync(values.json, `${JSON.stringify(figures, null, 2)}\n`);
process.stderr.write(`bench: this run's tree is kept in ${work} (see the top of scripts/bench.ts for why)\n`);
