import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore, repositoryUrl } from '../scripts/gen-store.ts';
import { inShard, parseShard, shardOf } from '../src/model/shard.ts';
import { createSiteServer } from '../src/resolver/adapter/node/server.ts';
import { buildSite, readTree } from './helpers/site.ts';
import { ROOT, runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { reusedGoldFrom, thresholdsVariant } from './helpers/thresholds.ts';

const dir = tempDir();
const store = join(dir, 'store');
generateStore({ repos: 40, scans: 3, out: store, seed: 7 });

describe('the synthetic store generator', () => {
  it('is deterministic and builds without problems', async () => {
    const again = join(dir, 'store-again');
    generateStore({ repos: 40, scans: 3, out: again, seed: 7 });
    expect(readTree(again)).toEqual(readTree(store));
    const other = join(dir, 'store-other');
    generateStore({ repos: 40, scans: 3, out: other, seed: 8 });
    expect(readTree(other)).not.toEqual(readTree(store));
    const { issues, summary } = await buildSite({ store, out: join(dir, 'gen-out') });
    expect(issues).toEqual([]);
    expect(summary.scans).toBe(120);
    const b = join(dir, 'store-b');
    generateStore({ repos: 10, scans: 2, out: b, shape: 'B' });
    const built = await buildSite({ store: b, out: join(dir, 'gen-out-b'), shape: 'B' });
    expect(built.issues).toEqual([]);
  });
});

describe('--shard i/n', () => {
  it('parses only i/n with 0 ≤ i < n', () => {
    expect(parseShard('0/3')).toEqual({ index: 0, count: 3 });
    for (const bad of ['3/3', '0/0', 'a/b', '1', '-1/3', '1/3/4', '']) expect(parseShard(bad), bad).toBeUndefined();
  });

  it('n shards together write exactly the files of one build, never the same key twice', async () => {
    const small = join(dir, 'store-shards');
    generateStore({ repos: 21, scans: 1, out: small, seed: 3 });
    const whole = readTree((await buildSite({ store: small, out: join(dir, 'whole') }), join(dir, 'whole')));
    for (const n of [1, 3, 7]) {
      const union = new Map<string, Buffer>();
      for (let i = 0; i < n; i++) {
        const out = join(dir, `shard-${n}-${i}`);
        await buildSite({ store: small, out, include: inShard({ index: i, count: n }) });
        for (const [k, v] of readTree(out)) {
          expect(union.has(k), `${k} written by two shards`).toBe(false);
          union.set(k, v);
        }
      }
      expect(new Map([...union].sort(([a], [b]) => (a < b ? -1 : 1)))).toEqual(whole);
    }
    // Every shard of 7 gets some repositories: the hash spreads.
    expect(new Set(Array.from({ length: 40 }, (_, i) => shardOf(repositoryUrl(i), 7))).size).toBe(7);
  });

  it('the CLI refuses a bad --shard with exit 2', () => {
    const r = runCli(['build', '--store', store, '--out', join(dir, 'x'), '--shard', '3/3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--shard "3\/3": expected i\/n with 0 ≤ i < n/);
  });
});

describe('expiry (Shape A, expireAfterDays)', () => {
  const cfg = join(dir, 'expiry-cfg');
  mkdirSync(cfg, { recursive: true });
  const config = join(cfg, 'badgepress.yaml');
  writeFileSync(config, `expireAfterDays: 1\nthresholds:\n  A: ${join(ROOT, 'config/thresholds-a.yaml')}\n`);
  const exStore = join(dir, 'expiry-store');
  mkdirSync(exStore, { recursive: true });
  const TS = 1_763_000_000;
  writeFileSync(join(exStore, 'r.ndjson'), JSON.stringify({ repositoryUrl: 'https://github.com/acme/aging', timestamp: TS, values: { ISSUE_REACTION_TIME: 0, BUS_FACTOR: 4 } }));
  const enc = encodeURIComponent('https://github.com/acme/aging');
  const badgeOf = (out: string, key: string) => JSON.parse(readFileSync(join(out, `api/v1/repositories/${enc}/${key}`), 'utf8')).badgeStatus;

  it('latest files expire exactly after expireAfterDays at --now', async () => {
    const at = join(dir, 'exp-at');
    await buildSite({ store: exStore, out: at, config: config, now: TS + 86400 });
    expect(badgeOf(at, 'badges/MAINTENANCE')).toBe('gold');
    const after = join(dir, 'exp-after');
    await buildSite({ store: exStore, out: after, config: config, now: TS + 86401 });
    expect(badgeOf(after, 'badges/MAINTENANCE')).toBe('expired');
    expect(readFileSync(join(after, `api/v1/repositories/${enc}/badges/MAINTENANCE.svg`), 'utf8')).toContain('MAINTENANCE: expired');
    // per-time files never expire; their expired variants are written beside them
    expect(badgeOf(after, `at/${TS}/badges/MAINTENANCE`)).toBe('gold');
    expect(badgeOf(after, `at/${TS}/expired/badges/MAINTENANCE`)).toBe('expired');
    expect(JSON.parse(readFileSync(join(after, `api/v1/repositories/${enc}/index.json`), 'utf8')).expireAfterSeconds).toBe(86400);
  });

  it('?timestamp= answers expired exactly one second past the boundary, through serve', async () => {
    const out = join(dir, 'exp-serve');
    await buildSite({ store: exStore, out, config: config, now: TS });
    const server = createSiteServer(out);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as AddressInfo).port;
    const get = (path: string) =>
      new Promise<{ status: number; location?: string; body: string }>((ok, fail) => {
        request({ host: '127.0.0.1', port, path }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => ok({ status: res.statusCode!, ...(res.headers.location ? { location: res.headers.location } : {}), body }));
        })
          .on('error', fail)
          .end();
      });
    try {
      const statusAt = async (t: number) => {
        const r = await get(`/api/v1/repositories/${enc}/badges/MAINTENANCE?timestamp=${t}`);
        expect(r.status).toBe(302);
        const followed = await get(r.location!);
        expect(followed.status).toBe(200);
        return JSON.parse(followed.body).badgeStatus;
      };
      expect(await statusAt(TS + 86400)).toBe('gold');
      expect(await statusAt(TS + 86401)).toBe('expired');
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });
});

describe('incremental directory builds', () => {
  it('a threshold change rewrites exactly the files whose bytes change; --prune removes stale files of known repositories only', async () => {
    const out = join(dir, 'incr');
    await buildSite({ store, out });
    const before = readTree(out);
    const config = reusedGoldFrom(join(dir, 'incr-cfg'), 25);
    const untouched = [...before.keys()].find((k) => k.endsWith('/sarif'))!;
    const mtime = statSync(join(out, untouched)).mtimeMs;
    const { summary } = await buildSite({ store, out, config });
    const after = readTree(out);
    const changed = [...after.keys()].filter((k) => !before.get(k)!.equals(after.get(k)!));
    expect(changed.length).toBeGreaterThan(0);
    expect(summary.written).toBe(changed.length);
    expect(summary.unchanged).toBe(after.size - changed.length);
    if (!changed.includes(untouched)) expect(statSync(join(out, untouched)).mtimeMs).toBe(mtime);

    // Stale files: one of a known repository, one of a neighbour whose URL extends it.
    const known = [...after.keys()][0]!.split('/').slice(0, 4).join('/');
    writeFileSync(join(out, known, 'badges', 'OLD.svg'), 'stale');
    const neighbour = `${known}x`;
    mkdirSync(join(out, neighbour), { recursive: true });
    writeFileSync(join(out, neighbour, 'sarif'), 'not ours');
    const pruned = await buildSite({ store, out, config, prune: true });
    expect(pruned.summary.removed).toBe(1);
    expect(pruned.summary.written).toBe(0);
    expect(existsSync(join(out, known, 'badges', 'OLD.svg'))).toBe(false);
    expect(readFileSync(join(out, neighbour, 'sarif'), 'utf8')).toBe('not ours');
  });
});

describe('summaries', () => {
  it('--json prints one machine-readable summary and no progress line when piped', () => {
    const r = runCli(['build', '--store', store, '--out', join(dir, 'json-out'), '--now', '1763600000', '--json']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ repositories: 40, scans: 120, skipped: 0, exitCode: 0, shard: null });
    expect(r.stderr).not.toMatch(/\r|scans\/s/);
  });
});

