import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore, repositoryUrl } from '../scripts/lib/synthetic-store.ts';
import { inShard, parseShard, shardOf } from '../src/model/shard.ts';
import { createSiteServer } from '../src/resolver/adapter/node/server.ts';
import { DirectorySink } from '../src/publish/dir-sink.ts';
import type { PutOutcome } from '../src/publish/sink.ts';
import type { OutputFile } from '../src/render/site-files.ts';
import { buildSite, readTree } from './helpers/site.ts';
import { expectEverySarifValid } from './helpers/sarif.ts';
import { ROOT, runCli } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { tempDir } from './helpers/tmp.ts';
import { reusedGoldFrom, thresholdsVariant } from '../scripts/lib/thresholds-variant.ts';

const dir = tempDir();
const store = join(dir, 'store');
generateStore({ repos: 40, scans: 3, out: store, seed: 7 });

// One repository scanned once, and a config whose badges expire a day after a scan.
const expiryConfig = join(dir, 'expiry-cfg', 'badgepress.yaml');
mkdirSync(join(dir, 'expiry-cfg'), { recursive: true });
writeFileSync(expiryConfig, `expireAfterDays: 1\nthresholds:\n  A: ${join(ROOT, 'config/thresholds-a.yaml')}\n`);
const exStore = join(dir, 'expiry-store');
mkdirSync(exStore, { recursive: true });
const TS = 1_763_000_000;
writeFileSync(join(exStore, 'r.ndjson'), JSON.stringify({ repositoryUrl: 'https://github.com/acme/aging', timestamp: TS, values: { ISSUE_REACTION_TIME: 0, BUS_FACTOR: 4 } }));

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
    // 40 synthetic repositories × 3 scans: every report valid SARIF
    expect(expectEverySarifValid(join(dir, 'gen-out'))).toBe(40 * 4);
    const b = join(dir, 'store-b');
    generateStore({ repos: 10, scans: 2, out: b, shape: 'B' });
    const built = await buildSite({ store: b, out: join(dir, 'gen-out-b'), shape: 'B' });
    expect(built.issues).toEqual([]);
  });
});

