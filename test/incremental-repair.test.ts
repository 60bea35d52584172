// Incremental builds that repair themselves: after each case, the incremental output equals a
// clean build of the same inputs into an empty directory (the build state set aside).
import { appendFileSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildIncrementally } from './helpers/incremental.ts';
import { readTree } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const NOW = 1_763_600_000;
const T = 1_760_000_000;
const url = (i: number) => `https://github.com/repair/r${i}`;
const scan = (i: number, t: number, v: number) => `${JSON.stringify({ repositoryUrl: url(i), timestamp: t, values: { BUS_FACTOR: v, ISSUE_REACTION_TIME: v } })}\n`;

let n = 0;
function place(name: string): string {
  const d = join(dir, `${name}${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
}

/** Writes a store file with an mtime well in the past (a file written within 2 s is re-read by its bytes). */
let clock = 1_700_000_000;
function writeStore(store: string, name: string, text: string, append = false): void {
  if (append) appendFileSync(join(store, name), text);
  else writeFileSync(join(store, name), text);
  clock += 10;
  utimesSync(join(store, name), clock, clock);
}

const published = (tree: Map<string, Buffer>) => new Map([...tree].filter(([k]) => !k.startsWith('.badgepress/')));

/** The incremental output against a clean build of the same store into a new directory. */
async function expectClean(store: string, out: string, now = NOW): Promise<void> {
  const clean = place('clean');
  await buildIncrementally({ flags: { store, out: clean }, now });
  expect(published(readTree(out))).toEqual(published(readTree(clean)));
}

describe('duplicate scans across store files', () => {
  it('a changed file that newly holds a scan an unchanged earlier file has: the first in the store is kept', async () => {
    const store = place('store');
    const out = place('out');
    writeStore(store, 'a.ndjson', scan(0, T, 1));
    writeStore(store, 'b.ndjson', scan(1, T, 2));
    await buildIncrementally({ flags: { store, out }, now: NOW });
    // The same repository and time as a.ndjson's scan, other values: a duplicate, a.ndjson's wins.
    writeStore(store, 'b.ndjson', scan(0, T, 7), true);
    const { issues } = await buildIncrementally({ flags: { store, out }, now: NOW });
    expect(issues.map((i) => i.where)).toEqual([`${join(store, 'b.ndjson')}:2`]);
    await expectClean(store, out);
  });
});

describe('an unchanged state is not written again', () => {
  it('on a directory: the state file keeps its inode and mtime after an unchanged rebuild, and is replaced after a change', async () => {
    const store = place('store');
    const out = place('out');
    writeStore(store, 'a.ndjson', scan(0, T, 1));
    await buildIncrementally({ flags: { store, out }, now: NOW });
    const path = join(out, '.badgepress/state/1/0.json');
    const before = statSync(path, { bigint: true });
    await buildIncrementally({ flags: { store, out }, now: NOW });
    const after = statSync(path, { bigint: true });
    expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs]);
    expect(readdirSync(join(out, '.badgepress/state/1'))).toEqual(['0.json']);
    writeStore(store, 'a.ndjson', scan(0, T + 86400, 2), true);
    await buildIncrementally({ flags: { store, out }, now: NOW });
    expect(statSync(path, { bigint: true }).ino).not.toBe(before.ino);
  });
});
