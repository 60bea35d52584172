// The directory sink remembers a bounded number of directories (made by this build or not) to
// skip mkdir and the read-back of files it is about to create. Past the bound it forgets:
// that must cost only syscalls, never a wrong answer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DirectorySink, MAX_REMEMBERED_DIRS } from '../src/publish/dir-sink.ts';
import type { PublishFile } from '../src/model/publish-file.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();

const file = (i: number, body: string): PublishFile => ({
  // A folder per file under its own repository folder, as a build lays them out.
  key: `api/r${i}/at/${i % 7}/badge`,
  body,
  contentType: 'text/plain',
  cacheControl: 'no-store',
  phase: 'latest',
});

async function putAll(sink: DirectorySink, files: PublishFile[]): Promise<Map<string, number>> {
  const outcomes = new Map<string, number>();
  for (const f of files) {
    const o = await sink.put(f);
    outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
  }
  return outcomes;
}

describe('the directory sink past the directories it remembers', () => {
  it('writes every new file once, finds identical files unchanged and rewrites only changed ones', async () => {
    // A folder of its own for every file: the sink forgets what it made at least once a pass.
    const n = MAX_REMEMBERED_DIRS + 500;
    const out = join(dir, 'out');
    const first = Array.from({ length: n }, (_, i) => file(i, `v1 ${i}`));
    expect(await putAll(new DirectorySink(out), first)).toEqual(new Map([['written', n]]));
    // A new build (a new sink) finds every file unchanged; the same sink then rewrites only
    // what changed, with what it remembers from that pass.
    const again = new DirectorySink(out);
    expect(await putAll(again, first)).toEqual(new Map([['unchanged', n]]));
    const changed = first.map((f, i) => (i % 3 === 0 ? { ...f, body: `v2 ${i}` } : f));
    expect(await putAll(again, changed)).toEqual(
      new Map([
        ['written', Math.ceil(n / 3)],
        ['unchanged', n - Math.ceil(n / 3)],
      ]),
    );
    for (const i of [0, 1, n - 1])
      expect(readFileSync(join(out, changed[i]!.key), 'utf8')).toBe(changed[i]!.body);
  });
});