describe('badgepress plan', () => {
  it('reports status transitions and file counts, writes nothing, exits 3 on changes and 0 without', async () => {
    const out = join(dir, 'plan-site');
    await buildSite({ store, out, now: 1763600000 });
    const before = readTree(out);
    const same = runCli(['plan', '--store', store, '--out', out, '--now', '1763600000']);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/no badge changes status/);
    expect(same.stdout).toMatch(new RegExp(`files: 0 to add, 0 to change, 0 to remove \\(with --prune\\), ${before.size} unchanged`));

    const config = thresholdsVariant(join(dir, 'plan-cfg'), '{ min: 20, max: null, status: gold }', '{ min: 20, max: 24, status: gold }\n      - { min: 25, max: null, status: silver }');
    const r = runCli(['plan', '--config', config, '--store', store, '--out', out, '--now', '1763600000', '--json']);
    expect(r.code).toBe(3);
    const plan = JSON.parse(r.stdout);
    // What actually changes, from a real build into a copy.
    const truth = join(dir, 'plan-truth');
    await buildSite({ store, out: truth, now: 1763600000, config: config });
    const after = readTree(truth);
    const changed = [...after.keys()].filter((k) => !after.get(k)!.equals(before.get(k)!));
    expect(plan.changed).toBe(changed.length);
    expect(plan.added).toBe(0);
    const status = (t: Map<string, Buffer>, k: string) => JSON.parse(t.get(k)!.toString()).badgeStatus;
    const flips = changed.filter((k) => /\/at\/\d+\/badges\/REUSED$/.test(k) && status(before, k) !== status(after, k));
    expect(flips.length).toBeGreaterThan(0);
    expect(plan.transitions).toEqual([
      { badgeId: 'REUSED', from: 'gold', to: 'silver', repositories: new Set(flips.map((k) => k.split('/')[3])).size, scans: flips.length, examples: expect.any(Array) },
    ]);
    expect(readTree(out)).toEqual(before);
    const text = runCli(['plan', '--config', config, '--store', store, '--out', out, '--now', '1763600000']);
    expect(text.stdout).toMatch(new RegExp(`REUSED\\n  gold → silver: \\d+ repositories, ${flips.length} scans \\(e\\.g\\. https://`));
  });
});
