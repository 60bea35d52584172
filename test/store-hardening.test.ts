// Records the schema could once accept but the build could not survive, YAML anchors and
// aliases, values of rules the thresholds do not define, shards and bad records, duplicate
// grants: each bad record is reported once, with file:line, and everything else is built.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSite, readTree } from './helpers/site.ts';
import { expectEverySarifValid } from './helpers/sarif.ts';
import { runCli, ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { parseStoreFile } from '../src/load/parse-file.ts';
import { loadHistories } from '../src/load/histories.ts';
import { DirectoryStore } from '../src/load/store.ts';
import { MAX_UNIX_SECONDS, type LoadIssue } from '../src/load/types.ts';
import recordSchema from '../src/load/record.schema.json' with { type: 'json' };
import { loadThresholdsA } from '../src/config/load.ts';
import { catalogA } from '../src/evaluate/shape-a.ts';
import { inShard, shardOf } from '../src/model/shard.ts';

const dir = tempDir();
const SHAPE_B = join(ROOT, 'examples/shape-b/badgepress.yaml');
const line = (o: object) => JSON.stringify(o);
const latestIndex = (out: string, url: string) =>
  JSON.parse(
    readTree(out)
      .get(`api/v1/repositories/${encodeURIComponent(url)}/index.json`)!
      .toString(),
  );
const errorsOf = (issues: LoadIssue[]) => issues.filter((i) => i.severity === 'error');

let n = 0;
function store(files: Record<string, string | Buffer>): string {
  const d = join(dir, `s${++n}`);
  mkdirSync(d, { recursive: true });
  for (const [f, body] of Object.entries(files)) writeFileSync(join(d, f), body);
  return d;
}

describe('times are capped at the end of year 9999', () => {
  it('the schema and the loader hold the same limit', () => {
    expect(MAX_UNIX_SECONDS).toBe(Date.UTC(9999, 11, 31, 23, 59, 59) / 1000);
    const s = JSON.stringify(recordSchema);
    expect(s.split(`"maximum":${MAX_UNIX_SECONDS}`)).toHaveLength(4); // timestamp, event times and revision.committedAt
  });

  it('Shape A with expiry: a later timestamp is a bad record, the rest is built (exit 1, not 4)', () => {
    const big = 'https://github.com/big/ts';
    const d = store({
      'big.ndjson': [
        line({ repositoryUrl: big, timestamp: 1763000000, values: { BUS_FACTOR: 3 } }),
        line({ repositoryUrl: big, timestamp: 9007199254740991, values: { BUS_FACTOR: 3 } }),
        line({ repositoryUrl: big, timestamp: MAX_UNIX_SECONDS + 1, values: { BUS_FACTOR: 3 } }),
        // The limit itself is a valid time, and its expiry text is written.
        line({ repositoryUrl: big, timestamp: MAX_UNIX_SECONDS, values: { BUS_FACTOR: 3 } }),
      ].join('\n'),
    });
    writeFileSync(join(d, 'site.yaml'), 'expireAfterDays: 30\n');
    const out = join(d, 'out');
    const r = runCli([
      'build',
      '--config',
      join(d, 'site.yaml'),
      '--store',
      d,
      '--out',
      out,
      '--now',
      '1763600000',
    ]);
    expect(r.stderr).not.toMatch(/Invalid time value/);
    expect(r.code).toBe(1);
    const reason = `timestamp must be whole Unix seconds from 0 to ${MAX_UNIX_SECONDS} (the end of year 9999)`;
    expect(r.stderr).toContain(
      `${join(d, 'big.ndjson')}:2: ${reason}, got 9007199254740991; record skipped`,
    );
    expect(r.stderr).toContain(
      `${join(d, 'big.ndjson')}:3: ${reason}, got ${MAX_UNIX_SECONDS + 1}; record skipped`,
    );
    expect(latestIndex(out, big).timestamps).toEqual([1763000000, MAX_UNIX_SECONDS]);
    const expired = JSON.parse(
      readTree(out)
        .get(
          `api/v1/repositories/${encodeURIComponent(big)}/at/${MAX_UNIX_SECONDS}/expired/badges/MAINTENANCE`,
        )!
        .toString(),
    );
    expect(expired.badgeExplanation.conclusion).toMatch(
      /^MAINTENANCE has expired: its scan of 9999-12-31 is more than 30 days old/,
    );
    expectEverySarifValid(out);
  });

  it('Shape B: a later scan time or event time is a bad record, the rest is built', async () => {
    const url = 'https://github.com/big/events';
    const d = store({
      'b.ndjson': [
        line({
          repositoryUrl: url,
          timestamp: 9007199254740991,
          values: { COMMITS: { events: [1] } },
        }),
        line({
          repositoryUrl: url,
          timestamp: 1763000000,
          values: { COMMITS: { events: [1762000000, 9007199254740991] } },
        }),
        line({
          repositoryUrl: url,
          timestamp: 1763100000,
          values: { COMMITS: { events: [1762000000, MAX_UNIX_SECONDS] } },
        }),
      ].join('\n'),
    });
    const out = join(d, 'out');
    const { issues, summary } = await buildSite({ config: SHAPE_B, store: d, out });
    expect(errorsOf(issues).map((i) => `${i.where.split('/').pop()}: ${i.message}`)).toEqual([
      `b.ndjson:1: timestamp must be whole Unix seconds from 0 to ${MAX_UNIX_SECONDS} (the end of year 9999), got 9007199254740991; record skipped`,
      `b.ndjson:2: values.COMMITS.events[1]: an event time must be whole Unix seconds from 0 to ${MAX_UNIX_SECONDS} (the end of year 9999), got 9007199254740991; record skipped`,
    ]);
    expect(summary.scans).toBe(1);
    // The event after the scan is not counted; the window's dates are printed.
    const criterion = JSON.parse(
      readTree(out)
        .get(`api/v1/repositories/${encodeURIComponent(url)}/badges/MAINTAINED`)!
        .toString(),
    ).badgeExplanation.criteria[0];
    expect(criterion).toMatchObject({
      value: '1',
      evidence:
        '1 commit counted between 2025-05-14 and 2025-11-14 (the last 6 months before the scan).',
    });
  });
});

describe('YAML stores: anchors, aliases and alias bombs', () => {
  const yaml = [
    '- &r',
    '  repositoryUrl: https://github.com/acme/one',
    '  timestamp: 1763000000',
    '  values: &v {BUS_FACTOR: 3}',
    '- <<: *r',
    '  timestamp: 1763100000',
    '- repositoryUrl: https://github.com/acme/two',
    '  timestamp: 1763000000',
    '  values: *v',
    '- *r',
    '',
  ].join('\n');

  it('aliases and merge keys resolve against the document', () => {
    const items = parseStoreFile('x.yaml', Buffer.from(yaml));
    const one = {
      repositoryUrl: 'https://github.com/acme/one',
      timestamp: 1763000000,
      values: { BUS_FACTOR: 3 },
    };
    expect(items).toEqual([
      { line: 2, value: one },
      { line: 5, value: { ...one, timestamp: 1763100000 } },
      {
        line: 7,
        value: {
          repositoryUrl: 'https://github.com/acme/two',
          timestamp: 1763000000,
          values: { BUS_FACTOR: 3 },
        },
      },
      { line: 10, value: one },
    ]);
  });

  it('a build reads them: `- *r` is the same record again, so a duplicate, not a record with missing keys', async () => {
    const d = store({ 'r.yaml': yaml });
    const { issues, summary } = await buildSite({ store: d, out: join(d, 'out') });
    expect(issues.map((i) => `${i.where.split('/').pop()}: ${i.message}`)).toEqual([
      `r.yaml:10: duplicate scan of https://github.com/acme/one at 1763000000 (first at ${join(d, 'r.yaml')}:2); record skipped`,
    ]);
    expect(summary).toMatchObject({ repositories: 2, scans: 3, skipped: 1 });
  });

  it('an alias bomb is a bad record with file:line; its harmless items and the other files are built', () => {
    const bomb = ['- &a [x, x, x, x, x, x, x, x, x]'];
    for (const [i, name] of ['b', 'c', 'd', 'e', 'f', 'g', 'h'].entries())
      bomb.push(`- &${name} [${Array(9).fill(`*${'abcdefg'[i]}`).join(', ')}]`);
    bomb.push(
      '- {repositoryUrl: https://github.com/acme/after-bomb, timestamp: 1763000000, values: {BUS_FACTOR: 2}}',
    );
    const d = store({
      'bomb.yaml': bomb.join('\n'),
      'good.ndjson': line({
        repositoryUrl: 'https://github.com/acme/good',
        timestamp: 1763000000,
        values: { BUS_FACTOR: 4 },
      }),
    });
    const out = join(d, 'out');
    const r = runCli(['build', '--store', d, '--out', out, '--now', '1763600000']);
    expect(r.code).toBe(1);
    const bad = r.stderr.split('\n').filter((l) => l.includes('alias'));
    expect(bad.length).toBeGreaterThan(0);
    for (const l of bad)
      expect(l).toMatch(
        new RegExp(
          `^error: ${join(d, 'bomb.yaml').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+: YAML aliases expand too far .*; record skipped$`,
        ),
      );
    expect(r.stdout).toMatch(/^badgepress: 2 repositories, 2 scans/);
    expectEverySarifValid(out);
  });
});

describe('a whole bad file, a broken YAML document', () => {
  it('a .json file that is not UTF-8 is one bad record at its first bad line; other files are built', async () => {
    const latin1 = Buffer.concat([
      Buffer.from('[\n  {"repositoryUrl": "https://github.com/acme/caf'),
      Buffer.from([0xe9]),
      Buffer.from('", "timestamp": 1, "values": {}}\n]\n'),
    ]);
    const d = store({
      'latin1.json': latin1,
      'good.ndjson': line({
        repositoryUrl: 'https://github.com/acme/good',
        timestamp: 1763000000,
        values: { BUS_FACTOR: 4 },
      }),
    });
    const out = join(d, 'out');
    const { issues, summary } = await buildSite({ store: d, out });
    expect(issues).toEqual([
      {
        severity: 'error',
        where: `${join(d, 'latin1.json')}:2`,
        message:
          'file is not valid UTF-8 (first bad byte on this line); re-encode it as UTF-8; record skipped',
      },
    ]);
    expect(summary).toMatchObject({ repositories: 1, scans: 1, skipped: 1 });
    expectEverySarifValid(out);
  });

  it('a broken YAML document is reported at its line; the file’s other documents are built', async () => {
    const url = 'https://github.com/acme/docs';
    const d = store({
      'docs.yaml': [
        `repositoryUrl: ${url}`,
        'timestamp: 1763000000',
        'values: {BUS_FACTOR: 1}',
        '---',
        'repositoryUrl: [unclosed',
        '---',
        `repositoryUrl: ${url}`,
        'timestamp: 1763100000',
        'values: {BUS_FACTOR: 2}',
        '',
      ].join('\n'),
    });
    const out = join(d, 'out');
    const { issues, summary } = await buildSite({ store: d, out });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.where).toMatch(/docs\.yaml:[56]$/);
    expect(issues[0]!.message).toMatch(/^broken YAML: .*; record skipped$/);
    expect(summary).toMatchObject({ repositories: 1, scans: 2, skipped: 1 });
    expect(latestIndex(out, url).timestamps).toEqual([1763000000, 1763100000]);
    expectEverySarifValid(out);
  });
});

