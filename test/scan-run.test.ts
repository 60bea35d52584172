// src/scan/run.ts, the scan from start to end as the command calls it: the list read and its
// bad lines said once across shards, the store's lease taken and given back, failures named.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config/resolve.ts';
import { UsageError } from '../src/errors.ts';
import { runScan, type ScanRun } from '../src/scan/run.ts';
import { tempDir } from './helpers/tmp.ts';

async function run(dir: string, repos: string, more: Partial<ScanRun> = {}) {
  const said: string[] = [];
  const config = await resolveConfig('examples/scan/badgepress.yaml', {
    store: join(dir, 'store'),
  });
  config.settings.scan.mirrors = join(dir, 'mirrors');
  const outcome = await runScan({
    config,
    reposFile: repos,
    asOf: 1_764_000_000,
    fetch: 'never',
    botPatterns: [],
    listener: {
      listProblem: (p) => said.push(`list: ${p}`),
      report: (l) => said.push(`report: ${l}`),
      warn: (m) => said.push(`warn: ${m}`),
    },
    ...more,
  });
  return { outcome, said };
}

describe('runScan', () => {
  it('says a bad line of the list once, on shard 0 of n, and writes nothing for it', async () => {
    const d = tempDir();
    const repos = join(d, 'repos.txt');
    writeFileSync(repos, '# nothing to measure\nnot a url\n');
    const whole = await run(d, repos);
    expect(whole.outcome.listProblems).toBe(1);
    expect(whole.said).toEqual([expect.stringMatching(/^list: .*repos\.txt:2/)]);
    expect(whole.outcome.summary.repositories).toBe(0);
    expect(whole.outcome.location).toBe(join(d, 'store'));
    const first = await run(d, repos, { shard: { index: 0, count: 2 } });
    const second = await run(d, repos, { shard: { index: 1, count: 2 } });
    expect([first.outcome.listProblems, second.outcome.listProblems]).toEqual([1, 0]);
    expect(second.said).toEqual([]);
  });

  it('gives the store lease back, so the next scan of the store takes it at once', async () => {
    const d = tempDir();
    const repos = join(d, 'repos.txt');
    writeFileSync(repos, '');
    await run(d, repos);
    await run(d, repos);
    expect(existsSync(join(d, 'store'))).toBe(true);
    expect(readdirSync(join(d, 'store')).filter((n) => n.endsWith('.ndjson'))).toEqual([]);
  });

  it('a list it cannot read is a usage error naming --repos, before the store is touched', async () => {
    const d = tempDir();
    const failure = run(d, join(d, 'missing.txt'));
    await expect(failure).rejects.toThrow(UsageError);
    await expect(failure).rejects.toThrow(
      `--repos ${join(d, 'missing.txt')}: cannot read it (ENOENT); name a file with one repository URL a line`,
    );
    expect(existsSync(join(d, 'store'))).toBe(false);
  });
});
