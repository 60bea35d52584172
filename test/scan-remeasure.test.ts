// A failed measurement is measured again (issue 35, item 2): a scan whose GitHub stand-in
// answers a rate limit writes CI_PIPELINE as failed; while the limit lasts a scan at the same
// time says so again (never "0 failed") and writes nothing; once the API answers, the next scan
// completes the record, keeps every value it had, and the built site shows the new value. A
// complete record is never written twice.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from './helpers/cli-in-process.ts';
import { git, utc, WorkRepo } from './helpers/git-repo.ts';
import { GH_ERROR, startGitHub } from '../scripts/lib/forge-peers/github.ts';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';
import { tempDir } from './helpers/tmp.ts';

const E = utc(2026, 11, 25);
const URL = 'https://github.com/acme/widget';
const STORE_FILE = 'github.com/acme/widget.ndjson';

describe('a failed measurement is measured again', () => {
  const root = tempDir('badgepress-remeasure-');
  const config = join(root, 'badgepress.yaml');
  const bare = join(root, 'widget.git');
  let github: ForgeServer;
  let limited = true;

  beforeAll(async () => {
    const repo = WorkRepo.init(join(root, 'widget'));
    repo.commit({ at: utc(2026, 9, 2), files: { 'SECURITY.md': 'mail us' } });
    repo.commit({ at: utc(2026, 10, 3) });
    repo.bareClone(bare);
    const reset = Math.floor(Date.now() / 1000) + 3600;
    github = await startGitHub({
      runs: [
        { created: '2026-11-10T00:00:00Z', event: 'push', conclusion: 'success' },
        { created: '2026-11-11T00:00:00Z', event: 'push', conclusion: 'failure' },
      ],
      override: (t) =>
        limited && t.endsWith('/actions/runs')
          ? {
              status: 403,
              headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
              body: GH_ERROR('API rate limit exceeded for user ID 1.'),
            }
          : undefined,
    });
    writeFileSync(
      config,
      [
        'store: store',
        'scan:\n  mirrors: mirrors\n  retries: 0',
        'hosts:',
        `  github.com: { kind: github, apiUrl: "${github.url}", requestsPerSecond: 1000 }`,
        '',
      ].join('\n'),
    );
    writeFileSync(join(root, 'repos.txt'), `${URL} mirror=${bare}\n`);
  });
  afterAll(() => github.close());

  const scan = (json = true, more: string[] = []) =>
    runCommand([
      'scan',
      '--config',
      config,
      '--repos',
      join(root, 'repos.txt'),
      '--store',
      join(root, 'store'),
      '--as-of',
      String(E),
      ...(json ? ['--json'] : []),
      ...more,
    ]);
  const records = () =>
    readFileSync(join(root, 'store', STORE_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));

  it('retries while the forge fails, completes the record once it answers, and the site shows the value', async () => {
    const first = await scan();
    expect(first.code).toBe(1);
    expect(JSON.parse(first.stdout)).toMatchObject({ measured: 1, records: 1, failed: 1 });
    const [failed] = records();
    expect(failed.values.CI_PIPELINE).toBeNull();
    // A rate limit holds for the calls after it too: every rule that needed them failed.
    expect(failed.failed).toEqual(['CI_PIPELINE', 'PACKAGES', 'RELEASES']);
    expect(failed.evidence.CI_PIPELINE).toMatch(/^GitHub API: 403 rate limit, resets /);

    // The limit lasts: measured again, still failed, said so, nothing written.
    const again = await scan(false);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(', 1 failed');
    expect(again.stdout).not.toContain('0 failed');
    expect(again.stderr).toContain('GitHub API: 403 rate limit');
    expect(records()).toHaveLength(1);

    // A scan that asks no forge cannot measure them: still failed, said so, nothing written.
    const gitOnly = await scan(false, ['--forge', 'never']);
    expect(gitOnly.code).toBe(1);
    expect(gitOnly.stdout).toContain(', 1 failed');
    expect(gitOnly.stderr).toContain(
      `not measured yet: CI_PIPELINE, PACKAGES, RELEASES at 2026-11-25T00:00:00Z`,
    );
    expect(records()).toHaveLength(1);

    // The API answers: the record is completed at the same time.
    limited = false;
    const third = await scan();
    expect(third.stderr).toBe('');
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout)).toMatchObject({ measured: 1, records: 1, failed: 0 });
    const [, completed] = records();
    expect(completed.timestamp).toBe(E);
    expect(completed.failed).toBeUndefined();
    expect(completed.values.CI_PIPELINE).toEqual({
      events: [utc(2026, 11, 10), utc(2026, 11, 11)],
    });
    // Nothing measured is lost: every other value is as the first record had it.
    for (const [rule, v] of Object.entries(failed.values))
      if (!failed.failed.includes(rule)) expect([rule, completed.values[rule]]).toEqual([rule, v]);
    expect(Object.keys(completed.values).sort()).toEqual(Object.keys(failed.values).sort());

    // A complete record is not measured again at its time.
    const fourth = await scan();
    expect(fourth.code).toBe(0);
    expect(JSON.parse(fourth.stdout)).toMatchObject({
      measured: 0,
      upToDate: 1,
      records: 0,
      failed: 0,
    });
    expect(records()).toHaveLength(2);

    // The build uses the completing record, without calling either a duplicate.
    const out = join(root, 'dist');
    const build = await runCommand([
      'build',
      '--config',
      config,
      '--store',
      join(root, 'store'),
      '--out',
      out,
      '--shape',
      'B',
      '--now',
      String(E),
    ]);
    expect(build.stderr).not.toContain('duplicate');
    expect(build.code, build.stderr).toBe(0);
    const sarif = JSON.parse(
      readFileSync(join(out, 'api/v1/repositories', encodeURIComponent(URL), 'sarif'), 'utf8'),
    );
    const ci = (
      sarif.runs[0].results as Array<{
        ruleId: string;
        kind: string;
        properties: { value: string };
      }>
    ).filter((r) => r.ruleId === 'CI_PIPELINE');
    expect(ci.length).toBeGreaterThan(0);
    for (const r of ci) expect([r.properties.value, r.kind]).toEqual(['2', 'pass']);
  });

  it('the record names the commit it measured as git does', () => {
    const head = git(bare, ['rev-parse', 'HEAD']).trim();
    const committed = Number(git(bare, ['log', '-1', '--format=%ct', 'HEAD']).trim());
    const branch = git(bare, ['symbolic-ref', '--short', 'HEAD']).trim();
    for (const r of records())
      expect(r.revision).toEqual({ commit: head, committedAt: committed, branch });
    expect(branch).toBe('main');
    expect(committed).toBe(utc(2026, 10, 3));
  });
});
