// A repository whose history is too long to build in the heap left is refused by name (exit
// 1), and the others are built: never V8's "heap out of memory" abort, which names nothing and
// ends the whole build. Shown with the real CLI in a Node given a small heap.
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { heapRoom, heapShortfall, HEAP_BYTES_PER_SCAN } from '../src/pipeline/heap-room.ts';
import type { RepositoryHistory } from '../src/load/types.ts';
import { ROOT, runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

const MB = 1024 * 1024;
const BIG = 'https://github.com/acme/big';
const history = (scans: number) =>
  ({
    repositoryUrl: BIG,
    encoded: encodeURIComponent(BIG),
    scans: new Array(scans),
    grants: [],
  }) as unknown as RepositoryHistory;

/** A store of the example's acme/widget and a repository of 5,000 scans. */
function storeWithBig(): { dir: string; store: string } {
  const dir = tempDir();
  const store = join(dir, 'store');
  mkdirSync(store);
  copyFileSync(join(ROOT, 'examples/store/acme-widget.ndjson'), join(store, 'acme-widget.ndjson'));
  const lines: string[] = [];
  for (let i = 0; i < 5000; i++)
    lines.push(
      JSON.stringify({
        repositoryUrl: BIG,
        timestamp: 1_600_000_000 + i * 3600,
        values: {
          ISSUE_REACTION_TIME: i % 20,
          BUS_FACTOR: i % 7,
          SECURITY_POLICY: true,
          DEPENDENTS: i % 40,
        },
      }),
    );
  writeFileSync(join(store, 'big.ndjson'), `${lines.join('\n')}\n`);
  return { dir, store };
}

describe('a repository too large for the heap', () => {
  it('is judged by its scans against the heap left', () => {
    const heap = { limit: 512 * MB, used: 64 * MB };
    const fits = Math.floor((448 * 1024 * 1024) / HEAP_BYTES_PER_SCAN);
    expect(heapShortfall(history(fits), heap)).toBeUndefined();
    expect(heapShortfall(history(fits + 1), heap)).toBe(
      // 448 MiB / 32 KiB a scan = 14,336 scans fit.
      "14,337 scans need about 449 MB to build at once, more than the 448 MB left of the heap's 512 MB; its files were left as they were. Give Node more heap (NODE_OPTIONS=--max-old-space-size=1024) or keep fewer of its scans in the store",
    );
    // One scan: the noun and the verb in the singular.
    expect(heapShortfall(history(1), { limit: MB, used: MB - 16 * 1024 })).toBe(
      "1 scan needs about 1 MB to build at once, more than the 0 MB left of the heap's 1 MB; its files were left as they were. Give Node more heap (NODE_OPTIONS=--max-old-space-size=512) or keep fewer of its scans in the store",
    );
  });

  it('is judged against the old generation, not the young one V8 counts in heap_size_limit', () => {
    // What Node 24 reports for --max-old-space-size=96: 96 MB old + 3 × 64 MB semi-spaces.
    const stats = (limitMb: number) =>
      ({ heap_size_limit: limitMb * MB, used_heap_size: 10 * MB }) as ReturnType<
        typeof import('node:v8').getHeapStatistics
      >;
    expect(heapRoom(stats(288), ['--max-old-space-size=96'])).toEqual({
      limit: 96 * MB,
      used: 10 * MB,
    });
    // NODE_OPTIONS comes first; the command line's flag wins, in either spelling.
    expect(
      heapRoom(stats(288), ['--max-old-space-size=512', '--max_old_space_size', '96']).limit,
    ).toBe(96 * MB);
    // No old-generation flag: the young part (three semi-spaces) is taken off the limit.
    expect(heapRoom(stats(120), ['--max-semi-space-size=8']).limit).toBe(96 * MB);
    expect(heapRoom(stats(4288), []).limit).toBe(4096 * MB);
    // Never below half the heap, whatever the default young size was.
    expect(heapRoom(stats(144), []).limit).toBe(72 * MB);
  });

  it('is refused by name in a build whose heap it would outgrow; the others are built (exit 1)', () => {
    const { dir, store } = storeWithBig();
    const out = join(dir, 'out');
    // 5,000 scans take about 157 MB to build at once (the estimate asserted below): more than a 96 MB heap holds.
    const r = runCli(['build', '--store', store, '--out', out, '--now', '1763600000'], {
      env: { NODE_OPTIONS: '--max-old-space-size=96' },
    });
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.stderr).toMatch(
      new RegExp(
        `${BIG.replaceAll('.', '\\.')}: 5,000 scans need about 157 MB to build at once, more than the \\d+ MB left of the heap's \\d+ MB; its files were left as they were\\. Give Node more heap \\(NODE_OPTIONS=--max-old-space-size=\\d+\\)`,
      ),
    );
    expect(r.code).toBe(1);
    expect(
      existsSync(
        join(
          out,
          'api/v1/repositories',
          encodeURIComponent('https://github.com/acme/widget'),
          'index.json',
        ),
      ),
    ).toBe(true);
    expect(existsSync(join(out, 'api/v1/repositories', encodeURIComponent(BIG)))).toBe(false);
  });

  it('is refused by name by plan too, which runs the loop build runs; the others are planned', () => {
    const { dir, store } = storeWithBig();
    const r = runCli(
      ['plan', '--store', store, '--out', join(dir, 'out'), '--now', '1763600000', '--json'],
      {
        env: { NODE_OPTIONS: '--max-old-space-size=96' },
      },
    );
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.stderr).toMatch(
      new RegExp(`${BIG.replaceAll('.', '\\.')}: 5,000 scans need about 157 MB to build at once`),
    );
    // Exit 3: the other repository's files would be added.
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ repositories: 1 });
  });
});