describe('--shard i/n', () => {
  it('parses only i/n with 0 ≤ i < n ≤ 999999, and says what is wrong otherwise', () => {
    expect(parseShard('0/3')).toEqual({ index: 0, count: 3 });
    expect(parseShard('999998/999999')).toEqual({ index: 999998, count: 999999 });
    for (const bad of ['3/3', '0/0', 'a/b', '1', '-1/3', '1/3/4', '', '1/1000000']) expect(parseShard(bad), bad).toHaveProperty('problem');
    expect(parseShard('1/1000000')).toEqual({ problem: expect.stringMatching(/at most 999999 shards/) });
    expect(parseShard('3/3')).toEqual({ problem: expect.stringMatching(/0 ≤ i < n: shards of 3 are numbered 0 to 2/) });
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

  it('the CLI refuses a bad --shard with exit 2', async () => {
    const r = runCli(['build', '--store', store, '--out', join(dir, 'x'), '--shard', '3/3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--shard "3\/3": expected i\/n with 0 ≤ i < n/);
    const capped = await runCommand(['build', '--store', store, '--out', join(dir, 'x'), '--shard', '1/1000000']);
    expect(capped.code).toBe(2);
    expect(capped.stderr).toMatch(/--shard "1\/1000000": at most 999999 shards \(n has at most 6 digits\)/);
  });
});

describe('expiry (Shape A, expireAfterDays)', () => {
  const config = expiryConfig;
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
    // expired reports (latest and per-time variants) are valid SARIF too
    expectEverySarifValid(after);
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

/** Every file under `dir`: bytes, inode and mtime (ns), to tell a rewrite from a file left alone. */
function identities(root: string): Map<string, { bytes: Buffer; ino: bigint; mtimeNs: bigint }> {
  return new Map(
    [...readTree(root)].map(([k, bytes]) => {
      const st = statSync(join(root, k), { bigint: true });
      return [k, { bytes, ino: st.ino, mtimeNs: st.mtimeNs }];
    }),
  );
}

/** Files left alone though their bytes changed, or touched though they did not. */
function rewriteViolations(before: ReturnType<typeof identities>, after: ReturnType<typeof identities>): string[] {
  const wrong: string[] = [];
  for (const [k, a] of after) {
    const b = before.get(k);
    if (!b) continue;
    const touched = a.ino !== b.ino || a.mtimeNs !== b.mtimeNs;
    if (a.bytes.equals(b.bytes) === touched) wrong.push(`${k}: ${touched ? 'rewritten with the same bytes' : 'changed bytes without a rewrite'}`);
  }
  return wrong;
}

/** A sink that writes every file, as a builder without the read-back would. */
class RewritingSink extends DirectorySink {
  override async put(file: OutputFile): Promise<PutOutcome> {
    const path = join(this.location, file.key);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.tmp`, file.body);
    renameSync(`${path}.tmp`, path);
    return 'written';
  }
}

describe('incremental directory builds', () => {
  it('a threshold change rewrites exactly the files whose bytes change: every other file keeps its inode and mtime', async () => {
    const out = join(dir, 'incr');
    await buildSite({ store, out });
    const before = identities(out);
    const config = reusedGoldFrom(join(dir, 'incr-cfg'), 25);
    const { summary } = await buildSite({ store, out, config });
    const after = identities(out);
    expect([...after.keys()]).toEqual([...before.keys()]);
    const changed = [...after.keys()].filter((k) => !before.get(k)!.bytes.equals(after.get(k)!.bytes));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(after.size / 2);
    expect(summary.written).toBe(changed.length);
    expect(summary.unchanged).toBe(after.size - changed.length);
    expect(rewriteViolations(before, after)).toEqual([]);

    // The check above can fail: a sink that rewrites identical bytes is caught by it.
    const copy = join(dir, 'incr-rewriting');
    await buildSite({ store, out: copy });
    const copyBefore = identities(copy);
    await buildSite({ store, out: copy, config, sink: new RewritingSink(copy) });
    const violations = rewriteViolations(copyBefore, identities(copy));
    expect(violations.length).toBe(after.size - changed.length);
    expect(violations[0]).toMatch(/rewritten with the same bytes/);
  });

  it('--prune removes stale files of known repositories only, and the directories it empties', async () => {
    const out = join(dir, 'prune');
    const config = reusedGoldFrom(join(dir, 'prune-cfg'), 25);
    await buildSite({ store, out, config });
    // Stale files: one of a known repository, one of a neighbour whose URL extends it.
    const known = [...readTree(out).keys()].find((k) => k.startsWith('api/'))!.split('/').slice(0, 4).join('/');
    writeFileSync(join(out, known, 'badges', 'OLD.svg'), 'stale');
    const neighbour = `${known}x`;
    mkdirSync(join(out, neighbour), { recursive: true });
    writeFileSync(join(out, neighbour, 'sarif'), 'not ours');
    const pruned = await buildSite({ store, out, config, prune: true });
    expect(pruned.summary.removed).toBe(1);
    expect(pruned.summary.written).toBe(0);
    expect(existsSync(join(out, known, 'badges', 'OLD.svg'))).toBe(false);
    expect(existsSync(join(out, known, 'badges'))).toBe(true);
    expect(readFileSync(join(out, neighbour, 'sarif'), 'utf8')).toBe('not ours');
  });

  it('--prune of a scan that left the store removes its at/<ts>/ directory, never the repository directory', async () => {
    const two = join(dir, 'prune-two-scans');
    mkdirSync(two, { recursive: true });
    const url = 'https://github.com/acme/pruned';
    const line = (timestamp: number) => JSON.stringify({ repositoryUrl: url, timestamp, values: { ISSUE_REACTION_TIME: 1, BUS_FACTOR: 4 } });
    writeFileSync(join(two, 'r.ndjson'), `${line(1_763_000_000)}\n${line(1_763_100_000)}\n`);
    const out = join(dir, 'prune-site');
    await buildSite({ store: two, out });
    const repoDir = join(out, 'api/v1/repositories', encodeURIComponent(url));
    expect(existsSync(join(repoDir, 'at/1763100000/badges'))).toBe(true);
    writeFileSync(join(two, 'r.ndjson'), `${line(1_763_000_000)}\n`);
    const { summary } = await buildSite({ store: two, out, prune: true });
    expect(summary.removed).toBeGreaterThan(0);
    expect(existsSync(join(repoDir, 'at/1763100000'))).toBe(false);
    expect(existsSync(join(repoDir, 'at/1763000000/badges'))).toBe(true);

    // Removing every file of a repository leaves its (empty) directory and everything above.
    const sink = new DirectorySink(out);
    await sink.remove([...readTree(repoDir).keys()].map((k) => `api/v1/repositories/${encodeURIComponent(url)}/${k}`));
    expect(readdirSync(repoDir)).toEqual([]);
  });
});

describe('summaries', () => {
  it('--json prints one JSON line with the error and exit code when a run fails (2 and 4)', async () => {
    const bad = runCli(['build', '--store', store, '--out', join(dir, 'json-fail'), '--shard', '5/2', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toEqual({ error: expect.stringMatching(/^--shard "5\/2": /), exitCode: 2 });
    // an output that cannot be written (a file stands where a directory must go): 4
    const blocker = join(dir, 'json-fail-file');
    writeFileSync(blocker, 'not a directory');
    const io = await runCommand(['build', '--store', store, '--out', join(blocker, 'site'), '--json']);
    expect(io.code).toBe(4);
    expect(io.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(io.stdout)).toEqual({ error: expect.stringMatching(/json-fail-file\/site: cannot write .* \(ENOTDIR\); check that --out names a writable directory/), exitCode: 4 });
    // a store that is not there is a wrong argument: 2
    const missing = await runCommand(['build', '--store', join(dir, 'no-such-store'), '--out', join(dir, 'json-fail'), '--json']);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toEqual({ error: expect.stringMatching(/no-such-store: no such directory; give the directory of stored values with --store/), exitCode: 2 });
    const cfg = join(dir, 'json-bad-cfg.yaml');
    writeFileSync(cfg, 'shape: C\n');
    const config = await runCommand(['plan', '--config', cfg, '--store', store, '--json']);
    expect(config.code).toBe(2);
    expect(JSON.parse(config.stdout)).toMatchObject({ error: 'configuration problems, nothing written', problems: [expect.stringMatching(/shape/)], exitCode: 2 });
  });

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
    // The CLI's build: pages, site-wide pages and openapi.json too, all of which plan counts.
    expect((await runCommand(['build', '--store', store, '--out', out, '--now', '1763600000'])).code).toBe(0);
    const before = readTree(out);
    // --force: every file compared (the state would leave the site-wide pages out, as a build does).
    const same = runCli(['plan', '--store', store, '--out', out, '--now', '1763600000', '--force']);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/no badge changes status/);
    expect(same.stdout).toMatch(new RegExp(`files: 0 to add, 0 to change, 0 to remove \\(with --prune\\), ${before.size} unchanged`));

    const config = thresholdsVariant(join(dir, 'plan-cfg'), '{ min: 20, max: null, status: gold }', '{ min: 20, max: 24, status: gold }\n      - { min: 25, max: null, status: silver }');
    const r = await runCommand(['plan', '--config', config, '--store', store, '--out', out, '--now', '1763600000', '--json']);
    expect(r.code).toBe(3);
    const plan = JSON.parse(r.stdout);
    // What actually changes, from a real build into a copy.
    const truth = join(dir, 'plan-truth');
    expect((await runCommand(['build', '--config', config, '--store', store, '--out', truth, '--now', '1763600000'])).code).toBe(0);
    const after = readTree(truth);
    const changed = [...after.keys()].filter((k) => !after.get(k)!.equals(before.get(k)!));
    expect(plan.changed).toBe(changed.length);
    expect(plan.added).toBe(0);
    const status = (t: Map<string, Buffer>, k: string) => JSON.parse(t.get(k)!.toString()).badgeStatus;
    const flips = changed.filter((k) => /\/at\/\d+\/badges\/REUSED$/.test(k) && status(before, k) !== status(after, k));
    expect(flips.length).toBeGreaterThan(0);
    const latestFlips = changed.filter((k) => /^api\/v1\/repositories\/[^/]+\/badges\/REUSED$/.test(k) && status(before, k) !== status(after, k));
    expect(latestFlips.length).toBeGreaterThan(0);
    expect(plan.transitions).toEqual([
      { badgeId: 'REUSED', scope: 'latest', from: 'gold', to: 'silver', repositories: latestFlips.length, examples: expect.any(Array) },
      { badgeId: 'REUSED', scope: 'scan', from: 'gold', to: 'silver', repositories: new Set(flips.map((k) => k.split('/')[3])).size, scans: flips.length, examples: expect.any(Array) },
    ]);
    expect(readTree(out)).toEqual(before);
    const text = await runCommand(['plan', '--config', config, '--store', store, '--out', out, '--now', '1763600000']);
    expect(text.stdout).toMatch(new RegExp(`REUSED\\n  gold → silver: \\d+ repositor(y|ies) \\(latest; e\\.g\\. https://.*\\n  gold → silver: \\d+ repositories, ${flips.length} scans \\(per scan; e\\.g\\. https://`));
  });

  it('shows badges that become expired in the latest files, labelled latest, in text and --json', async () => {
    const out = join(dir, 'plan-expiry-site');
    expect((await runCommand(['build', '--store', exStore, '--out', out, '--now', String(TS)])).code).toBe(0);
    const later = String(TS + 2 * 86400);
    const json = await runCommand(['plan', '--config', expiryConfig, '--store', exStore, '--out', out, '--now', later, '--json']);
    expect(json.code).toBe(3);
    const plan = JSON.parse(json.stdout);
    const latest = plan.transitions.filter((t: { scope: string }) => t.scope === 'latest');
    expect(latest).toContainEqual({ badgeId: 'MAINTENANCE', scope: 'latest', from: 'gold', to: 'expired', repositories: 1, examples: ['https://github.com/acme/aging'] });
    expect(plan.transitions.every((t: { to: string; scope: string }) => t.to === 'expired' && t.scope === 'latest')).toBe(true);
    // The expired variants of each scan are new files, not transitions.
    expect(plan.added).toBeGreaterThan(0);
    const text = await runCommand(['plan', '--config', expiryConfig, '--store', exStore, '--out', out, '--now', later]);
    expect(text.stdout).toMatch(/MAINTENANCE\n  gold → expired: 1 repository \(latest; e\.g\. https:\/\/github\.com\/acme\/aging\)/);
    // Once built, the same plan sees nothing to do.
    expect((await runCommand(['build', '--config', expiryConfig, '--store', exStore, '--out', out, '--now', later])).code).toBe(0);
    expect((await runCommand(['plan', '--config', expiryConfig, '--store', exStore, '--out', out, '--now', later])).code).toBe(0);
  });

  it('counts the files --prune would remove, exactly those build --prune then removes', async () => {
    const out = join(dir, 'plan-prune-site');
    // The CLI's build: the human site and api/v1/openapi.json too, so the second writes nothing.
    expect((await runCommand(['build', '--store', store, '--out', out, '--now', '1763600000'])).code).toBe(0);
    const known = [...readTree(out).keys()].find((k) => k.startsWith('api/v1/repositories/'))!.split('/').slice(0, 4).join('/');
    writeFileSync(join(out, known, 'badges', 'GONE'), '{}');
    writeFileSync(join(out, known, 'badges', 'GONE.svg'), '<svg/>');
    const r = await runCommand(['plan', '--store', store, '--out', out, '--now', '1763600000', '--json']);
    expect(r.code).toBe(3);
    const plan = JSON.parse(r.stdout);
    expect(plan).toMatchObject({ added: 0, changed: 0, removed: 2, removedExamples: [`${known}/badges/GONE`, `${known}/badges/GONE.svg`] });
    const text = await runCommand(['plan', '--store', store, '--out', out, '--now', '1763600000']);
    expect(text.stdout).toContain(`2 to remove (with --prune)`);
    expect(text.stdout).toContain(`--prune would remove e.g. ${known}/badges/GONE, ${known}/badges/GONE.svg`);
    const built = await runCommand(['build', '--store', store, '--out', out, '--now', '1763600000', '--prune', '--json']);
    expect(JSON.parse(built.stdout)).toMatchObject({ removed: 2, written: 0 });
  });

  it('with --shard, reports a record that belongs to no repository in shard 0 only', async () => {
    const mixed = join(dir, 'plan-unassignable');
    mkdirSync(mixed, { recursive: true });
    writeFileSync(join(mixed, 'a.ndjson'), `${JSON.stringify({ repositoryUrl: 'not a url', timestamp: TS, values: {} })}\n`);
    const stderrOf = async (shard: string) => (await runCommand(['plan', '--store', mixed, '--out', join(dir, 'plan-unassignable-site'), '--shard', shard])).stderr;
    expect(await stderrOf('0/3')).toMatch(/a\.ndjson:1: .*record skipped/);
    expect(await stderrOf('1/3')).not.toMatch(/record skipped/);
    expect(await stderrOf('2/3')).not.toMatch(/record skipped/);
    // build too: only shard 0 reports it, so only shard 0 exits 1 ("built, records skipped")
    const built = [];
    for (const shard of ['0/3', '1/3', '2/3']) built.push(await runCommand(['build', '--store', mixed, '--out', join(dir, 'build-unassignable-site'), '--now', `${TS}`, '--shard', shard]));
    expect(built.map((r) => r.code)).toEqual([1, 0, 0]);
    expect(built.map((r) => /a\.ndjson:1: .*record skipped/.test(r.stderr))).toEqual([true, false, false]);
  });

  it('exits 2 on every error: a missing store, an unreadable output, bad config, bad flags', async () => {
    const out = join(dir, 'plan-err');
    const missing = runCli(['plan', '--store', join(dir, 'no-such-store'), '--out', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no-such-store: no such directory; give the directory of stored values with --store/);
    const fileAsOut = join(dir, 'plan-err-file');
    writeFileSync(fileAsOut, 'not a directory');
    const badOut = await runCommand(['plan', '--store', store, '--out', join(fileAsOut, 'site')]);
    expect(badOut.code).toBe(2);
    const cfg = join(dir, 'plan-bad-cfg.yaml');
    writeFileSync(cfg, 'shape: C\n');
    expect((await runCommand(['plan', '--config', cfg, '--store', store, '--out', out])).code).toBe(2);
    expect((await runCommand(['plan', '--store', store, '--out', out, '--shard', '9/3'])).code).toBe(2);
    // build: a missing store is a wrong argument (2) too
    expect((await runCommand(['build', '--store', join(dir, 'no-such-store'), '--out', out])).code).toBe(2);
  });
});
