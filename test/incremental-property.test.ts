// The incremental build against a clean one, as a property: random sequences of store edits
// (new and edited scans, duplicates across files, bad records, deleted files, a file put back
// with its old bytes and mtime as `cp -p` would, a file written just before the build),
// config edits (bands, openapi, pages, a badge removed), --prune, --shard i/n (then `site
// --shards n`), --force, a build that stops part way, and --now moving past expiry. After each
// step the output is compared with a clean build of the same inputs into an empty directory:
// with --prune it is equal byte for byte, without it every file the clean build writes is
// there with the same bytes (files a build without --prune leaves are allowed), and the exit
// codes agree. The commands run in-process (the CLI's main()), pages and lease included.
// Once on a directory, once with the store and the site on s3rver (the examples and random
// sequences on both: two random ones on a directory, one on s3rver). Bounded for CI;
// BADGEPRESS_PROPERTY_RUNS=n runs more (and BADGEPRESS_SEED another seed).
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { PutObjectCommand, paginateListObjectsV2 } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteKeys } from '../src/s3/delete-keys.ts';
import { ROOT } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { buildIncrementally } from './helpers/incremental.ts';
import { readTree } from './helpers/site.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const REPOS = [0, 1, 2, 3].map((i) => `https://github.com/prop/r${i}`);
const FILES = ['a.ndjson', 'b.ndjson', 'c.ndjson'];
const DAY = 86400;
const T0 = 1_760_000_000;
const THRESHOLDS = readFileSync(join(ROOT, 'config/thresholds-a.yaml'), 'utf8');
const WITHOUT_REUSED = THRESHOLDS.replace(/ {2}- id: DEPENDENTS[\s\S]*?(?=badges:)/, '').replace(
  / {2}- id: REUSED[\s\S]*$/,
  '',
);

type Step =
  | { kind: 'scan'; repo: number; file: number; day: number; value: number }
  | { kind: 'edit'; file: number; value: number }
  | { kind: 'bad'; file: number }
  | { kind: 'deleteFile'; file: number }
  | { kind: 'restore'; file: number }
  | { kind: 'racy'; file: number; value: number }
  | { kind: 'bands'; value: number }
  | { kind: 'openapi' }
  | { kind: 'pages' }
  | { kind: 'badge' }
  | { kind: 'time'; days: number }
  /** A new scan in a file, published in part by a build that stopped, then the file put back as it was (`cp -p`). */
  | { kind: 'crash'; file: number; value: number; after: number };

/** How the step's build runs: --prune, --force, the shard count. */
interface Flags {
  prune: boolean;
  force: boolean;
  shards: number;
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('scan' as const),
      repo: fc.nat(3),
      file: fc.nat(2),
      day: fc.nat(40),
      value: fc.nat(25),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      file: fc.nat(2),
      value: fc.nat(25),
    }),
  },
  fc.record({ kind: fc.constant('bad' as const), file: fc.nat(2) }),
  fc.record({ kind: fc.constant('deleteFile' as const), file: fc.nat(2) }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('restore' as const), file: fc.nat(2) }) },
  fc.record({ kind: fc.constant('racy' as const), file: fc.nat(2), value: fc.nat(25) }),
  fc.record({ kind: fc.constant('bands' as const), value: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('openapi' as const) }),
  fc.record({ kind: fc.constant('pages' as const) }),
  fc.record({ kind: fc.constant('badge' as const) }),
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('time' as const),
      days: fc.integer({ min: 1, max: 40 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('crash' as const),
      file: fc.nat(2),
      value: fc.nat(25),
      after: fc.nat(150),
    }),
  },
);
const flagsArb: fc.Arbitrary<Flags> = fc.record({
  prune: fc.boolean(),
  force: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, fc.constant(true)),
  shards: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, fc.integer({ min: 2, max: 3 })),
});

interface FileVersion {
  text: string;
  mtime: number;
}

interface World {
  root: string;
  store: string;
  config: string;
  now: number;
  clock: number;
  bands: number;
  openapi: boolean;
  pages: boolean;
  reused: boolean;
  /** Store file → its lines; and every version each file had, for `restore`. */
  files: Map<string, string[]>;
  history: Map<string, FileVersion[]>;
  /** Each file's mtime as last written. */
  mtimes: Map<string, number>;
  out: string;
}

function newWorld(root: string, out: string): World {
  const store = join(root, 'store');
  mkdirSync(store, { recursive: true });
  const w: World = {
    root,
    store,
    config: join(root, 'site.yaml'),
    now: T0 + 20 * DAY,
    clock: 1_700_000_000,
    bands: 0,
    openapi: true,
    pages: true,
    reused: true,
    files: new Map(),
    history: new Map(),
    mtimes: new Map(),
    out,
  };
  writeConfig(w);
  for (const [i, url] of REPOS.entries())
    addLine(w, FILES[i % FILES.length]!, scanLine(url, T0 + i * DAY, i * 3));
  return w;
}

