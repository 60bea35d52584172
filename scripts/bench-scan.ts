// `npm run bench -- --only scan`: badgepress scan beside the bare git commands that read the
// same data, its peak memory on one long history, and a 24-month history against one scan, on
// small repositories and on one whose root holds 100,000 files (as generated, and repacked).
// The repositories are generated once (git fast-import, fixed dates) and kept under
// <work>/scan between runs; each run scans into fresh stores.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
  /** Files in the root of the wide repository (0: no wide rows). */
  wideFiles: number;
  say: (name: string, value: string, key?: string, raw?: number | string) => void;
  cli: (args: string[]) => {
    ms: number;
    cpuMs: number;
    rssKb: number;
    summary: Record<string, number>;
  };
}

const AS_OF = Date.UTC(2026, 10, 1) / 1000;
const PEOPLE = [
  'Ada <ada@example.org>',
  'Bo <bo@example.org>',
  'Cy <cy@example.org>',
  'Di <di@example.org>',
  'dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>',
];

/** A bare repository of `commits` commits over the 3 years before AS_OF, a tag every 100. */
async function generate(dir: string, commits: number, seed: number): Promise<void> {
  if (existsSync(join(dir, '.complete'))) return;
  rmSync(dir, { recursive: true, force: true });
  spawnSync('git', ['init', '-q', '--bare', '-b', 'main', dir]);
  const child = spawn('git', ['--git-dir', dir, 'fast-import', '--quiet'], {
    stdio: ['pipe', 'ignore', 'inherit'],
  });
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
  await new Promise<void>((ok, fail) =>
    child.on('close', (code) =>
      code === 0 ? ok() : fail(new Error(`git fast-import exited ${code}`)),
    ),
  );
  writeFileSync(join(dir, '.complete'), '');
}

