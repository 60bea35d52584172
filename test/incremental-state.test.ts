// Build state on a directory, beyond the equivalence property: the per-repository summary slot
// (for site-wide pages) is carried for skipped repositories, a foreign or torn state file is
// ignored (a full build, never an error), and --force reads nothing of the state. The state's
// JSON lines, the summary lines kept on disk, and a shard's summaries split into parts.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildIncrementally } from './helpers/incremental.ts';
import { tempDir } from './helpers/tmp.ts';
import { readState, serializeState, stateKey } from '../src/incremental/state.ts';
import { writeLines } from '../src/incremental/state-lines.ts';
import { DirectoryStateKeeper } from '../src/incremental/state-keeper.ts';
import { DirectorySink } from '../src/publish/dir-sink.ts';
import { SummaryLines } from '../src/incremental/summary-lines.ts';
import {
  SUMMARY_PART_LINES,
  sortSummaries,
  staleSummaryParts,
  summariesFiles,
  summariesKey,
} from '../src/render/pages/summary.ts';
import { readSummaries } from '../src/pipeline/summaries.ts';

const dir = tempDir();
const NOW = 1_763_600_000;
const url = (i: number) => `https://github.com/s/r${i}`;
const scan = (i: number, t: number) =>
  `${JSON.stringify({ repositoryUrl: url(i), timestamp: t, values: { BUS_FACTOR: i } })}\n`;

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
    // Every repository's summary, built or carried, as the build published them.
    const run = async () => {
      const built = await buildIncrementally({ flags: { store: s, out }, now: NOW, pages: true });
      const lines = readFileSync(join(out, summariesKey(0, 1)), 'utf8')
        .split('\n')
        .filter(Boolean);
      seen.push(new Map(lines.map((line) => [(JSON.parse(line) as { url: string }).url, line])));
      return built;
    };
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
    expect((await buildIncrementally({ flags: { store: s, out }, now: NOW })).summary.reused).toBe(
      3,
    );
    expect(
      (await buildIncrementally({ flags: { store: s, out }, now: NOW, force: true })).summary
        .reused,
    ).toBe(0);
    writeFileSync(join(out, '.badgepress/state/1/0.json'), '{"format":1,"files":[["x"');
    const torn = await buildIncrementally({ flags: { store: s, out }, now: NOW });
    expect(torn.summary).toMatchObject({ reused: 0, repositories: 3, written: 0 });
    expect(torn.issues).toEqual([]);
  });
});

describe('state as JSON lines (format 5)', () => {
  const state = {
    code: 'c',
    config: 'g',
    parts: { sarif: 's' },
    files: new Map([
      ['a.ndjson', { version: '10:1', repositories: [url(0), url(1)] }],
      [
        'b.ndjson',
        {
          version: '11:2',
          repositories: [url(2)],
          issues: [{ severity: 'error' as const, where: 'b.ndjson:3', message: 'bad' }],
        },
      ],
    ]),
    repositories: new Map([
      [url(0), { scans: 2, files: 40, pruned: true, flip: 1_770_000_001, flipped: false }],
      [
        url(1),
        {
          scans: 1,
          files: 20,
          pruned: false,
          issues: [{ severity: 'warning' as const, where: 'a.ndjson:2', message: 'odd' }],
        },
      ],
      [url(2), { scans: 0, files: 0, pruned: false }],
    ]),
    gone: [url(9)],
  };
  const lines = new Map([
    [url(0), '{"url":"https://github.com/s/r0","note":"a \\"quoted\\" é"}'],
    [url(1), '{"url":"https://github.com/s/r1"}'],
  ]);

  it('reads back what it wrote, each summary line into the summary store, one line per file and repository', async () => {
    const text = serializeState(state, lines);
    expect(text.split('\n')).toHaveLength(1 + 2 + 3 + 1 + 1);
    const summaries = new SummaryLines();
    try {
      // Read back compactly (compact-state.ts): compared as maps.
      const read = (await readState(text.split('\n'), summaries))!;
      expect({
        ...read,
        files: new Map(read.files),
        repositories: new Map(read.repositories),
      }).toEqual(state);
      expect(new Map(summaries)).toEqual(lines);
    } finally {
      summaries.file.close();
    }
  });

  it('a state cut short, with a line lost, or of another format is not used', async () => {
    const all = serializeState(state, lines).split('\n');
    expect(await readState(all.slice(0, -2), new Map())).toBeUndefined();
    expect(await readState([...all.slice(0, 2), ...all.slice(3)], new Map())).toBeUndefined();
    expect(
      await readState([all[0]!.replace('"format":5', '"format":3'), ...all.slice(1)], new Map()),
    ).toBeUndefined();
    expect(await readState(['{"format":3,"files":[]}'], new Map())).toBeUndefined();
  });
});

describe('a state write that fails part way', () => {
  it('names the state file, leaves the old state and no temporary file behind', async () => {
    const out = join(dir, 'out-failed-state');
    const states = new DirectoryStateKeeper(out);
    const key = stateKey({ index: 0, count: 1 });
    await states.write(key, ['{"old":true}\n']);
    function* lines(): Generator<string> {
      yield '{"new":true}\n';
      throw new Error('a summary line could not be read');
    }
    await expect(states.write(key, lines())).rejects.toThrow(
      `build state ${join(out, key)}: cannot write (Error: a summary line could not be read)`,
    );
    const folder = join(out, '.badgepress/state/1');
    expect(readdirSync(folder)).toEqual(['0.json']);
    expect(existsSync(join(folder, '0.json.tmp'))).toBe(false);
    const kept = await states.read(key);
    const text: string[] = [];
    for await (const l of kept!) text.push(l);
    expect(text.join('')).toContain('"old":true');
    await states.close();
  });
});

