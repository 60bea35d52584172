// `scan --history` over a root big enough that each month's policy files, their folders and
// .mailmap are worked out from git's root diffs (src/measure/git/snapshot.ts), against a scan
// at each month start alone (which reads its one root whole), on seeded random histories made
// with plain git: policies added, removed, renamed and re-cased, names turned from file to
// folder and back, symbolic links and submodules under policy names, .mailmap edits. Each
// history twice: packed as fast-import leaves it (the oldest root whole) and after
// `git repack -adf` (the newest whole, the history read backwards). SECURITY_POLICY is also
// checked against what plain `git ls-tree` shows, by docs/reference/scan.md's definition.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../scripts/lib/synthetic-store.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { ROOT, runCli } from './helpers/cli.ts';
import { git, utc } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';

// Seeds whose histories, among 1 to 11, also caught a mutation of the working-out each (a
// change's case, a folder's removal, an insertion's place, an executable file's mode) and the
// Docs/ beside docs/ miss. FUZZ_SEEDS=1,2,… runs others.
const SEEDS = (process.env.FUZZ_SEEDS ?? '1,4,7').split(',').map(Number);
/** Files in the first root (33 bytes each): four other roots are above 1 MiB to read again. */
const FILLERS = 8_000;
/** Fillers added each commit: each root larger than the one before, so that `git repack -adf`
 *  stores the newest whole. */
const GROWTH = 40;
const FIRST = { year: 2025, month: 1 };
const MONTHS = 14;
const RULES = 'BUS_FACTOR,COMMITS,SECURITY_POLICY';
// History from the first month start after the first commit to E, mid-month after the last.
const SINCE = '2025-02';
const E = utc(2026, 3, 15);
const MONTH_STARTS = Array.from({ length: MONTHS }, (_, k) => utc(2025, 2 + k, 1));

const PEOPLE = [
  'Ada <ada@example.org>',
  'Ada L <ada@old.example>',
  'Bo <bo@example.org>',
  'Bo <bo@work.example>',
  'Cy <cy@example.org>',
  'Di <di@example.org>',
  'dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>',
];
// Lines a .mailmap is made of: merging two addresses, making a person a bot.
const MAILMAP_LINES = [
  'Ada <ada@example.org> <ada@old.example>',
  'Bo <bo@example.org> <bo@work.example>',
  'Cy <cy@example.org> <di@example.org>',
  'ci[bot] <ci@example.org> <cy@example.org>',
  'Ada <ada@example.org> Bo <bo@example.org>',
];

type Entry =
  | { mode: '100644' | '100755' | '120000'; body: string }
  | { mode: '160000'; oid: string };

/**
 * A fast-import stream of MONTHS months of random changes to the names a rule reads (the
 * fillers are the root `first`, made by mktree: fast-import adds files one by one).
 */