/** Runs `git fast-import` on `stream` in the repository `dir`. */
function fastImport(dir: string, stream: string): void {
  const r = spawnSync('git', ['--git-dir', dir, 'fast-import', '--quiet'], {
    input: stream,
    stdio: ['pipe', 'ignore', 'inherit'],
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`git fast-import exited ${r.status}`);
}

/**
 * A bare repository whose root holds `files` files, a SECURITY.md and a .mailmap, with a
 * commit on the first of each of the 26 months before AS_OF, each changing three root files
 * (every month a new root tree). fast-import adds files to a tree one by one, each a walk of
 * the tree (minutes for 100,000), so the first root is made by `git mktree` and set whole.
 */
function generateWide(dir: string, files: number): void {
  if (existsSync(join(dir, '.complete'))) return;
  rmSync(dir, { recursive: true, force: true });
  spawnSync('git', ['init', '-q', '--bare', '-b', 'main', dir]);
  const blobs: string[] = [];
  const rows: string[] = [];
  for (let i = 0; i < files; i++) {
    const body = `file ${i}\n`;
    blobs.push(`blob\ndata ${body.length}\n${body}\n`);
    const oid = createHash('sha1').update(`blob ${body.length}\0${body}`).digest('hex');
    rows.push(`100644 blob ${oid}\tfile-${String(i).padStart(6, '0')}.txt`);
  }
  fastImport(dir, blobs.join(''));
  const made = spawnSync('git', ['--git-dir', dir, 'mktree'], {
    input: `${rows.join('\n')}\n`,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (made.status !== 0) throw new Error(`git mktree exited ${made.status}: ${made.stderr}`);
  const root = made.stdout.trim();
  const inline = (path: string, body: string) =>
    `M 100644 inline ${path}\ndata ${Buffer.byteLength(body)}\n${body}\n`;
  let stream = '';
  for (let m = 0; m < 26; m++) {
    const at = new Date(AS_OF * 1000);
    const t = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - 26 + m, 1) / 1000;
    const who = PEOPLE[m % 4]!;
    stream += `commit refs/heads/main\nmark :${m + 1}\nauthor ${who} ${t} +0000\ncommitter ${who} ${t} +0000\ndata 6\nmonth\n${m > 0 ? `from :${m}\n` : ''}`;
    if (m === 0)
      stream += `M 040000 ${root} ""\n${inline('SECURITY.md', 'Report to security@example.org\n')}`;
    // The .mailmap changes twice: three versions to read over the history.
    if (m % 12 === 0)
      stream += inline(
        '.mailmap',
        `Ada Lovelace <ada@example.org> <ada@example.org>\n# version ${m / 12}\n`,
      );
    for (let k = 0; k < 3; k++)
      stream += inline(
        `file-${String((m * 7919 + k * 104729) % files).padStart(6, '0')}.txt`,
        `month ${m} ${k}\n`,
      );
    stream += '\n';
  }
  fastImport(dir, stream);
  writeFileSync(join(dir, '.complete'), '');
}

/** The git commands that read what a scan reads, per repository, `concurrency` at a time. */
async function bareGit(dirs: readonly string[], concurrency: number): Promise<number> {
  const limit = pLimit(concurrency);
  const run = (dir: string, args: string[]) =>
    new Promise<void>((ok, fail) => {
      const c = spawn('git', ['--git-dir', dir, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
      c.stdout.resume();
      c.on('close', (code) =>
        code === 0 ? ok() : fail(new Error(`git ${args[0]} exited ${code}`)),
      );
    });
  const started = performance.now();
  await Promise.all(
    dirs.map((dir) =>
      limit(async () => {
        await run(dir, [
          'for-each-ref',
          '--format=%(refname)%00%(objectname)%00%(objecttype)%00%(taggerdate:unix)%00%(*objecttype)%00%(*committerdate:unix)%00%(committerdate:unix)',
          'refs/heads',
          'refs/tags',
        ]);
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
  o.say(
    'scan: repositories',
    `${o.repos} × ${o.commits} commits, and one of ${o.bigCommits} (generated or reused in ${((performance.now() - genStarted) / 1000).toFixed(1)} s)`,
    'scanRepos',
    `${o.repos}x${o.commits}`,
  );

  const config = join(o.work, 'scan.yaml');
  // Two at a time on any host: the machine's two cores.
  writeFileSync(
    config,
    `scan:\n  concurrency: 2\n  perHost: 2\n  mirrors: ${join(o.work, 'mirrors')}\n`,
  );
  const list = (name: string, paths: readonly string[]) => {
    const file = join(o.work, `${name}.txt`);
    writeFileSync(
      file,
      paths.map((p, i) => `https://bench.example/r/${name}-${i} mirror=${p}`).join('\n') + '\n',
    );
    return file;
  };
  const many = list('many', dirs);
  const scanOf = (repos: string, store: string, ...more: string[]) =>
    o.cli([
      'scan',
      '--config',
      config,
      '--repos',
      repos,
      '--store',
      join(o.work, store),
      '--as-of',
      String(AS_OF),
      ...more,
    ]);

  // Side by side, alternating, best of three: the scan, then the bare git commands.
  const scanMs: number[] = [];
  const bareMs: number[] = [];
  for (let round = 0; round < 3; round++) {
    scanMs.push(scanOf(many, `store-many-${round}`).ms);
    bareMs.push(await bareGit(dirs, 2));
  }
  const [s, b] = [Math.min(...scanMs), Math.min(...bareMs)];
  o.say(
    'scan ÷ bare git reading the same data (target ≥ 0.7)',
    `${(b / s).toFixed(2)} (bare git ${(b / 1000).toFixed(2)} s, scan ${(s / 1000).toFixed(2)} s with process start; best of 3)`,
    'scanToBareGitRatio',
    Number((b / s).toFixed(3)),
  );

  if (o.bigCommits > 0) {
    const one = scanOf(list('big', [big]), 'store-big');
    o.say(
      `scan: peak RSS, one repository of ${o.bigCommits} commits (target ≤ 150 MB)`,
      `${Math.round(one.rssKb / 1024)} MB (${(one.ms / 1000).toFixed(2)} s)`,
      'scanBigPeakRssMb',
      Math.round(one.rssKb / 1024),
    );
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
  o.say(
    'scan: --history monthly over 24 months ÷ one scan (target ≤ 1.5)',
    `${(hm / sm).toFixed(2)} (${(hm / 1000).toFixed(2)} s ÷ ${(sm / 1000).toFixed(2)} s; best of 3)`,
    'scanHistoryRatio',
    Number((hm / sm).toFixed(3)),
  );

  if (o.wideFiles > 0) {
    // The same history on one repository whose root holds wideFiles files: a new root tree
    // every month. Wall and CPU seconds (user + system, git's included), best of 3 alternating.
    const wide = join(o.root, `wide-${o.wideFiles}.git`);
    const files = o.wideFiles.toLocaleString('en');
    wideRow(wide, 'wide', `a root of ${files} files`, 'scanWideHistoryRatio');
    // The same objects packed as a server packs a clone: the newest root stored whole, each
    // older one a delta of a newer one (fast-import stored each as a delta of the month before).
    const repacked = join(o.root, `wide-${o.wideFiles}-repacked.git`);
    wideRow(
      repacked,
      'repacked',
      `the same repacked (git repack -adf)`,
      'scanRepackedHistoryRatio',
      wide,
    );
  }

  function wideRow(dir: string, name: string, label: string, key: string, repackOf?: string): void {
    const started = performance.now();
    if (repackOf) repack(repackOf, dir);
    else generateWide(dir, o.wideFiles);
    const repos = list(name, [dir]);
    const runs = {
      one: [] as Array<{ ms: number; cpuMs: number }>,
      history: [] as Array<{ ms: number; cpuMs: number }>,
    };
    for (let round = 0; round < 3; round++) {
      runs.one.push(scanOf(repos, `store-${name}-single-${round}`));
      runs.history.push(
        scanOf(repos, `store-${name}-history-${round}`, '--history', 'monthly', '--since', since),
      );
    }
    const best = (rs: Array<{ ms: number; cpuMs: number }>, k: 'ms' | 'cpuMs') =>
      Math.min(...rs.map((r) => r[k]));
    const [wh, ws, ch, cs] = [
      best(runs.history, 'ms'),
      best(runs.one, 'ms'),
      best(runs.history, 'cpuMs'),
      best(runs.one, 'cpuMs'),
    ];
    const s = (ms: number) => (ms / 1000).toFixed(2);
    o.say(
      `scan: --history monthly over 24 months ÷ one scan, ${label} (target ≤ 1.5)`,
      `${(wh / ws).toFixed(2)} (${s(wh)} s ÷ ${s(ws)} s; by CPU ${(ch / cs).toFixed(2)}, ${s(ch)} s ÷ ${s(cs)} s; best of 3, ${s(performance.now() - started)} s in all)`,
      key,
      Number((wh / ws).toFixed(3)),
    );
  }
}

/** A copy of the repository `from` at `to`, packed by `git repack -adf --depth=50` (kept between runs). */
function repack(from: string, to: string): void {
  if (existsSync(join(to, '.complete'))) return;
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
  rmSync(join(to, '.complete'));
  const r = spawnSync('git', ['--git-dir', to, 'repack', '-adfq', '--depth=50'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`git repack exited ${r.status}`);
  writeFileSync(join(to, '.complete'), '');
}