describe('a state file that cannot be written', () => {
  it('rejects with the cause, not a hang, when the stream fails while lines wait for drain', {
    timeout: 20_000,
  }, async () => {
    const line = `${'x'.repeat(1 << 20)}\n`;
    function* many(): Generator<string> {
      for (let i = 0; i < 8; i++) yield line;
    }
    await expect(
      writeLines(join(dir, 'no-such-folder', 'state.json.tmp'), many()),
    ).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});

describe('summary lines on disk', () => {
  it('a store gives back each URL’s last line; an adopted line is shared, not copied', () => {
    const prev = new SummaryLines();
    const next = new SummaryLines(prev.file);
    try {
      prev.set('u1', 'one');
      prev.set('u2', 'twö');
      next.set('u3', 'three');
      next.adopt('u2', prev);
      next.set('u3', 'three again');
      expect([...next]).toEqual([
        ['u3', 'three again'],
        ['u2', 'twö'],
      ]);
      const sorted = next.sorted();
      expect(sorted.urls).toEqual(['u2', 'u3']);
      expect([...sorted.lines()]).toEqual(['twö', 'three again']);
      expect(prev.get('u1')).toBe('one');
    } finally {
      prev.file.close();
    }
  });

  it('a shard’s summaries continue in numbered parts past SUMMARY_PART_LINES; parts beyond a build’s are stale', () => {
    const n = SUMMARY_PART_LINES * 2 + 1;
    const byUrl = new Map(
      Array.from({ length: n }, (_, i) => [`u${String(i).padStart(6, '0')}`, `{"i":${i}}`]),
    );
    const files = [...summariesFiles(sortSummaries(byUrl), 1, 4)];
    expect(files.map((f) => f.key)).toEqual([
      '.badgepress/summaries/1-of-4.ndjson',
      '.badgepress/summaries/1-of-4.2.ndjson',
      '.badgepress/summaries/1-of-4.3.ndjson',
    ]);
    expect(files.map((f) => f.body.split('\n').length - 1)).toEqual([
      SUMMARY_PART_LINES,
      SUMMARY_PART_LINES,
      1,
    ]);
    expect(files[2]!.body).toBe(`{"i":${n - 1}}\n`);
    // Up to one part, the bytes are those of the single file; no repository: one empty file.
    expect(
      [...summariesFiles(sortSummaries(new Map([['u', '{}']])), 0, 1)].map((f) => [f.key, f.body]),
    ).toEqual([['.badgepress/summaries/0-of-1.ndjson', '{}\n']]);
    expect([...summariesFiles(sortSummaries(new Map()), 0, 1)].map((f) => f.body)).toEqual(['']);
    const listed = [
      '.badgepress/summaries/1-of-4.ndjson',
      '.badgepress/summaries/1-of-4.2.ndjson',
      '.badgepress/summaries/1-of-4.3.ndjson',
      '.badgepress/summaries/2-of-4.3.ndjson',
      '.badgepress/summaries/1-of-40.3.ndjson',
    ];
    expect(staleSummaryParts(listed, 1, 4, 2)).toEqual(['.badgepress/summaries/1-of-4.3.ndjson']);
    expect(staleSummaryParts(listed, 1, 4, 3)).toEqual([]);
  });

  it('`site` reads every part of every shard', async () => {
    const out = join(dir, 'out-parts');
    const sink = new DirectorySink(out);
    const line = (u: string) => JSON.stringify({ url: u });
    await sink.put({
      key: '.badgepress/summaries/0-of-2.ndjson',
      body: `${line('b')}\n`,
      contentType: 'application/x-ndjson',
      cacheControl: 'no-store',
      phase: 'latest',
    });
    await sink.put({
      key: '.badgepress/summaries/0-of-2.2.ndjson',
      body: `${line('a')}\n`,
      contentType: 'application/x-ndjson',
      cacheControl: 'no-store',
      phase: 'latest',
    });
    await sink.put({
      key: '.badgepress/summaries/1-of-2.ndjson',
      body: `${line('c')}\n`,
      contentType: 'application/x-ndjson',
      cacheControl: 'no-store',
      phase: 'latest',
    });
    const fds = () => readdirSync('/proc/self/fd').length;
    const before = fds();
    const sorted = await readSummaries(sink, 2);
    expect(sorted.urls).toEqual(['a', 'b', 'c']);
    expect([...sorted.lines()]).toEqual(['a', 'b', 'c'].map(line));
    // The lines' local file is released by close(), and by a read that fails part-way.
    expect(fds()).toBe(before + 1);
    sorted.close();
    expect(fds()).toBe(before);
    await sink.put({
      key: '.badgepress/summaries/1-of-2.2.ndjson',
      body: 'not json\n',
      contentType: 'application/x-ndjson',
      cacheControl: 'no-store',
      phase: 'latest',
    });
    await expect(readSummaries(sink, 2)).rejects.toThrow(
      /1-of-2\.2\.ndjson:1: not a JSON summary; run "badgepress build --shard 1\/2" again/,
    );
    expect(fds()).toBe(before);
    await sink.close();
  });
});