describe('values of rules the active thresholds do not define', () => {
  it('are ignored whatever they hold, with one warning per rule id', async () => {
    const url = 'https://github.com/acme/extra';
    const d = store({
      'x.ndjson': [
        line({ repositoryUrl: url, timestamp: 1, values: { BUS_FACTOR: 1, FOO: 1, BAR: 'x' } }),
        line({
          repositoryUrl: url,
          timestamp: 2,
          values: { BUS_FACTOR: 2, BAR: { weird: [true] }, BAZ: -3 },
          evidence: { BAZ: 42 },
        }),
      ].join('\n'),
    });
    const { issues, summary } = await buildSite({ store: d, out: join(d, 'out') });
    expect(
      issues.map((i) => [
        i.severity,
        i.where.split('/').pop(),
        JSON.parse(i.message.match(/^rule ("\w+")/)![1]!),
      ]),
    ).toEqual([
      ['warning', 'x.ndjson:1', 'FOO'],
      ['warning', 'x.ndjson:1', 'BAR'],
      ['warning', 'x.ndjson:2', 'BAZ'],
    ]);
    expect(summary).toMatchObject({ scans: 2, skipped: 0 });
  });

  it('a wrong value of a defined rule says what that rule accepts', async () => {
    const url = 'https://github.com/acme/types';
    const d = store({
      'x.ndjson': [
        line({ repositoryUrl: url, timestamp: 1, values: { SECURITY_POLICY: 'yes' } }),
        line({ repositoryUrl: url, timestamp: 2, values: { BUS_FACTOR: 'three' } }),
        line({
          repositoryUrl: url,
          timestamp: 3,
          values: { BUS_FACTOR: { events: [1], count: 2 } },
        }),
        line({
          repositoryUrl: url,
          timestamp: 4,
          values: { BUS_FACTOR: 1 },
          evidence: { BUS_FACTOR: 7 },
        }),
      ].join('\n'),
    });
    const { issues } = await buildSite({ store: d, out: join(d, 'out') });
    expect(issues.map((i) => i.message)).toEqual([
      'values.SECURITY_POLICY: expected true, false or null for a yes/no rule, got "yes"; record skipped',
      'values.BUS_FACTOR: expected a number ≥ 0, null or {"events":[unix seconds…]} for a measured rule, got "three"; record skipped',
      'values.BUS_FACTOR: unknown key "count"; a count holds only "events"; record skipped',
      'evidence.BUS_FACTOR: must be string; record skipped',
    ]);
  });
});

