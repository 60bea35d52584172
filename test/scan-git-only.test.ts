// A scan that asks no forge: `--fetch never` opens no connection to git's server or the forge's
// API and sends them nothing (both count the sockets they accept and the requests they see: a
// request can ride a keep-alive socket an earlier scan left open), `--forge never` and a host's
// `api: false` measure by git alone. The forge rules are then null as "not asked", never failures (exit 0), and the
// summary says what was not asked and why. Also: the horizon covers CI_PIPELINE's and PACKAGES'
// windows, not only those of COMMITS and RELEASES.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, withToken } from './helpers/cli-in-process.ts';
import { startGitHttp, type GitHttpServer } from './helpers/git-http.ts';
import { git, utc, WorkRepo } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';
import { storeFileName } from '../src/store/record-line.ts';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';
import { startGitLab } from '../scripts/lib/forge-peers/gitlab.ts';

const FORGE_RULES = ['CI_PIPELINE', 'ISSUE_REACTION_TIME', 'PACKAGES'];

describe('scan without asking a forge', () => {
  const root = tempDir('badgepress-scan-git-only-');
  const served = join(root, 'served');
  let http: GitHttpServer;
  let gitlab: ForgeServer;
  let host: string;
  const configs: Record<string, string> = {};

  beforeAll(async () => {
    const work = WorkRepo.init(join(root, 'work'));
    work.commit({ at: utc(2026, 1, 5) });
    work.commit({ at: utc(2026, 3, 5) });
    git(root, ['clone', '-q', '--bare', work.dir, join(served, 'acme', 'widget.git')]);
    http = await startGitHttp(served);
    host = `127.0.0.1:${http.port}`;
    // Pipelines 2, 8 and 18 months before 2026-11-01; the packages' windows are 24 months.
    gitlab = await startGitLab({
      pipelines: [
        { created: '2026-09-01T00:00:00Z', status: 'success' },
        { created: '2026-03-01T00:00:00Z', status: 'success' },
        { created: '2025-05-01T00:00:00Z', status: 'failed' },
      ],
      packages: [
        { name: 'widget', version: '0.1.0', type: 'npm', created: '2025-05-02T00:00:00Z' },
      ],
    });
    const thresholds = join(root, 'thresholds-b.yaml');
    const b = readFileSync(new URL('../config/thresholds-b.yaml', import.meta.url), 'utf8');
    // CI_PIPELINE and PACKAGES count 24 months; the scan's horizon stays 12.
    writeFileSync(
      thresholds,
      b.replace(
        /(unit: (?:packages|runs)\n\s+threshold: \{ min: 1, timeRangeInMonths: )6/g,
        '$124',
      ),
    );
    const base = (hostEntry: string) =>
      `shape: B\nstore: store\nthresholds: { B: ${thresholds} }\nscan:\n  mirrors: mirrors\n  retries: 0\n  horizonMonths: 12\nhosts:\n  "${host}": ${hostEntry}\n`;
    configs.api = join(root, 'api.yaml');
    const api = `{ kind: gitlab, apiUrl: "${gitlab.url}", tokenEnv: TEST_GITLAB_TOKEN, requestsPerSecond: 1000 }`;
    writeFileSync(configs.api, base(api));
    configs.off = join(root, 'off.yaml');
    writeFileSync(configs.off, base(`{ api: false, kind: gitlab, apiUrl: "${gitlab.url}" }`));
    configs.bare = join(root, 'bare.yaml');
    writeFileSync(configs.bare, base('{ api: false }'));
    writeFileSync(join(root, 'repos.txt'), `${http.url}/acme/widget.git\n`);
  });
  afterAll(async () => {
    await http?.close();
    await gitlab?.close();
  });

  const scan = (config: string, store: string, asOf: string, ...more: string[]) =>
    withToken([
      'scan',
      '--config',
      config,
      '--repos',
      join(root, 'repos.txt'),
      '--store',
      join(root, store),
      '--as-of',
      asOf,
      '--json',
      ...more,
    ]);
  /** Sockets each peer accepted and requests it answered, whichever socket they came on. */
  const peersSaw = () => ({
    git: { connections: http.connections(), requests: http.requests.length },
    forge: { connections: gitlab.connections(), requests: gitlab.requests.length },
  });
  const lastRecord = (store: string) => {
    const lines = readFileSync(join(root, store, storeFileName(host, 'acme/widget')), 'utf8')
      .trim()
      .split('\n');
    return JSON.parse(lines[lines.length - 1]!);
  };

  it('keeps CI_PIPELINE and PACKAGES events for their 24-month windows, past a 12-month horizon', async () => {
    const r = await scan(configs.api!, 'store-api', '2026-11-01');
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ measured: 1, failed: 0, exitCode: 0 });
    const record = lastRecord('store-api');
    // By hand: all three pipelines and the package are within 24 months of 2026-11-01.
    expect(record.values.CI_PIPELINE).toEqual({
      events: [utc(2025, 5, 1), utc(2026, 3, 1), utc(2026, 9, 1)],
    });
    expect(record.values.PACKAGES).toEqual({ events: [utc(2025, 5, 2)] });
  });

  it('a run that finds every time stored does not blame the host for the forge rules', async () => {
    const r = await runCommand([
      'scan',
      '--config',
      configs.api!,
      '--repos',
      join(root, 'repos.txt'),
      '--store',
      join(root, 'store-api'),
      '--as-of',
      '2026-11-01',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 already stored');
    expect(r.stdout).not.toContain('not measured');
  });

  it('--fetch never opens no connection to git or the forge; the forge rules are not asked, exit 0', async () => {
    // The mirror exists from the scan above; a scan at another time measures it again.
    const before = peersSaw();
    const r = await scan(configs.api!, 'store-api', '2026-11-02', '--fetch', 'never');
    // What the peers saw, not what the scan says it did.
    expect(peersSaw()).toEqual(before);
    expect(r.stderr).toBe('');
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({
      measured: 1,
      failed: 0,
      exitCode: 0,
      forgeRequests: 0,
      unmeasured: [],
    });
    expect(summary.notAsked).toEqual([{ rules: FORGE_RULES, why: '--fetch never asks no server' }]);
    const record = lastRecord('store-api');
    for (const rule of FORGE_RULES)
      expect([rule, record.values[rule], record.evidence[rule]]).toEqual([
        rule,
        null,
        'not asked: --fetch never asks no server',
      ]);
    // git's measurements stand: two commits, RELEASES from git (no tags) with the forge's part named.
    expect(record.values.COMMITS).toEqual({ events: [utc(2026, 1, 5), utc(2026, 3, 5)] });
    expect(record.evidence.RELEASES).toContain(
      'forge releases not read: not asked: --fetch never asks no server',
    );
  });

  it('--forge never fetches with git and asks no forge; the text summary says what was not asked', async () => {
    const before = peersSaw();
    const r = await runCommand([
      'scan',
      '--config',
      configs.api!,
      '--repos',
      join(root, 'repos.txt'),
      '--store',
      join(root, 'store-api'),
      '--as-of',
      '2026-11-03',
      '--forge',
      'never',
    ]);
    expect(peersSaw().forge).toEqual(before.forge);
    expect(peersSaw().git.requests).toBeGreaterThan(before.git.requests);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('0 failed');
    expect(r.stdout).toContain(
      '; not asked: CI_PIPELINE, ISSUE_REACTION_TIME, PACKAGES (--forge never (git alone))',
    );
    expect(r.stdout).not.toContain('not measured');
    expect(lastRecord('store-api').evidence.CI_PIPELINE).toBe(
      'not asked: --forge never (git alone)',
    );
  });

  it('a host with api: false is measured by git alone, with or without kind and apiUrl', async () => {
    for (const [config, store] of [
      [configs.off!, 'store-off'],
      [configs.bare!, 'store-bare'],
    ] as const) {
      const before = peersSaw();
      const r = await scan(config, store, '2026-11-01');
      expect(peersSaw().forge).toEqual(before.forge);
      expect(r.stderr).toBe('');
      const summary = JSON.parse(r.stdout);
      expect(summary).toMatchObject({ measured: 1, failed: 0, exitCode: 0, unmeasured: [] });
      expect(summary.notAsked).toEqual([
        { rules: FORGE_RULES, why: `hosts: ${host}: api: false (git alone)` },
      ]);
      expect(lastRecord(store).values.ISSUE_REACTION_TIME).toBeNull();
    }
  });

  it('a record without RELEASES lacks it under api: false too: git measures its tags whatever the forge', async () => {
    await scan(configs.bare!, 'store-narrow', '2026-11-01', '--rules', 'COMMITS');
    const r = await scan(configs.bare!, 'store-narrow', '2026-11-01');
    expect(JSON.parse(r.stdout)).toMatchObject({ incomplete: 1, records: 0, exitCode: 1 });
    // The forge rules, only held as not asked here, are not lacked; git's are.
    expect(r.stderr).toContain(
      'the stored record at 2026-11-01T00:00:00Z lacks BUS_FACTOR, RELEASES, SECURITY_POLICY (a scan with a narrower --rules wrote it)',
    );
  });

  it('refuses --forge with another word', async () => {
    const r = await scan(configs.api!, 'store-x', '2026-11-01', '--forge', 'sometimes');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--forge "sometimes": expected always or never');
  });
});