function writeConfig(w: World): void {
  writeFileSync(
    w.config,
    `shape: A\nexpireAfterDays: 30\nthresholds: { A: thresholds.yaml }\nopenapi: ${w.openapi}\npages: ${w.pages}\n`,
  );
  const text = w.reused ? THRESHOLDS : WITHOUT_REUSED;
  const bands =
    w.bands === 0
      ? text
      : text.replace(
          '{ min: 5, max: 19, status: silver }\n      - { min: 20, max: null, status: gold }',
          `{ min: 5, max: ${19 + w.bands}, status: silver }\n      - { min: ${20 + w.bands}, max: null, status: gold }`,
        );
  writeFileSync(join(w.root, 'thresholds.yaml'), bands);
}

function scanLine(url: string, t: number, v: number): string {
  return JSON.stringify({
    repositoryUrl: url,
    timestamp: t,
    values: {
      BUS_FACTOR: v % 7,
      ISSUE_REACTION_TIME: v % 11,
      DEPENDENTS: v,
      SECURITY_POLICY: v % 2 === 0,
    },
  });
}

function addLine(w: World, name: string, line: string): void {
  w.files.set(name, [...(w.files.get(name) ?? []), line]);
  writeStoreFile(w, name);
}

/** Writes a store file with an mtime in the past, distinct per write (or `mtime`), and keeps the version. */
function writeStoreFile(w: World, name: string, mtime?: number): void {
  const text = `${w.files.get(name)!.join('\n')}\n`;
  const at = mtime ?? (w.clock += 10);
  writeFileSync(join(w.store, name), text);
  utimesSync(join(w.store, name), at, at);
  w.mtimes.set(name, at);
  const versions = w.history.get(name) ?? [];
  if (!versions.some((v) => v.text === text && v.mtime === at)) versions.push({ text, mtime: at });
  w.history.set(name, versions);
}

function apply(w: World, s: Step): void {
  const name = FILES[(s as { file?: number }).file ?? 0]!;
  switch (s.kind) {
    case 'scan':
      return addLine(w, name, scanLine(REPOS[s.repo]!, T0 + s.day * DAY, s.value));
    case 'edit': {
      const lines = w.files.get(name);
      const rec =
        lines?.[0] === undefined
          ? undefined
          : (JSON.parse(lines[0]) as { repositoryUrl?: string; timestamp?: number } | null);
      if (!lines || !rec?.repositoryUrl) return;
      lines[0] = scanLine(rec.repositoryUrl, rec.timestamp!, s.value);
      return writeStoreFile(w, name);
    }
    case 'bad':
      return addLine(w, name, '{"repositoryUrl": "https://github.com/prop/r1", "timestamp": -1}');
    case 'deleteFile':
      w.files.delete(name);
      return rmSync(join(w.store, name), { force: true });
    case 'restore': {
      // An earlier version put back with its bytes and mtime (`cp -p`; on S3 the same bytes, the same ETag).
      const versions = w.history.get(name) ?? [];
      const v = versions[0];
      if (!v) return;
      w.files.set(name, v.text.slice(0, -1).split('\n'));
      return writeStoreFile(w, name, v.mtime);
    }
    case 'racy': {
      // Written a moment before the build reads it: within the 2 s a rewrite could go unseen.
      addLine(
        w,
        name,
        scanLine(REPOS[s.value % REPOS.length]!, T0 + (50 + s.value) * DAY, s.value),
      );
      const now = Date.now() / 1000 - 0.5;
      w.mtimes.set(name, now);
      return utimesSync(join(w.store, name), now, now);
    }
    case 'bands':
      w.bands = s.value;
      return writeConfig(w);
    case 'openapi':
      w.openapi = !w.openapi;
      return writeConfig(w);
    case 'pages':
      w.pages = !w.pages;
      return writeConfig(w);
    case 'badge':
      w.reused = !w.reused;
      return writeConfig(w);
    case 'time':
      w.now += s.days * DAY;
      return;
    case 'crash':
      return; // the target runs it (crash below)
  }
}

/** Puts a store file back as it was: its lines, bytes and mtime (or removes it if it was absent). */
function putBack(
  w: World,
  name: string,
  was: { lines: string[] | undefined; mtime: number | undefined },
): void {
  if (!was.lines) {
    w.files.delete(name);
    return rmSync(join(w.store, name), { force: true });
  }
  w.files.set(name, was.lines);
  writeStoreFile(w, name, was.mtime);
}