describe('--shard i/n and bad records', () => {
  // Valid URLs in every shard of 3, each with one bad record and one good one, and records that
  // belong to no repository (a bad URL, a broken line, a line that is not UTF-8).
  const urls = Array.from({ length: 9 }, (_, i) => `https://github.com/acme/r${i}`);
  const lines: Buffer[] = [];
  for (const url of urls) {
    lines.push(Buffer.from(line({ repositoryUrl: url, timestamp: 10, values: { BUS_FACTOR: 1 } })));
    lines.push(Buffer.from(line({ repositoryUrl: url, timestamp: -1, values: { BUS_FACTOR: 1 } })));
    lines.push(Buffer.from(line({ repositoryUrl: url, timestamp: 10, values: { BUS_FACTOR: 2 } }))); // duplicate
  }
  lines.push(Buffer.from(line({ repositoryUrl: 'not a url', timestamp: 1, values: {} })));
  lines.push(Buffer.from('{"repositoryUrl": "https://github.com/acme/r0", '));
  lines.push(
    Buffer.concat([
      Buffer.from('{"repositoryUrl": "https://github.com/acme/r1'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]),
  );
  const d = store({ 'all.ndjson': Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])) });

  async function errors(shard?: { index: number; count: number }): Promise<string[]> {
    const catalog = catalogA(await loadThresholdsA(join(ROOT, 'config/thresholds-a.yaml')));
    const out: string[] = [];
    const opts = shard ? { include: inShard(shard), reportUnassignable: shard.index === 0 } : {};
    for await (const _ of loadHistories(new DirectoryStore(d), {
      catalog,
      report: (i) => i.severity === 'error' && out.push(`${i.where}: ${i.message}`),
      ...opts,
    }));
    return out;
  }

  it('each bad record is reported by exactly one of 3 shards: its repository’s, or shard 0', async () => {
    expect(new Set(urls.map((u) => shardOf(u, 3))).size).toBe(3);
    const all = await errors();
    expect(all).toHaveLength(9 * 2 + 3);
    const byShard = await Promise.all([0, 1, 2].map((index) => errors({ index, count: 3 })));
    expect(byShard.flat().sort()).toEqual([...all].sort());
    // Lines 3k+1..3k+3 belong to urls[k]; the last three lines to no repository: shard 0.
    const shardOfLine = (l: number) => (l <= 27 ? shardOf(urls[Math.floor((l - 1) / 3)]!, 3) : 0);
    for (const [index, errs] of byShard.entries()) {
      for (const e of errs)
        expect(shardOfLine(Number(/all\.ndjson:(\d+):/.exec(e)![1])), e).toBe(index);
    }
  });
});