function history(seed: number, first: string, filler: string): string {
  const rand = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const recase = (name: string) =>
    [...name].map((ch) => (rand() < 0.35 ? ch.toUpperCase() : ch)).join('');
  const policyName = () => {
    const ext = pick(['.md', '.md', '.markdown', '.adoc', '.rst', '.rst', '.txt']);
    const base = rand() < 0.9 ? 'security' : 'security-policy';
    // Now and then a Kelvin sign for a k: it lower-cases to "k", as Go's EqualFold folds it.
    const name = recase(base + ext);
    return rand() < 0.05 ? name.replace(/k/i, '\u212a') : name;
  };
  // A few spellings of each folder: two of them side by side now and then (Docs/ and docs/).
  const place = () =>
    pick([
      '',
      '',
      '.github',
      '.GitHub',
      'docs',
      'Docs',
      'DOCS',
      'doc',
      'Doc',
      'documentation',
      'src',
    ]);
  const policyPath = () => {
    const folder = place();
    const deeper = folder !== '' && rand() < 0.1 ? `${folder}/${recase('policies')}` : folder;
    return deeper === '' ? policyName() : `${deeper}/${policyName()}`;
  };
  const text = () =>
    rand() < 0.2 ? '' : `report to security@example.org (${Math.floor(rand() * 1e6)})\n`;
  const model = new Map<string, Entry>();
  let commands = '';
  const remove = (path: string) => {
    const under = [...model.keys()].filter((p) => p === path || p.startsWith(`${path}/`));
    if (under.length === 0) return;
    for (const p of under) model.delete(p);
    commands += `D ${path}\n`;
  };
  const set = (path: string, entry: Entry) => {
    const parts = path.split('/');
    for (let k = 1; k < parts.length; k++) remove(parts.slice(0, k).join('/'));
    if ([...model.keys()].some((p) => p.startsWith(`${path}/`))) remove(path);
    model.set(path, entry);
    commands +=
      entry.mode === '160000'
        ? `M 160000 ${entry.oid} ${path}\n`
        : `M ${entry.mode} inline ${path}\ndata ${Buffer.byteLength(entry.body)}\n${entry.body}\n`;
  };
  const someName = () => {
    const names = [...model.keys()].flatMap((p) =>
      p.split('/').map((_, k, all) => all.slice(0, k + 1).join('/')),
    );
    return names.length === 0 ? undefined : pick(names);
  };
  const changes: Array<() => void> = [
    // A policy file, maybe empty, maybe executable.
    () => set(policyPath(), { mode: rand() < 0.3 ? '100755' : '100644', body: text() }),
    () => set(policyPath(), { mode: rand() < 0.3 ? '100755' : '100644', body: text() }),
    // A file made executable or not: its mode alone changes.
    () => {
      const files = [...model].filter(([, e]) => e.mode === '100644' || e.mode === '100755');
      if (files.length === 0) return;
      const [path, entry] = pick(files);
      if (entry.mode !== '160000')
        set(path, { ...entry, mode: entry.mode === '100644' ? '100755' : '100644' });
    },
    // Something removed, whole folders too.
    () => {
      const name = someName();
      if (name !== undefined && name !== '.mailmap') remove(name);
    },
    // Renamed: under another case or place.
    () => {
      const name = [...model.keys()].filter((p) => p !== '.mailmap');
      if (name.length === 0) return;
      const from = pick(name);
      const entry = model.get(from)!;
      remove(from);
      set(rand() < 0.5 ? recase(from.toLowerCase()) : policyPath(), entry);
    },
    // A policy's name or a policy folder's made a folder, or a folder made a file.
    () =>
      set(`${rand() < 0.5 ? policyName() : place() || 'docs'}/${policyName()}`, {
        mode: '100644',
        body: text(),
      }),
    () => {
      const name = someName();
      if (name !== undefined && name !== '.mailmap') set(name, { mode: '100644', body: text() });
    },
    // A symbolic link or a submodule under a policy's name or a folder's.
    () =>
      set(rand() < 0.5 ? policyPath() : recase(pick(['docs', '.github', 'doc'])), {
        mode: '120000',
        body: 'README',
      }),
    () =>
      set(rand() < 0.5 ? policyPath() : recase(pick(['docs', '.github', 'doc'])), {
        mode: '160000',
        oid: Math.floor(rand() * 16)
          .toString(16)
          .repeat(40),
      }),
    // The .mailmap rewritten or removed.
    () => {
      if (rand() < 0.2) return remove('.mailmap');
      const lines = MAILMAP_LINES.filter(() => rand() < 0.5);
      set('.mailmap', { mode: '100644', body: `# seed ${seed}\n${lines.join('\n')}\n` });
    },
  ];
  let stream = '';
  let mark = 0;
  let fillers = FILLERS;
  for (let m = 0; m < MONTHS; m++) {
    // Mostly one commit a month, some months none (two month starts share a tip), some three.
    const count = m === 0 ? 1 : pick([0, 1, 1, 1, 2, 3]);
    for (let c = 0; c < count; c++) {
      const at = utc(FIRST.year, FIRST.month + m, 3 + 8 * c, 12);
      const who = pick(PEOPLE);
      mark++;
      commands = '';
      if (mark === 1) commands += `M 040000 ${first} ""\n`;
      // Now and then a commit that changes nothing: its root is the one before.
      if (mark === 1 || rand() > 0.1) {
        for (let k = 0; k < 1 + Math.floor(rand() * 4); k++) pick(changes)();
        if (mark === 1) set('.mailmap', { mode: '100644', body: `${MAILMAP_LINES[0]}\n` });
        const touched = `touched at ${mark}\n`;
        commands += `M 100644 inline f${Math.floor(rand() * fillers)}\ndata ${touched.length}\n${touched}\n`;
        for (let k = 0; k < GROWTH; k++) commands += `M 100644 ${filler} f${fillers++}\n`;
      }
      stream += `commit refs/heads/main\nmark :${mark}\nauthor ${who} ${at} +0000\ncommitter ${who} ${at} +0000\ndata 6\nmonth\n${mark > 1 ? `from :${mark - 1}\n` : ''}${commands}\n`;
    }
  }
  return stream;
}

