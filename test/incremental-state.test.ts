// Build state on a directory, beyond the equivalence property: the per-repository summary slot
// (for site-wide pages) is carried for skipped repositories, a foreign or torn state file is
// ignored (a full build, never an error), and --force reads nothing of the state.
import { appendFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildIncrementally } from './helpers/incremental.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const NOW = 1_763_600_000;
const url = (i: number) => `https://github.com/s/r${i}`;
const scan = (i: number, t: number) => `${JSON.stringify({ repositoryUrl: url(i), timestamp: t, values: { BUS_FACTOR: i } })}\n`;

let stores = 0;
function store(): string {
  const d = join(dir, `store${++stores}`);
  mkdirSync(d, { recursive: true });
  for (let i = 0; i < 3; i++) {
    writeFileSync(join(d, `r${i}.ndjson`), scan(i, 1_760_000_000));
    utimesSync(join(d, `r${i}.ndjson`), 1_700_000_000, 1_700_000_000);
  }
  return d;
}

describe('build state', () => {
  it('carries each skipped repository’s summary; a changed one gets a fresh summary', async () => {
    const s = store();
    const out = join(dir, 'out');
    const seen: Array<Map<string, unknown>> = [];
    const run = () =>
      buildIncrementally({
        flags: { store: s, out },
        now: NOW,
        summarize: (h, files) => JSON.stringify({ scans: h.scans.length, files: files.length }),
        onSummaries: (m) => void seen.push(new Map(m)),
      });
    await run();
    appendFileSync(join(s, 'r1.ndjson'), scan(1, 1_761_000_000));
    utimesSync(join(s, 'r1.ndjson'), 1_700_000_100, 1_700_000_100);
    const second = await run();
    expect(second.summary.reused).toBe(2);
    expect(seen[0]!.size).toBe(3);
    expect(seen[1]!.get(url(0))).toEqual(seen[0]!.get(url(0)));
    expect(seen[1]!.get(url(2))).toEqual(seen[0]!.get(url(2)));
    expect(JSON.parse(seen[1]!.get(url(1)) as string)).toMatchObject({ scans: 2 });
  });

  it('a torn or foreign state file means a full build, and --force ignores a good one', async () => {
    const s = store();
    const out = join(dir, 'out-torn');
    await buildIncrementally({ flags: { store: s, out }, now: NOW });
    expect((await buildIncrementally({ flags: { store: s, out }, now: NOW })).summary.reused).toBe(3);
    expect((await buildIncrementally({ flags: { store: s, out }, now: NOW, force: true })).summary.reused).toBe(0);
    writeFileSync(join(out, '.badgepress/state/1/0.json'), '{"format":1,"files":[["x"');
    const torn = await buildIncrementally({ flags: { store: s, out }, now: NOW });
    expect(torn.summary).toMatchObject({ reused: 0, repositories: 3, written: 0 });
    expect(torn.issues).toEqual([]);
  });
});