describe('Shape B grant records', () => {
  it('a second grant for the same repository, rule and time is a bad record; the first decides', async () => {
    const url = 'https://github.com/acme/granted';
    const grant = (granted: boolean, by: string) =>
      line({
        kind: 'grant',
        repositoryUrl: url,
        ruleId: 'MANUAL/Project is open source',
        granted,
        timestamp: 1762000000,
        by,
      });
    const d = store({
      'a.ndjson': [
        line({ repositoryUrl: url, timestamp: 1763000000, values: { COMMITS: 5 } }),
        grant(true, 'first'),
      ].join('\n'),
      'b.ndjson': [
        grant(false, 'second'),
        // Another rule at the same time is no duplicate.
        line({
          kind: 'grant',
          repositoryUrl: url,
          ruleId: 'MANUAL/DIN SPEC XXXX compliant',
          granted: true,
          timestamp: 1762000000,
        }),
      ].join('\n'),
    });
    const out = join(d, 'out');
    const { issues, summary } = await buildSite({ config: SHAPE_B, store: d, out });
    expect(issues).toEqual([
      {
        severity: 'error',
        where: `${join(d, 'b.ndjson')}:1`,
        message: `duplicate grant record for "MANUAL/Project is open source" of ${url} at 1762000000 (first at ${join(d, 'a.ndjson')}:2); record skipped`,
      },
    ]);
    expect(summary.skipped).toBe(1);
    const evidence = JSON.parse(
      readTree(out)
        .get(`api/v1/repositories/${encodeURIComponent(url)}/badges/OPEN-SOURCE`)!
        .toString(),
    ).badgeExplanation.criteria[0].evidence;
    expect(evidence).toBe('Granted manually by first on 2025-11-01.');
  });
});