/** A bare repository of `seed`'s history, packed as fast-import leaves it. */
function generate(dir: string, seed: number): void {
  git(ROOT, ['init', '-q', '--bare', '-b', 'main', dir]);
  const filler = git(dir, ['hash-object', '-w', '--stdin'], {}, 'x\n').trim();
  const rows = Array.from({ length: FILLERS }, (_, i) => `100644 blob ${filler}\tf${i}`);
  const first = git(dir, ['mktree'], {}, `${rows.join('\n')}\n`).trim();
  git(dir, ['fast-import', '--quiet'], {}, history(seed, first, filler));
}

const POLICY_NAMES = ['security.md', 'security.markdown', 'security.adoc', 'security.rst'];

/**
 * The policies of `commit` by docs/reference/scan.md's definition, from plain `git ls-tree`:
 * a non-empty regular file named SECURITY.md, .markdown, .adoc or .rst in the root, .github/
 * or docs/, or doc/security.rst, names and folders compared case-insensitively. `empty`: the
 * id of the empty blob (a file of no bytes).
 */
function policiesByGit(gitDir: string, commit: string, empty: string): string[] {
  return git(gitDir, ['ls-tree', '-r', '-z', '--full-tree', commit])
    .split('\0')
    .filter((row) => row !== '')
    .flatMap((row) => {
      const [meta, path] = row.split('\t') as [string, string];
      const [mode, , oid] = meta.split(' ') as [string, string, string];
      const lower = path.split('/').map((part) => part.toLowerCase());
      const named =
        (lower.length === 1 && POLICY_NAMES.includes(lower[0]!)) ||
        (lower.length === 2 &&
          ['.github', 'docs'].includes(lower[0]!) &&
          POLICY_NAMES.includes(lower[1]!)) ||
        (lower.length === 2 && lower[0] === 'doc' && lower[1] === 'security.rst');
      return named && (mode === '100644' || mode === '100755') && oid !== empty ? [path] : [];
    });
}

/** The tip of main at each time by plain git: its newest commit committed by then. */
function tipsByGit(gitDir: string, times: readonly number[]): string[] {
  const commits = git(gitDir, ['log', '--first-parent', '--format=%H %ct', 'main'])
    .trim()
    .split('\n')
    .map((l) => l.split(' ') as [string, string]);
  return times.map((t) => commits.find(([, at]) => Number(at) <= t)![0]);
}

interface ScanLine {
  timestamp: number;
  values: Record<string, unknown>;
  evidence: Record<string, string>;
  revision?: { commit: string };
}

const lines = (file: string): ScanLine[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ScanLine);

