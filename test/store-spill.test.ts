// Bounded memory for a store file larger than memory should hold (src/load/spill.ts): line files above
// a size are streamed into buckets on disk and built bucket by bucket. The histories handed
// out, and every problem reported, are those of the in-memory path. (The 10,000,000-record
// file and its peak RSS are a bench row: scripts/bench.ts.)
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHistories } from '../src/load/histories.ts';
import { DirectoryStore } from '../src/load/store.ts';
import type { LoadIssue, RepositoryHistory } from '../src/load/types.ts';
import { loadThresholdsA } from '../src/config/load.ts';
import { catalogA } from '../src/evaluate/shape-a.ts';
import { ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();

async function load(
  store: string,
  spillAboveBytes?: number,
): Promise<{ histories: RepositoryHistory[]; issues: LoadIssue[] }> {
  const catalog = catalogA(await loadThresholdsA(join(ROOT, 'config/thresholds-a.yaml')));
  const issues: LoadIssue[] = [];
  const histories: RepositoryHistory[] = [];
  for await (const h of loadHistories(new DirectoryStore(store), {
    catalog,
    report: (i) => issues.push(i),
    ...(spillAboveBytes ? { spillAboveBytes } : {}),
  }))
    histories.push(h);
  const byUrl = (a: RepositoryHistory, b: RepositoryHistory) =>
    a.repositoryUrl < b.repositoryUrl ? -1 : 1;
  const byWhere = (a: LoadIssue, b: LoadIssue) =>
    a.where + a.message < b.where + b.message ? -1 : 1;
  return { histories: histories.sort(byUrl), issues: issues.sort(byWhere) };
}

describe('a line file larger than the spill size', () => {
  it('yields the same histories and problems as the in-memory path; no temporary file is left', async () => {
    const store = join(dir, 'store');
    mkdirSync(store);
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const repo = `https://github.com/big/r${i % 200}`;
      lines.push(
        JSON.stringify({
          repositoryUrl: repo,
          timestamp: 1_760_000_000 + Math.floor(i / 200) * 86400,
          values: { BUS_FACTOR: i % 7 },
        }),
      );
      if (i % 500 === 7) lines.push('{broken');
      if (i % 700 === 3)
        lines.push(JSON.stringify({ repositoryUrl: repo, timestamp: -5, values: {} }));
      if (i % 900 === 1)
        lines.push(JSON.stringify({ repositoryUrl: 'not a url', timestamp: 1, values: {} }));
    }
    // A duplicate scan (the first in store order wins), and a small file sharing a repository.
    lines.push(lines[0]!.replace('"BUS_FACTOR":0', '"BUS_FACTOR":6'));
    writeFileSync(join(store, 'big.ndjson'), `${lines.join('\n')}\n`);
    writeFileSync(
      join(store, 'small.ndjson'),
      `${JSON.stringify({ repositoryUrl: 'https://github.com/big/r5', timestamp: 1_700_000_000, values: { BUS_FACTOR: 1 } })}\n`,
    );
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith('badgepress-spill-')).length;
    const inMemory = await load(store);
    const spilled = await load(store, 64 * 1024);
    expect(spilled.histories).toHaveLength(200);
    expect(spilled.histories).toEqual(inMemory.histories);
    expect(spilled.issues).toEqual(inMemory.issues);
    expect(spilled.issues.length).toBeGreaterThan(10);
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('badgepress-spill-')).length).toBe(
      before,
    );
  });
});