describe('hostile shapes that once stopped the build', () => {
  const nested = (depth: number) => '['.repeat(depth) + '1' + ']'.repeat(depth);

  it('a value nested too deeply to quote is a bad record with file:line, the rest is built (exit 1, not 4)', () => {
    const good = 'https://x.org/good';
    const d = store({
      'deep.ndjson': [
        `{"repositoryUrl":"https://x.org/d1","timestamp":1763000000,"values":{"BUS_FACTOR":${nested(20000)}}}`,
        `{"repositoryUrl":"https://x.org/d2","timestamp":1763000000,"values":{"SECURITY_POLICY":${nested(20000)}}}`,
        `{"repositoryUrl":"https://x.org/d3","timestamp":1763000000,"values":{"BUS_FACTOR":{"events":${nested(20000)}}}}`,
        line({ repositoryUrl: good, timestamp: 1763000000, values: { BUS_FACTOR: 2 } }),
      ].join('\n'),
    });
    const out = join(d, 'out');
    const r = runCli(['build', '--store', d, '--out', out, '--now', '1763600000']);
    expect(r.stderr).not.toMatch(/call stack/);
    expect(r.code).toBe(1);
    for (const at of [1, 2, 3])
      expect(r.stderr).toMatch(
        new RegExp(
          `deep\\.ndjson:${at}: values\\.[A-Z_]+.*got a deeply nested array; record skipped`,
        ),
      );
    expect(latestIndex(out, good).timestamps).toEqual([1763000000]);
  });

  it('empty YAML documents (a stray ---, only comments) hold no record; an explicit null is refused', async () => {
    const url = 'https://x.org/yaml-docs';
    const d = store({
      'docs.yaml': `---\nrepositoryUrl: ${url}\ntimestamp: 1763000000\nvalues: {BUS_FACTOR: 2}\n---\n# only a comment\n---\n`,
      'null.yaml': '--- null\n',
    });
    const { issues } = await buildSite({ store: d, out: join(d, 'out') });
    expect(errorsOf(issues).map((i) => i.where)).toEqual([`${join(d, 'null.yaml')}:1`]);
    expect(latestIndex(join(d, 'out'), url).timestamps).toEqual([1763000000]);
  });
});

