// Proof of equivalence for incremental builds: random sequences of edits to the store and the
// configuration (new scans, edited, deleted and bad records, moved files, threshold and colour
// changes, one badge's bands, one rule's help text, the style list, decision-file grants, time passing an expiry, shard count changes, a deleted state),
// and after each step the output of the incremental build(s) equals, byte for byte, that of a
// `--force` build run through the same steps, and both report as many bad records. Pages
// included: the repository pages and feeds, and the site-wide pages (after sharded builds,
// the `site` step writes those), stale ones pruned as `build --prune` does: a search page
// whose last name left goes, and its folder with it.
// Once on a directory, once with the store and the site on s3rver.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { PutObjectCommand, paginateListObjectsV2 } from '@aws-sdk/client-s3';
import { deleteKeys } from '../src/s3/delete-keys.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.ts';
import { buildIncrementally, siteStep } from './helpers/incremental.ts';
import { readTree } from './helpers/site.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
// Over two hosts, owners and a nested GitLab group, so the group pages, their lists and the
// search's files and prefix pages (search/<prefix>/) come and go with the repositories in them.
const REPOS = [
  'https://github.com/p/r0',
  'https://github.com/p/r1',
  'https://github.com/q/r2',
  'https://gitlab.com/g/sub/r3',
  'https://gitlab.com/g/r4',
];
const FILES = ['f0.ndjson', 'f1.ndjson', 'f2.ndjson', 'all.ndjson'];
const DAY = 86400;
const T0 = 1_760_000_000;

type Step =
  | { kind: 'scan'; repo: number; file: number; day: number; value: number }
  | { kind: 'edit'; file: number; line: number; value: number }
  | { kind: 'delete'; file: number; line: number }
  | { kind: 'bad'; file: number }
  | { kind: 'move'; file: number }
  | { kind: 'threshold'; value: number }
  | { kind: 'colour'; value: number }
  /** A change of one config part (incremental/parts.ts): 0 one badge's bands, 1 one rule's help, 2 the styles. */
  | { kind: 'part'; which: number; value: number }
  | { kind: 'grant'; repo: number }
  | { kind: 'time'; days: number }
  | { kind: 'shards'; count: number }
  | { kind: 'dropState' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('scan' as const),
      repo: fc.nat(4),
      file: fc.nat(3),
      day: fc.nat(60),
      value: fc.nat(9),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      file: fc.nat(3),
      line: fc.nat(20),
      value: fc.nat(9),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('delete' as const),
      file: fc.nat(3),
      line: fc.nat(20),
    }),
  },
  fc.record({ kind: fc.constant('bad' as const), file: fc.nat(3) }),
  fc.record({ kind: fc.constant('move' as const), file: fc.nat(3) }),
  fc.record({ kind: fc.constant('threshold' as const), value: fc.integer({ min: 3, max: 9 }) }),
  fc.record({ kind: fc.constant('colour' as const), value: fc.nat(5) }),
  fc.record({
    kind: fc.constant('part' as const),
    which: fc.nat(2),
    value: fc.integer({ min: 1, max: 5 }),
  }),
  fc.record({ kind: fc.constant('grant' as const), repo: fc.nat(4) }),
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('time' as const),
      days: fc.integer({ min: 1, max: 40 }),
    }),
  },
  fc.record({ kind: fc.constant('shards' as const), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('dropState' as const) }),
);

interface World {
  root: string;
  store: string;
  config: string;
  shape: 'A' | 'B';
  now: number;
  shards: number;
  /** The file-system clock for store edits: past, distinct per edit (see below). */
  clock: number;
  colour: number;
  styles: number;
  /** Relative store file name → lines. */
  files: Map<string, string[]>;
  incremental: string;
  force: string;
}

