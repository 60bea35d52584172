// `npm run bench -- --only scan`: badgepress scan beside the bare git commands that read the
// same data, its peak memory on one long history, and a 24-month history against one scan.
// The repositories are generated once (git fast-import, fixed dates) and kept under
// <work>/scan between runs; each run scans into fresh stores.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pLimit from 'p-limit';

export interface ScanBenchOptions {
  /** Where generated repositories are kept between runs. */
  root: string;
  /** This run's own folder (stores). */
  work: string;
  repos: number;
  commits: number;
  bigCommits: number;
  say: (name: string, value: string, key?: string, raw?: number | string) => void;
  cli: (args: string[]) => { ms: number; cpuMs: number; rssKb: number; summary: Record<string, number> };
}

const AS_OF = Date.UTC(2026, 10, 1) / 1000;
const PEOPLE = ['Ada <ada@example.org>', 'Bo <bo@example.org>', 'Cy <cy@example.org>', 'Di <di@example.org>', 'dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>'];

/** A bare repository of `commits` commits over the 3 years before AS_OF, a tag every 100. */
async function generate(dir: string, commits: number, seed: number): Promise<void> {
  if (existsSync(join(dir, '.complete'))) return;
  rmSync(dir, { recursive: true, force: true });
  spawnSync('git', ['init', '-q', '--bare', '-b', 'main', dir]);
  const child = spawn('git', ['--git-dir', dir, 'fast-import', '--quiet'], { stdio: ['pipe', 'ignore', 'inherit'] });
  const span = 3 * 365 * 86400;
  let chunk = '';
  const flush = async () => {
    if (!child.stdin.write(chunk)) await new Promise((ok) => child.stdin.once('drain', ok));
    chunk = '';
  };
  for (let i = 1; i <= commits; i++) {
    const t = AS_OF - span + Math.floor((span * i) / (commits + 1));
    const who = PEOPLE[(i * 7 + seed) % PEOPLE.length]!;
    const body = `${seed}:${i}\n`;
    const file = i === 1 ? 'SECURITY.md' : `src/file-${i % 64}.txt`;
    chunk += `commit refs/heads/main\nmark :${i}\nauthor ${who} ${t} +0000\ncommitter ${who} ${t} +0000\ndata 8\ncommit!\n${i > 1 ? `from :${i - 1}\n` : ''}M 100644 inline ${file}\ndata ${Buffer.byteLength(body)}\n${body}\n`;
    if (i % 100 === 0) chunk += `reset refs/tags/v${i / 100}\nfrom :${i}\n\n`;
    if (chunk.length > 1 << 20) await flush();
  }
  await flush();
  child.stdin.end();
  await new Promise<void>((ok, fail) => child.on('close', (code) => (code === 0 ? ok() : fail(new Error(`git fast-import exited ${code}`)))));
  writeFileSync(join(dir, '.complete'), '');
}

/** The git commands that read what a scan reads, per repository, `concurrency` at a time. */
async function bareGit(dirs: readonly string[], concurrency: number): Promise<number> {
  const limit = pLimit(concurrency);
  const run = (dir: string, args: string[]) =>
    new Promise<void>((ok, fail) => {
      const c = spawn('git', ['--git-dir', dir, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
      c.stdout.resume();
      c.on('close', (code) => (code === 0 ? ok() : fail(new Error(`git ${args[0]} exited ${code}`))));
    });
  const started = performance.now();
  await Promise.all(
    dirs.map((dir) =>
      limit(async () => {
        await run(dir, ['for-each-ref', '--format=%(refname)%00%(objectname)%00%(objecttype)%00%(taggerdate:unix)%00%(*objecttype)%00%(*committerdate:unix)%00%(committerdate:unix)', 'refs/heads', 'refs/tags']);
        await run(dir, ['log', '-z', '--format=%H%n%P%n%ct%n%an%n%ae', 'main']);
        await run(dir, ['ls-tree', 'main']);
      }),
    ),
  );
  return performance.now() - started;
}

export async function scanRows(o: ScanBenchOptions): Promise<void> {
  mkdirSync(o.root, { recursive: true });
  const genStarted = performance.now();
  const dirs: string[] = [];
  for (let i = 0; i < o.repos; i++) {
    const dir = join(o.root, `r${o.commits}-${i}.git`);
    await generate(dir, o.commits, i);
    dirs.push(dir);
  }
  const big = join(o.root, `big-${o.bigCommits}.git`);
  if (o.bigCommits > 0) await generate(big, o.bigCommits, 0);
  o.say('scan: repositories', `${o.repos} × ${o.commits} commits, and one of ${o.bigCommits} (generated or reused in ${((performance.now() - genStarted) / 1000).toFixed(1)} s)`, 'scanRepos', `${o.repos}x${o.commits}`);

  const config = join(o.work, 'scan.yaml');
  // Two at a time on any host: the machine's two cores.
  writeFileSync(config, `scan:\n  concurrency: 2\n  perHost: 2\n  mirrors: ${join(o.work, 'mirrors')}\n`);
  const list = (name: string, paths: readonly string[]) => {
    const file = join(o.work, `${name}.txt`);
    writeFileSync(file, paths.map((p, i) => `https://bench.example/r/${name}-${i} mirror=${p}`).join('\n') + '\n');
    return file;
  };
  const many = list('many', dirs);
  const scanOf = (repos: string, store: string, ...more: string[]) => o.cli(['scan', '--config', config, '--repos', repos, '--store', join(o.work, store), '--as-of', String(AS_OF), ...more]);

  // Side by side, alternating, best of three: the scan, then the bare git commands.
  const scanMs: number[] = [];
  const bareMs: number[] = [];
  for (let round = 0; round < 3; round++) {
    scanMs.push(scanOf(many, `store-many-${round}`).ms);
    bareMs.push(await bareGit(dirs, 2));
  }
  const [s, b] = [Math.min(...scanMs), Math.min(...bareMs)];
  o.say('scan ÷ bare git reading the same data (target ≥ 0.7)', `${(b / s).toFixed(2)} (bare git ${(b / 1000).toFixed(2)} s, scan ${(s / 1000).toFixed(2)} s with process start; best of 3)`, 'scanToBareGitRatio', Number((b / s).toFixed(3)));

  if (o.bigCommits > 0) {
    const one = scanOf(list('big', [big]), 'store-big');
    o.say(`scan: peak RSS, one repository of ${o.bigCommits} commits (target ≤ 150 MB)`, `${Math.round(one.rssKb / 1024)} MB (${(one.ms / 1000).toFixed(2)} s)`, 'scanBigPeakRssMb', Math.round(one.rssKb / 1024));
  }

  // 24 month starts and E from one pass, against one scan of E (both into fresh stores).
  const since = new Date((AS_OF - 730 * 86400) * 1000).toISOString().slice(0, 7);
  const historyMs: number[] = [];
  const singleMs: number[] = [];
  for (let round = 0; round < 3; round++) {
    singleMs.push(scanOf(many, `store-single-${round}`).ms);
    const h = scanOf(many, `store-history-${round}`, '--history', 'monthly', '--since', since);
    historyMs.push(h.ms);
  }
  const [hm, sm] = [Math.min(...historyMs), Math.min(...singleMs)];
  o.say('scan: --history monthly over 24 months ÷ one scan (target ≤ 1.5)', `${(hm / sm).toFixed(2)} (${(hm / 1000).toFixed(2)} s ÷ ${(sm / 1000).toFixed(2)} s; best of 3)`, 'scanHistoryRatio', Number((hm / sm).toFixed(3)));
}