describe('a store assembled from symbolic links', () => {
  it('follows links to files and directories, skips hidden entries, reads a ConfigMap mount once', async () => {
    const a = 'https://x.org/linked-file';
    const b = 'https://x.org/linked-dir';
    const c = 'https://x.org/configmap';
    const real = store({
      'a.ndjson': line({ repositoryUrl: a, timestamp: 1763000000, values: { BUS_FACTOR: 2 } }),
    });
    mkdirSync(join(real, 'sub'));
    writeFileSync(
      join(real, 'sub', 'b.ndjson'),
      line({ repositoryUrl: b, timestamp: 1763000000, values: { BUS_FACTOR: 3 } }),
    );
    const d = store({});
    symlinkSync(join(real, 'a.ndjson'), join(d, 'a.ndjson'));
    symlinkSync(join(real, 'sub'), join(d, 'sub'));
    symlinkSync(d, join(d, 'loop')); // a link back up is walked once
    // What Kubernetes mounts for a ConfigMap: ..<time>/ holds the files, ..data links to it,
    // and each visible name links through ..data.
    mkdirSync(join(d, '..2026_11_23_07_00_00.1'));
    writeFileSync(
      join(d, '..2026_11_23_07_00_00.1', 'c.ndjson'),
      line({ repositoryUrl: c, timestamp: 1763000000, values: { BUS_FACTOR: 4 } }),
    );
    symlinkSync('..2026_11_23_07_00_00.1', join(d, '..data'));
    symlinkSync('..data/c.ndjson', join(d, 'c.ndjson'));
    writeFileSync(join(d, '.hidden.ndjson'), 'not even JSON');
    const out = join(d, '..out');
    const { issues, summary } = await buildSite({ store: d, out });
    expect(issues).toEqual([]);
    expect(summary.repositories).toBe(3);
    for (const url of [a, b, c]) expect(latestIndex(out, url).timestamps).toEqual([1763000000]);
  });

  it('a link to nothing is named, with what to do, and skipped: the rest is built (exit 1)', () => {
    const d = store({
      'ok.ndjson': line({ repositoryUrl: 'https://x.org/ok', timestamp: 1763000000, values: {} }),
    });
    symlinkSync(join(d, 'gone.ndjson'), join(d, 'dangling.ndjson'));
    const r = runCli(['build', '--store', d, '--out', join(dir, 'dangling-out')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${join(d, 'dangling.ndjson')}: does not exist (a link to nothing, or removed while the build ran); fix or remove it; file skipped, the other files are built`,
    );
    expect(latestIndex(join(dir, 'dangling-out'), 'https://x.org/ok').timestamps).toEqual([
      1763000000,
    ]);
  });
});