interface Target {
  /** The store as the CLI names it (synced first where it is not the directory). */
  store: (w: World) => Promise<string>;
  tree: (out: string) => Promise<Map<string, Buffer>>;
  flags: string[];
  buildFlags: { 's3-endpoint'?: string; 's3-path-style'?: boolean };
}

const published = (tree: Map<string, Buffer>) =>
  new Map([...tree].filter(([k]) => !k.startsWith('.badgepress/')));

/** The step's builds into the world's output; their highest exit code. */
async function buildSteps(t: Target, w: World, f: Flags): Promise<number> {
  const store = await t.store(w);
  const common = [
    '--config',
    w.config,
    '--store',
    store,
    '--out',
    w.out,
    '--now',
    String(w.now),
    ...t.flags,
    ...(f.prune ? ['--prune'] : []),
    ...(f.force ? ['--force'] : []),
  ];
  let code = 0;
  for (let i = 0; i < f.shards; i++) {
    const r = await runCommand([
      'build',
      ...common,
      ...(f.shards > 1 ? ['--shard', `${i}/${f.shards}`] : []),
    ]);
    expect([0, 1], r.stderr).toContain(r.code);
    code = Math.max(code, r.code ?? 9);
  }
  if (f.shards > 1 && w.pages) {
    const r = await runCommand([
      'site',
      '--shards',
      String(f.shards),
      '--config',
      w.config,
      '--out',
      w.out,
      ...t.flags,
      ...(f.prune ? ['--prune'] : []),
    ]);
    expect(r.code, r.stderr).toBe(0);
  }
  return code;
}

/** A new scan published by a build stopped (as by a kill) once `after` files went out; then the file put back. */
async function crash(t: Target, w: World, s: Extract<Step, { kind: 'crash' }>): Promise<void> {
  const name = FILES[s.file]!;
  const was = { lines: w.files.get(name) && [...w.files.get(name)!], mtime: w.mtimes.get(name) };
  addLine(
    w,
    name,
    scanLine(REPOS[s.value % REPOS.length]!, T0 + (45 + s.value) * DAY, s.value + 1),
  );
  let puts = 0;
  const after = s.after;
  const stopped = await buildIncrementally({
    flags: { config: w.config, store: await t.store(w), out: w.out, ...t.buildFlags },
    now: w.now,
    pages: true,
    prune: false,
    onPut: () => {
      if (++puts > after) throw new Error('stopped');
    },
  }).catch((e: unknown) => e);
  if (stopped instanceof Error && stopped.message !== 'stopped') throw stopped;
  putBack(w, name, was);
}

let run = 0;
/** Steps checked, across runs (reported, so a run that checked little shows it). */
let checked = 0;
/** Builds that skipped a repository: the property must not hold only because nothing was skipped. */
let reused = 0;

async function checkSequence(t: Target, w: World, steps: Array<[Step, Flags]>): Promise<void> {
  for (const [s, f] of [
    [undefined, { prune: false, force: false, shards: 1 }] as const,
    ...steps,
  ]) {
    if (s) apply(w, s);
    if (s?.kind === 'crash') await crash(t, w, s);
    const code = await buildSteps(t, w, f);
    checked++;
    const clean = join(w.root, `clean${++run}`);
    const c = await runCommand([
      'build',
      '--config',
      w.config,
      '--store',
      w.store,
      '--out',
      clean,
      '--now',
      String(w.now),
      '--json',
    ]);
    const what = `after ${JSON.stringify(s)} with ${JSON.stringify(f)}`;
    expect(code, what).toBe(c.code);
    const [inc, full] = [published(await t.tree(w.out)), published(readTree(clean))];
    rmSync(clean, { recursive: true, force: true });
    if (f.prune) expect([...inc.keys()], what).toEqual([...full.keys()]);
    const missingOrDifferent = [...full].filter(([k, v]) => !inc.get(k)?.equals(v)).map(([k]) => k);
    expect(missingOrDifferent, what).toEqual([]);
    // The same layout again, nothing changed: nothing written, repositories answered from the state.
    if (f.shards === 1) {
      const again = await runCommand([
        'build',
        '--config',
        w.config,
        '--store',
        await t.store(w),
        '--out',
        w.out,
        '--now',
        String(w.now),
        '--json',
        ...t.flags,
      ]);
      const summary = JSON.parse(again.stdout) as { reused: number; written: number };
      expect(summary.written, `a rebuild ${what} writes nothing`).toBe(0);
      reused += summary.reused;
    }
  }
}