describe('scan --history over big roots worked out from root diffs', () => {
  const root = tempDir('badgepress-root-diffs-');
  const config = join(root, 'badgepress.yaml');
  const list = join(root, 'repos.txt');
  const repos: Array<{ name: string; dir: string; repacked: boolean }> = [];
  let trace = '';

  beforeAll(async () => {
    for (const seed of SEEDS) {
      const imported = join(root, `seed${seed}.git`);
      generate(imported, seed);
      const repacked = join(root, `seed${seed}-repacked.git`);
      cpSync(imported, repacked, { recursive: true });
      // One thread: threads split the objects, and a root at a split finds no base (stored whole).
      git(repacked, ['-c', 'pack.threads=1', 'repack', '-adfq']);
      repos.push({ name: `seed${seed}`, dir: imported, repacked: false });
      repos.push({ name: `seed${seed}-repacked`, dir: repacked, repacked: true });
    }
    writeFileSync(
      config,
      [
        'shape: A',
        'store: store',
        'out: dist',
        `thresholds:\n  A: ${resolve(ROOT, 'examples/scan/thresholds-git.yaml')}`,
        'scan:\n  mirrors: mirrors\n  retries: 0',
        '',
      ].join('\n'),
    );
    writeFileSync(
      list,
      repos.map((r) => `https://example.org/fuzz/${r.name} mirror=${r.dir}\n`).join(''),
    );
    const scan = (store: string, ...more: string[]) => [
      'scan',
      '--config',
      config,
      '--repos',
      list,
      '--store',
      join(root, store),
      '--rules',
      RULES,
      ...more,
    ];
    // The history through the compiled command line, tracing the git commands it runs.
    const traceFile = join(root, 'git-trace.log');
    const h = runCli(
      scan('history', '--as-of', String(E), '--history', 'monthly', '--since', SINCE),
      {
        env: { GIT_TRACE: traceFile },
      },
    );
    expect(h.stderr).toBe('');
    expect(h.code).toBe(0);
    trace = readFileSync(traceFile, 'utf8');
    for (const t of [...MONTH_STARTS, E]) {
      const r = await runCommand(scan('single', '--as-of', String(t)));
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
  }, 120_000);

  it('each history is of the shape that takes the diff path, stored as the test means', () => {
    for (const { dir, repacked } of repos) {
      const tips = tipsByGit(dir, MONTH_STARTS);
      const roots = [...new Set(tips.map((c) => git(dir, ['rev-parse', `${c}^{tree}`]).trim()))];
      const stored = git(
        dir,
        ['cat-file', '--batch-check=%(objectsize) %(deltabase)'],
        {},
        `${roots.join('\n')}\n`,
      )
        .trim()
        .split('\n')
        .map((l) => l.split(' ') as [string, string]);
      // Reading every root but one whole would print more than 1 MiB (docs/reference/scan.md).
      expect(stored.slice(1).reduce((sum, [size]) => sum + Number(size), 0)).toBeGreaterThan(
        1 << 20,
      );
      const whole = (k: number) => /^0+$/.test(stored[k]![1]);
      // fast-import stores the oldest root whole; repack -adf the newest, the oldest a delta.
      if (repacked) expect([whole(0), whole(stored.length - 1)]).toEqual([false, true]);
      else expect(whole(0)).toBe(true);
    }
    // One diff-tree --stdin per repository: each history took the diff path.
    expect(trace.match(/git diff-tree .*--stdin/g)).toHaveLength(repos.length);
  });

  it.each(SEEDS.flatMap((seed) => [`seed${seed}`, `seed${seed}-repacked`]))(
    '%s: each month as a single scan at its start measures it, and as plain git shows',
    (name) => {
      const { dir } = repos.find((r) => r.name === name)!;
      const file = `example.org/fuzz/${name}.ndjson`;
      const history = lines(join(root, 'history', file));
      const single = lines(join(root, 'single', file));
      expect(history.map((l) => l.timestamp)).toEqual([...MONTH_STARTS, E]);
      expect(history).toEqual(single);
      expect(readFileSync(join(root, 'history', file))).toEqual(
        readFileSync(join(root, 'single', file)),
      );
      const empty = git(dir, ['hash-object', '--stdin'], {}, '').trim();
      const tips = tipsByGit(
        dir,
        history.map((l) => l.timestamp),
      );
      for (const [k, line] of history.entries()) {
        expect(line.revision?.commit).toBe(tips[k]);
        const policies = policiesByGit(dir, tips[k]!, empty);
        const month = new Date(line.timestamp * 1000).toISOString().slice(0, 10);
        expect({ month, policies, policy: line.values.SECURITY_POLICY }).toEqual({
          month,
          policies,
          policy: policies.length > 0,
        });
        // The evidence names one of them.
        if (policies.length > 0)
          expect(policies.some((p) => line.evidence.SECURITY_POLICY!.startsWith(`${p} in `))).toBe(
            true,
          );
      }
    },
  );
});