function newWorld(root: string, shape: 'A' | 'B', out: (name: string) => string): World {
  const store = join(root, 'store');
  const cfg = join(root, 'cfg');
  mkdirSync(store, { recursive: true });
  mkdirSync(join(cfg, 'decisions'), { recursive: true });
  copyFileSync(
    join(ROOT, `config/thresholds-${shape.toLowerCase()}.yaml`),
    join(cfg, 'thresholds.yaml'),
  );
  writeFileSync(
    join(cfg, 'decisions/open-source.json'),
    JSON.stringify({ ruleId: 'MANUAL/Project is open source', granted: [] }),
  );
  const w: World = {
    root,
    store,
    config: join(cfg, 'site.yaml'),
    shape,
    now: T0 + 20 * DAY,
    shards: 1,
    clock: 1_700_000_000,
    colour: 0,
    styles: 0,
    files: new Map(),
    incremental: out('inc'),
    force: out('force'),
  };
  writeSiteConfig(w);
  for (const [i, url] of REPOS.entries())
    addLine(w, FILES[i % 3]!, scanLine(w, url, T0 + i * DAY, i));
  return w;
}

const STYLES = ['[flat]', '[flat, plastic]', '[flat, social, for-the-badge]'];

function writeSiteConfig(w: World): void {
  const colours = ['#dfb317', '#aa0000', '#00aa00', '#0000aa', '#123456', '#654321'];
  const shapeLines =
    w.shape === 'A' ? 'shape: A\nexpireAfterDays: 30\n' : 'shape: B\ndecisions: decisions\n';
  writeFileSync(
    w.config,
    `${shapeLines}thresholds: { ${w.shape}: thresholds.yaml }\ncolors: { gold: "${colours[w.colour]}" }\nstyles: ${STYLES[w.styles]}\n`,
  );
}

/** Rewrites the thresholds file with `pattern` (which must match) replaced. */
function editThresholds(w: World, pattern: RegExp, to: string): void {
  const path = join(dirname(w.config), 'thresholds.yaml');
  const text = readFileSync(path, 'utf8');
  if (!pattern.test(text)) throw new Error(`thresholds edit: ${String(pattern)} not found`);
  writeFileSync(path, text.replace(pattern, to));
}

function scanLine(w: World, url: string, t: number, v: number): string {
  const values =
    w.shape === 'A'
      ? { BUS_FACTOR: v, ISSUE_REACTION_TIME: v }
      : { ISSUE_REACTION_TIME: v, PACKAGES: v % 3 };
  return JSON.stringify({ repositoryUrl: url, timestamp: t, values });
}

function addLine(w: World, name: string, line: string): void {
  w.files.set(name, [...(w.files.get(name) ?? []), line]);
  writeStoreFile(w, name);
}

/**
 * Store edits carry distinct mtimes in the past: the build treats a file written within the
 * last two seconds as possibly rewritten unseen (and re-reads it), which would hide whether
 * skipping works at all.
 */
function writeStoreFile(w: World, name: string): void {
  const path = join(w.store, name);
  const lines = w.files.get(name)!;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.length ? `${lines.join('\n')}\n` : '');
  w.clock += 10;
  utimesSync(path, w.clock, w.clock);
}

function pick<T>(xs: T[], i: number): T | undefined {
  return xs.length === 0 ? undefined : xs[i % xs.length];
}

