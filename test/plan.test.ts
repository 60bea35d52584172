// badgepress plan: status transitions and file counts against a real build, expiry, --prune,
// --shard, and exit codes; it never writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { readTree } from './helpers/site.ts';
import { runCli } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { AGING_TS, agingStore } from './helpers/aging-store.ts';
import { tempDir } from './helpers/tmp.ts';
import { thresholdsVariant } from '../scripts/lib/thresholds-variant.ts';

const dir = tempDir();
const store = join(dir, 'store');
generateStore({ repos: 40, scans: 3, out: store, seed: 7 });
const { store: exStore, config: expiryConfig } = agingStore(dir);
const TS = AGING_TS;

describe('badgepress plan', () => {
  it('reports status transitions and file counts, writes nothing, exits 3 on changes and 0 without', async () => {
    const out = join(dir, 'plan-site');
    // The CLI's build: pages, site-wide pages and openapi.json too, all of which plan counts.
    expect(
      (await runCommand(['build', '--store', store, '--out', out, '--now', '1763600000'])).code,
    ).toBe(0);
    const before = readTree(out);
    // --force: every file compared (the state would leave the site-wide pages out, as a build does).
    const same = runCli(['plan', '--store', store, '--out', out, '--now', '1763600000', '--force']);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/no badge changes status/);
    expect(same.stdout).toMatch(
      new RegExp(
        `files: 0 to add, 0 to change, 0 to remove \\(with --prune\\), ${before.size} unchanged`,
      ),
    );

    const config = thresholdsVariant(
      join(dir, 'plan-cfg'),
      '{ min: 20, max: null, status: gold }',
      '{ min: 20, max: 24, status: gold }\n      - { min: 25, max: null, status: silver }',
    );
    const r = await runCommand([
      'plan',
      '--config',
      config,
      '--store',
      store,
      '--out',
      out,
      '--now',
      '1763600000',
      '--json',
    ]);
    expect(r.code).toBe(3);
    const plan = JSON.parse(r.stdout);
    // What actually changes, from a real build into a copy.
    const truth = join(dir, 'plan-truth');
    expect(
      (
        await runCommand([
          'build',
          '--config',
          config,
          '--store',
          store,
          '--out',
          truth,
          '--now',
          '1763600000',
        ])
      ).code,
    ).toBe(0);
    const after = readTree(truth);
    const changed = [...after.keys()].filter((k) => !after.get(k)!.equals(before.get(k)!));
    expect(plan.changed).toBe(changed.length);
    expect(plan.added).toBe(0);
    // The cached API answers the change reaches, split as the layout is: at/<ts>/ or not.
    const api = changed.filter((k) => k.startsWith('api/v1/repositories/'));
    const perTime = api.filter((k) => /^api\/v1\/repositories\/[^/]+\/at\//.test(k)).length;
    expect(perTime).toBeGreaterThan(0);
    expect(plan.cachedUrls).toEqual({ latest: api.length - perTime, perTime, maxAge: 300 });
    const status = (t: Map<string, Buffer>, k: string) =>
      JSON.parse(t.get(k)!.toString()).badgeStatus;
    const flips = changed.filter(
      (k) => /\/at\/\d+\/badges\/REUSED$/.test(k) && status(before, k) !== status(after, k),
    );
    expect(flips.length).toBeGreaterThan(0);
    const latestFlips = changed.filter(
      (k) =>
        /^api\/v1\/repositories\/[^/]+\/badges\/REUSED$/.test(k) &&
        status(before, k) !== status(after, k),
    );
    expect(latestFlips.length).toBeGreaterThan(0);
    expect(plan.transitions).toEqual([
      {
        badgeId: 'REUSED',
        scope: 'latest',
        from: 'gold',
        to: 'silver',
        repositories: latestFlips.length,
        examples: expect.any(Array),
      },
      {
        badgeId: 'REUSED',
        scope: 'scan',
        from: 'gold',
        to: 'silver',
        repositories: new Set(flips.map((k) => k.split('/')[3])).size,
        scans: flips.length,
        examples: expect.any(Array),
      },
    ]);
    expect(readTree(out)).toEqual(before);
    const text = await runCommand([
      'plan',
      '--config',
      config,
      '--store',
      store,
      '--out',
      out,
      '--now',
      '1763600000',
    ]);
    expect(text.stdout).toContain(
      `cached answers: ${api.length - perTime} latest URLs and ${perTime} per-time URLs (with the ?timestamp= requests that redirect there) change; caches serve the new ones within 300 s (cache.latestMaxAge), nothing to invalidate`,
    );
    expect(text.stdout).toMatch(
      new RegExp(
        `REUSED\\n  gold → silver: \\d+ repositor(y|ies) \\(latest; e\\.g\\. https://.*\\n  gold → silver: \\d+ repositories, ${flips.length} scans \\(per scan; e\\.g\\. https://`,
      ),
    );
  });

  it('shows badges that become expired in the latest files, labelled latest, in text and --json', async () => {
    const out = join(dir, 'plan-expiry-site');
    expect(
      (await runCommand(['build', '--store', exStore, '--out', out, '--now', String(TS)])).code,
    ).toBe(0);
    const later = String(TS + 2 * 86400);
    const json = await runCommand([
      'plan',
      '--config',
      expiryConfig,
      '--store',
      exStore,
      '--out',
      out,
      '--now',
      later,
      '--json',
    ]);
    expect(json.code).toBe(3);
    const plan = JSON.parse(json.stdout);
    const latest = plan.transitions.filter((t: { scope: string }) => t.scope === 'latest');
    expect(latest).toContainEqual({
      badgeId: 'MAINTENANCE',
      scope: 'latest',
      from: 'gold',
      to: 'expired',
      repositories: 1,
      examples: ['https://github.com/acme/aging'],
    });
    expect(
      plan.transitions.every(
        (t: { to: string; scope: string }) => t.to === 'expired' && t.scope === 'latest',
      ),
    ).toBe(true);
    // The expired variants of each scan are new files, not transitions.
    expect(plan.added).toBeGreaterThan(0);
    const text = await runCommand([
      'plan',
      '--config',
      expiryConfig,
      '--store',
      exStore,
      '--out',
      out,
      '--now',
      later,
    ]);
    expect(text.stdout).toMatch(
      /MAINTENANCE\n  gold → expired: 1 repository \(latest; e\.g\. https:\/\/github\.com\/acme\/aging\)/,
    );
    // Once built, the same plan sees nothing to do.
    expect(
      (
        await runCommand([
          'build',
          '--config',
          expiryConfig,
          '--store',
          exStore,
          '--out',
          out,
          '--now',
          later,
        ])
      ).code,
    ).toBe(0);
    expect(
      (
        await runCommand([
          'plan',
          '--config',
          expiryConfig,
          '--store',
          exStore,
          '--out',
          out,
          '--now',
          later,
        ])
      ).code,
    ).toBe(0);
  });

  it('counts the files --prune would remove, exactly those build --prune then removes', async () => {
    const out = join(dir, 'plan-prune-site');
    // The CLI's build: the human site and api/v1/openapi.json too, so the second writes nothing.
    expect(
      (await runCommand(['build', '--store', store, '--out', out, '--now', '1763600000'])).code,
    ).toBe(0);
    const known = [...readTree(out).keys()]
      .find((k) => k.startsWith('api/v1/repositories/'))!
      .split('/')
      .slice(0, 4)
      .join('/');
    writeFileSync(join(out, known, 'badges', 'GONE'), '{}');
    writeFileSync(join(out, known, 'badges', 'GONE.svg'), '<svg/>');
    const r = await runCommand([
      'plan',
      '--store',
      store,
      '--out',
      out,
      '--now',
      '1763600000',
      '--json',
    ]);
    expect(r.code).toBe(3);
    const plan = JSON.parse(r.stdout);
    expect(plan).toMatchObject({
      added: 0,
      changed: 0,
      removed: 2,
      removedExamples: [`${known}/badges/GONE`, `${known}/badges/GONE.svg`],
    });
    const text = await runCommand(['plan', '--store', store, '--out', out, '--now', '1763600000']);
    expect(text.stdout).toContain(`2 to remove (with --prune)`);
    expect(text.stdout).toContain(
      `--prune would remove e.g. ${known}/badges/GONE, ${known}/badges/GONE.svg`,
    );
    const built = await runCommand([
      'build',
      '--store',
      store,
      '--out',
      out,
      '--now',
      '1763600000',
      '--prune',
      '--json',
    ]);
    expect(JSON.parse(built.stdout)).toMatchObject({ removed: 2, written: 0 });
  });

  it('with --shard, reports a record that belongs to no repository in shard 0 only', async () => {
    const mixed = join(dir, 'plan-unassignable');
    mkdirSync(mixed, { recursive: true });
    writeFileSync(
      join(mixed, 'a.ndjson'),
      `${JSON.stringify({ repositoryUrl: 'not a url', timestamp: TS, values: {} })}\n`,
    );
    const stderrOf = async (shard: string) =>
      (
        await runCommand([
          'plan',
          '--store',
          mixed,
          '--out',
          join(dir, 'plan-unassignable-site'),
          '--shard',
          shard,
        ])
      ).stderr;
    expect(await stderrOf('0/3')).toMatch(/a\.ndjson:1: .*record skipped/);
    expect(await stderrOf('1/3')).not.toMatch(/record skipped/);
    expect(await stderrOf('2/3')).not.toMatch(/record skipped/);
    // build too: only shard 0 reports it, so only shard 0 exits 1 ("built, records skipped")
    const built = [];
    for (const shard of ['0/3', '1/3', '2/3'])
      built.push(
        await runCommand([
          'build',
          '--store',
          mixed,
          '--out',
          join(dir, 'build-unassignable-site'),
          '--now',
          `${TS}`,
          '--shard',
          shard,
        ]),
      );
    expect(built.map((r) => r.code)).toEqual([1, 0, 0]);
    expect(built.map((r) => /a\.ndjson:1: .*record skipped/.test(r.stderr))).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('exits 2 on every error: a missing store, an unreadable output, bad config, bad flags', async () => {
    const out = join(dir, 'plan-err');
    const missing = runCli(['plan', '--store', join(dir, 'no-such-store'), '--out', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /no-such-store: no such directory; give the directory of stored values with --store/,
    );
    const fileAsOut = join(dir, 'plan-err-file');
    writeFileSync(fileAsOut, 'not a directory');
    const badOut = await runCommand(['plan', '--store', store, '--out', join(fileAsOut, 'site')]);
    expect(badOut.code).toBe(2);
    const cfg = join(dir, 'plan-bad-cfg.yaml');
    writeFileSync(cfg, 'shape: C\n');
    expect((await runCommand(['plan', '--config', cfg, '--store', store, '--out', out])).code).toBe(
      2,
    );
    expect(
      (await runCommand(['plan', '--store', store, '--out', out, '--shard', '9/3'])).code,
    ).toBe(2);
    // build: a missing store is a wrong argument (2) too
    expect(
      (await runCommand(['build', '--store', join(dir, 'no-such-store'), '--out', out])).code,
    ).toBe(2);
  });
});