/** Sequences every run starts with: each kind of step at least once, whatever the seed. */
const P: Flags = { prune: true, force: false, shards: 1 };
const EXAMPLES: Array<[Array<[Step, Flags]>]> = [
  [
    [
      [
        { kind: 'scan', repo: 1, file: 0, day: 1, value: 20 },
        { prune: false, force: false, shards: 1 },
      ],
      [
        { kind: 'crash', file: 0, value: 3, after: 100 },
        { prune: false, force: false, shards: 1 },
      ],
      [{ kind: 'restore', file: 0 }, P],
      [{ kind: 'deleteFile', file: 1 }, P],
      [
        { kind: 'time', days: 30 },
        { prune: true, force: false, shards: 2 },
      ],
    ],
  ],
  [
    [
      [{ kind: 'badge' }, P],
      [{ kind: 'openapi' }, { prune: true, force: true, shards: 1 }],
      [{ kind: 'racy', file: 2, value: 4 }, P],
      [{ kind: 'pages' }, { prune: true, force: false, shards: 3 }],
      [{ kind: 'bands', value: 3 }, P],
      [{ kind: 'edit', file: 2, value: 9 }, P],
      [{ kind: 'bad', file: 0 }, P],
    ],
  ],
];
/** Random sequences beyond the examples (the examples count among fast-check's runs). */
const RUNS = Number(process.env.BADGEPRESS_PROPERTY_RUNS ?? 0);
const SEED = Number(process.env.BADGEPRESS_SEED ?? 20261125);
const sequences = fc.array(fc.tuple(stepArb, flagsArb), { minLength: 1, maxLength: 6 });

const onDisk: Target = {
  store: async (w) => w.store,
  tree: async (out) => readTree(out),
  flags: [],
  buildFlags: {},
};

describe('incremental output against a clean build after every step', () => {
  it('on a directory', async () => {
    await fc.assert(
      fc.asyncProperty(sequences, async (steps) => {
        const root = join(dir, `d${++run}`);
        await checkSequence(onDisk, newWorld(root, join(root, 'out')), steps);
      }),
      { numRuns: EXAMPLES.length + 2 + RUNS, examples: EXAMPLES, seed: SEED },
    );
    expect(reused).toBeGreaterThan(0);
    expect(checked).toBeGreaterThan(EXAMPLES.reduce((n, [steps]) => n + steps.length, 0));
  }, 600_000);

  describe('on s3rver (store and site in buckets)', () => {
    let peer: S3Peer;
    beforeAll(async () => {
      Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' });
      peer = await startS3Peer(['values', 'site']);
    }, 60_000);
    afterAll(async () => peer?.stop());

    it('the same sequences', async () => {
      /** Mirrors the store directory into the bucket under a prefix of its own per run (same bytes, same ETag). */
      const syncStore = async (w: World): Promise<string> => {
        const prefix = `${w.root.split('/').pop()}/`;
        const client = peer.client();
        const have: string[] = [];
        for await (const page of paginateListObjectsV2(
          { client },
          { Bucket: 'values', Prefix: prefix },
        ))
          for (const o of page.Contents ?? []) have.push(o.Key!);
        expect(
          await deleteKeys(
            client,
            'values',
            have.filter((k) => !w.files.has(k.slice(prefix.length))),
          ),
        ).toEqual([]);
        for (const name of w.files.keys())
          await client.send(
            new PutObjectCommand({
              Bucket: 'values',
              Key: prefix + name,
              Body: readFileSync(join(w.store, name)),
            }),
          );
        client.destroy();
        return `s3://values/${prefix}`;
      };
      const inBucket: Target = {
        store: syncStore,
        tree: async (out) =>
          new Map(
            [...(await peer.objects('site', out.replace('s3://site/', '')))].map(([k, v]) => [
              k,
              v.body,
            ]),
          ),
        flags: ['--s3-endpoint', peer.endpoint, '--s3-path-style'],
        buildFlags: { 's3-endpoint': peer.endpoint, 's3-path-style': true },
      };
      // The first example (the second runs on a directory) and one random sequence.
      const S3_EXAMPLES = EXAMPLES.slice(0, 1);
      let sequencesRun = 0;
      await fc.assert(
        fc.asyncProperty(sequences, async (steps) => {
          const root = join(dir, `s${++run}`);
          sequencesRun++;
          await checkSequence(
            inBucket,
            newWorld(root, `s3://site/${root.split('/').pop()}/`),
            steps,
          );
        }),
        {
          numRuns: S3_EXAMPLES.length + 1 + Math.ceil(RUNS / 2),
          examples: S3_EXAMPLES,
          seed: SEED,
        },
      );
      expect(sequencesRun).toBe(S3_EXAMPLES.length + 1 + Math.ceil(RUNS / 2));
    }, 600_000);
  });
});