function apply(w: World, s: Step): void {
  const names = [...w.files.keys()].sort();
  switch (s.kind) {
    case 'scan':
      return addLine(
        w,
        pick(
          names.filter((n) => n.endsWith(FILES[s.file]!)),
          0,
        ) ?? FILES[s.file]!,
        scanLine(w, REPOS[s.repo]!, T0 + s.day * DAY, s.value),
      );
    case 'edit': {
      const name = pick(names, s.file);
      const lines = name ? w.files.get(name)! : [];
      const i = s.line % Math.max(1, lines.length);
      const rec =
        lines[i] !== undefined
          ? (JSON.parse(lines[i]) as { repositoryUrl?: string; timestamp?: number } | null)
          : null;
      if (!name || !rec?.repositoryUrl) return;
      lines[i] = scanLine(w, rec.repositoryUrl, rec.timestamp!, s.value);
      return writeStoreFile(w, name);
    }
    case 'delete': {
      const name = pick(names, s.file);
      if (!name) return;
      const lines = w.files.get(name)!;
      lines.splice(s.line % Math.max(1, lines.length), 1);
      return writeStoreFile(w, name);
    }
    case 'bad':
      return addLine(
        w,
        FILES[s.file]!,
        '{"repositoryUrl": "https://github.com/p/r1", "timestamp": -1}',
      );
    case 'move': {
      // A rename keeps size and mtime: the build must still see a new file and a gone one.
      const name = pick(names, s.file);
      if (!name) return;
      const to = name.startsWith('sub/') ? name.slice(4) : `sub/${name}`;
      if (w.files.has(to)) return;
      mkdirSync(dirname(join(w.store, to)), { recursive: true });
      renameSync(join(w.store, name), join(w.store, to));
      w.files.set(to, w.files.get(name)!);
      w.files.delete(name);
      return;
    }
    case 'threshold': {
      const path = join(dirname(w.config), 'thresholds.yaml');
      const text = readFileSync(path, 'utf8');
      writeFileSync(
        path,
        w.shape === 'A'
          ? text.replace(/name: Bus factor.*/, `name: Bus factor ${s.value}`)
          : text.replace(
              /threshold: \{ max: \d+, timeRangeInMonths: 3 \}/,
              `threshold: { max: ${s.value}, timeRangeInMonths: 3 }`,
            ),
      );
      return;
    }
    case 'colour':
      w.colour = s.value;
      return writeSiteConfig(w);
    case 'part':
      if (s.which === 2) {
        w.styles = s.value % STYLES.length;
        return writeSiteConfig(w);
      }
      if (s.which === 1)
        return editThresholds(
          w,
          w.shape === 'A' ? /help: Add a SECURITY\.md.*/ : /help: Tag releases.*/,
          `help: Say how (${s.value}).`,
        );
      // One badge's bands: A's MAINTENANCE through ISSUE_REACTION_TIME, B's REUSED through PACKAGES.
      return w.shape === 'A'
        ? editThresholds(
            w,
            /\{ min: 0, max: \d+, status: gold \}\n(\s*)- \{ min: \d+, max: 7, status: silver \}/,
            `{ min: 0, max: ${s.value}, status: gold }\n$1- { min: ${s.value + 1}, max: 7, status: silver }`,
          )
        : editThresholds(
            w,
            /unit: packages\n(\s*)threshold: \{ min: \d+,/,
            `unit: packages\n$1threshold: { min: ${s.value % 3},`,
          );
    case 'grant': {
      const path = join(dirname(w.config), 'decisions/open-source.json');
      const d = JSON.parse(readFileSync(path, 'utf8')) as { granted: string[] };
      if (!d.granted.includes(REPOS[s.repo]!)) d.granted.push(REPOS[s.repo]!);
      writeFileSync(path, JSON.stringify(d));
      return;
    }
    case 'time':
      w.now += s.days * DAY;
      return;
    case 'shards':
      w.shards = s.count;
      return;
    case 'dropState':
      return; // the target deletes it
  }
}

interface Target {
  /** The store location and the two outputs as the CLI would name them. */
  store: (w: World) => Promise<string>;
  tree: (out: string) => Promise<Map<string, Buffer>>;
  /** Deleting the state is safe: the next build is a full one. */
  dropState: (out: string) => Promise<void>;
  flags: { 's3-endpoint'?: string; 's3-path-style'?: boolean };
}

async function runBuild(
  w: World,
  t: Target,
  out: string,
  force: boolean,
  shard?: { index: number; count: number },
): Promise<number> {
  const { summary, issues } = await buildIncrementally({
    flags: { config: w.config, store: await t.store(w), out, ...t.flags },
    now: w.now,
    force,
    pages: true,
    ...(shard ? { shard } : {}),
  });
  reused += summary.reused;
  return issues.filter((i) => i.severity === 'error').length;
}

/**
 * The site without its build state, and without api/v1/openapi.json: the in-process build
 * (helpers/incremental.ts) writes none, while the `site` step after sharded builds does (it
 * depends on the config alone).
 */
const published = (tree: Map<string, Buffer>) =>
  new Map([...tree].filter(([k]) => !k.startsWith('.badgepress/') && k !== 'api/v1/openapi.json'));

/** The search's prefix pages of a site (search/<prefix>/index.html). */
const prefixPages = (tree: Map<string, Buffer>) =>
  new Set([...tree.keys()].filter((k) => /^search\/[^/]+\/index\.html$/.test(k)));

async function checkSequence(t: Target, w: World, steps: Step[]): Promise<void> {
  let before = new Set<string>();
  for (const s of [undefined, ...steps]) {
    if (s) apply(w, s);
    if (s?.kind === 'dropState') await t.dropState(w.incremental);
    let incSkipped = 0;
    for (let i = 0; i < w.shards; i++)
      incSkipped += await runBuild(
        w,
        t,
        w.incremental,
        false,
        w.shards > 1 ? { index: i, count: w.shards } : undefined,
      );
    if (w.shards > 1)
      await siteStep(
        { config: w.config, store: await t.store(w), out: w.incremental, ...t.flags },
        w.shards,
      );
    const forceSkipped = await runBuild(w, t, w.force, true);
    const [inc, full] = await Promise.all([t.tree(w.incremental), t.tree(w.force)]);
    expect(published(inc), `after ${JSON.stringify(s)}`).toEqual(published(full));
    expect(incSkipped, `bad records after ${JSON.stringify(s)}`).toBe(forceSkipped);
    // A prefix page whose names all left is gone from the incremental site too (compared above).
    const now = prefixPages(full);
    if (now.size > 0) sawPrefixPages = true;
    for (const k of before) if (!now.has(k)) prefixPagesGone++;
    for (const k of now) if (before.size > 0 && !before.has(k)) prefixPagesBack++;
    before = now;
    // In a directory their folders go with them.
    const search = join(w.incremental, 'search');
    if (existsSync(search))
      for (const e of readdirSync(search, { withFileTypes: true }))
        if (e.isDirectory())
          expect(
            readdirSync(join(search, e.name)),
            `search/${e.name}/ after ${JSON.stringify(s)}`,
          ).not.toEqual([]);
  }
}

/** Sequences every run starts with: each kind of step at least once, whatever the seed. */
const EXAMPLES: Array<['A' | 'B', Step[]]> = [
  [
    'A',
    [
      { kind: 'time', days: 12 },
      { kind: 'time', days: 1 },
      { kind: 'scan', repo: 4, file: 3, day: 61, value: 5 },
      { kind: 'time', days: 40 },
    ],
  ],
  [
    'A',
    [
      { kind: 'shards', count: 3 },
      { kind: 'threshold', value: 5 },
      { kind: 'part', which: 0, value: 3 },
      { kind: 'move', file: 0 },
      { kind: 'shards', count: 2 },
      { kind: 'part', which: 2, value: 2 },
      { kind: 'bad', file: 1 },
      { kind: 'dropState' },
    ],
  ],
  [
    'B',
    [
      { kind: 'grant', repo: 2 },
      { kind: 'edit', file: 1, line: 0, value: 8 },
      { kind: 'delete', file: 2, line: 0 },
      { kind: 'colour', value: 3 },
      { kind: 'threshold', value: 3 },
      { kind: 'part', which: 1, value: 4 },
      { kind: 'part', which: 0, value: 2 },
    ],
  ],
];
let run = 0;
/** Whether any site held prefix pages, and how many went when their names left: the comparison must have seen some go. */
let sawPrefixPages = false;
let prefixPagesGone = 0;
let prefixPagesBack = 0;
/** Repositories skipped across all runs: the property must not hold only because nothing was skipped. */
let reused = 0;
const onDisk: Target = {
  store: async (w) => w.store,
  tree: async (out) => (existsSync(out) ? readTree(out) : new Map()),
  dropState: async (out) => rmSync(join(out, '.badgepress'), { recursive: true, force: true }),
  flags: {},
};

describe('incremental output equals a --force build after every step', () => {
  it('on a directory', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('A' as const, 'B' as const),
        fc.array(step, { minLength: 1, maxLength: 6 }),
        async (shape, steps) => {
          const root = join(dir, `d${++run}`);
          await checkSequence(
            onDisk,
            newWorld(root, shape, (name) => join(root, name)),
            steps,
          );
        },
      ),
      {
        numRuns: Number(process.env.BADGEPRESS_RUNS ?? 4),
        examples: EXAMPLES,
        seed: Number(process.env.BADGEPRESS_SEED ?? 20261123),
      },
    );
    expect(reused).toBeGreaterThan(0);
    expect(sawPrefixPages).toBe(true);
  }, 300_000);

  it('on a directory: a search page goes when the last name under its prefix leaves, and comes back with it', async () => {
    // f2 holds github.com/q/r2 alone: the only name starting with q is its owner's.
    const root = join(dir, `d${++run}`);
    const gone = prefixPagesGone;
    const back = prefixPagesBack;
    await checkSequence(
      onDisk,
      newWorld(root, 'A', (name) => join(root, name)),
      [
        { kind: 'delete', file: 2, line: 0 },
        { kind: 'scan', repo: 2, file: 2, day: 30, value: 4 },
      ],
    );
    expect(prefixPagesGone - gone).toBe(1);
    expect(prefixPagesBack - back).toBe(1);
  }, 120_000);

  describe('on s3rver (store and site in buckets)', () => {
    let peer: S3Peer;
    beforeAll(async () => {
      Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' });
      peer = await startS3Peer(['values', 'site']);
    }, 60_000);
    afterAll(async () => peer?.stop());

    it('the same sequences', async () => {
      const c = () => peer.client();
      /** Mirrors the store directory into the bucket under a prefix of its own per run. */
      const syncStore = async (w: World): Promise<string> => {
        const prefix = `${w.root.split('/').pop()}/`;
        const client = c();
        const want = new Set(w.files.keys());
        const have: string[] = [];
        for await (const page of paginateListObjectsV2(
          { client },
          { Bucket: 'values', Prefix: prefix },
        ))
          for (const o of page.Contents ?? []) have.push(o.Key!);
        const gone = have.filter((k) => !want.has(k.slice(prefix.length)));
        expect(await deleteKeys(client, 'values', gone)).toEqual([]);
        for (const name of want)
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
        tree: async (out) => {
          const prefix = out.replace('s3://site/', '');
          return new Map([...(await peer.objects('site', prefix))].map(([k, v]) => [k, v.body]));
        },
        dropState: async (out) => {
          const prefix = `${out.replace('s3://site/', '')}.badgepress/state/`;
          const keys = [...(await peer.objects('site', prefix)).keys()].map((k) => prefix + k);
          const client = c();
          // s3rver answers some batch deletes with a 500: deleteKeys falls back to one key at a time.
          expect(await deleteKeys(client, 'site', keys)).toEqual([]);
          client.destroy();
        },
        flags: { 's3-endpoint': peer.endpoint, 's3-path-style': true },
      };
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('A' as const, 'B' as const),
          fc.array(step, { minLength: 1, maxLength: 5 }),
          async (shape, steps) => {
            const root = join(dir, `s${++run}`);
            const w = newWorld(
              root,
              shape,
              (name) => `s3://site/${root.split('/').pop()}-${name}/`,
            );
            await checkSequence(inBucket, w, steps);
          },
        ),
        {
          numRuns: Math.ceil(Number(process.env.BADGEPRESS_RUNS ?? 4) / 4),
          examples: EXAMPLES.slice(0, 2),
          seed: Number(process.env.BADGEPRESS_SEED ?? 20261123),
        },
      );
    }, 300_000);
  });
});
