import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSite, readTree } from './helpers/site.ts';
import { runCli, ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { parseStoreFile } from '../src/load/parse-file.ts';
import { expectEverySarifValid } from './helpers/sarif.ts';

const dir = tempDir();
const GOOD = 'https://github.com/acme/good';
const rec = (o: object) => JSON.stringify({ repositoryUrl: GOOD, values: { BUS_FACTOR: 3 }, ...o });

function store(name: string, files: Record<string, string | Buffer>): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  for (const [f, body] of Object.entries(files)) writeFileSync(join(d, f), body);
  return d;
}

describe('bad records are reported with file:line and skipped; the rest is built', () => {
  const cases: Array<[string, string, RegExp]> = [
    [
      'bad URL',
      JSON.stringify({ repositoryUrl: 'github.com/acme/x', timestamp: 1, values: {} }),
      /not of the form <scheme>:\/\/<host>\/<path>/,
    ],
    [
      'URL without a path',
      JSON.stringify({ repositoryUrl: 'https://github.com/', timestamp: 1, values: {} }),
      /not of the form/,
    ],
    ['non-integer timestamp', rec({ timestamp: 1.5 }), /timestamp must be an integer/],
    ['string timestamp', rec({ timestamp: '1763000000' }), /timestamp must be an integer/],
    ['negative timestamp', rec({ timestamp: -1 }), /timestamp: must not be negative/],
    [
      'missing values',
      JSON.stringify({ repositoryUrl: GOOD, timestamp: 5 }),
      /missing required key "values"/,
    ],
    [
      'wrong value type (string)',
      rec({ timestamp: 6, values: { BUS_FACTOR: 'three' } }),
      /values\.BUS_FACTOR/,
    ],
    [
      'wrong value type (boolean for numeric)',
      rec({ timestamp: 7, values: { BUS_FACTOR: true } }),
      /values\.BUS_FACTOR: expected a number/,
    ],
    [
      'wrong value type (number for boolean)',
      rec({ timestamp: 8, values: { SECURITY_POLICY: 1 } }),
      /values\.SECURITY_POLICY: expected true, false or null/,
    ],
    ['negative value', rec({ timestamp: 9, values: { BUS_FACTOR: -2 } }), /values\.BUS_FACTOR/],
    ['unknown key', rec({ timestamp: 10, colour: 'red' }), /unknown key "colour"/],
    ['not an object', '[1,2]', /must be a JSON object/],
    ['broken JSON line', '{"repositoryUrl": "https://x.org/a/b", ', /broken JSON/],
    [
      'URL longer than a path segment',
      JSON.stringify({
        repositoryUrl: `https://github.com/${'a/'.repeat(100)}x`,
        timestamp: 1,
        values: {},
      }),
      /encodes to \d+ bytes, more than the 255/,
    ],
  ];

  it.each(cases)('%s', async (_name, line, reason) => {
    const d = store(`case-${_name.replace(/\W+/g, '-')}`, {
      'repo.ndjson':
        [rec({ timestamp: 1763000000 }), line, rec({ timestamp: 1763100000 })].join('\n') + '\n',
    });
    const out = join(d, 'out');
    const { summary, issues } = await buildSite({ store: d, out });
    const errors = issues.filter((i) => i.severity === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.where).toBe(`${join(d, 'repo.ndjson')}:2`);
    expect(errors[0]!.message).toMatch(reason);
    expect(errors[0]!.message).toMatch(/record skipped$/);
    expect(summary.skipped).toBe(1);
    expect(summary.scans).toBe(2);
    expect(
      JSON.parse(
        readTree(out)
          .get(`api/v1/repositories/${encodeURIComponent(GOOD)}/index.json`)!
          .toString(),
      ).timestamps,
    ).toEqual([1763000000, 1763100000]);
    expect(expectEverySarifValid(out)).toBe(3);
  });

  it('a duplicate repository and time keeps the first and names it', async () => {
    const d = store('dup', {
      'a.ndjson': `${rec({ timestamp: 5 })}\n`,
      'b.ndjson': `\n${rec({ timestamp: 5, values: { BUS_FACTOR: 9 } })}\n`,
    });
    const { issues, summary } = await buildSite({ store: d, out: join(d, 'out') });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.where).toBe(`${join(d, 'b.ndjson')}:2`);
    expect(issues[0]!.message).toContain(`first at ${join(d, 'a.ndjson')}:1`);
    expect(summary.scans).toBe(1);
  });

  it('a record with failed rules is completed by one at its time that fails fewer, in any store order', async () => {
    const failed = rec({
      timestamp: 5,
      values: { BUS_FACTOR: null },
      evidence: { BUS_FACTOR: 'GitHub API: 503' },
      failed: ['BUS_FACTOR'],
    });
    const completing = rec({ timestamp: 5, values: { BUS_FACTOR: 4 } });
    for (const [name, files] of [
      ['complete-after', { 'a.ndjson': `${failed}\n${completing}\n` }],
      ['complete-before', { 'a.ndjson': `${completing}\n`, 'b.ndjson': `${failed}\n` }],
    ] as const) {
      const d = store(name, files);
      const out = join(d, 'out');
      const { issues, summary } = await buildSite({ store: d, out });
      expect(issues).toEqual([]);
      expect(summary.scans).toBe(1);
      const sarif = JSON.parse(
        readTree(out)
          .get(`api/v1/repositories/${encodeURIComponent(GOOD)}/sarif`)!
          .toString(),
      );
      expect(
        sarif.runs[0].results.find((r: { ruleId: string }) => r.ruleId === 'BUS_FACTOR').properties
          .value,
      ).toBe(4);
    }
    // Two records failing the same rules: neither completes the other.
    const d = store('failed-twice', { 'a.ndjson': `${failed}\n${failed}\n` });
    const { issues } = await buildSite({ store: d, out: join(d, 'out') });
    expect(issues.map((i) => i.message)).toEqual([expect.stringContaining('duplicate scan')]);
  });

  it('a repository spread over several files is one history', async () => {
    const other = 'https://github.com/acme/other';
    const d = store('split', {
      'a.ndjson': `${rec({ timestamp: 30 })}\n${JSON.stringify({ repositoryUrl: other, timestamp: 1, values: {} })}\n`,
      'b.yaml': `- repositoryUrl: ${GOOD}\n  timestamp: 10\n  values: {BUS_FACTOR: 1}\n`,
      'c.json': JSON.stringify([
        { repositoryUrl: 'HTTPS://GITHUB.COM/acme/good', timestamp: 20, values: {} },
      ]),
    });
    const out = join(d, 'out');
    const { summary, issues } = await buildSite({ store: d, out });
    expect(issues).toEqual([]);
    expect(summary.repositories).toBe(2);
    const index = JSON.parse(
      readTree(out)
        .get(`api/v1/repositories/${encodeURIComponent(GOOD)}/index.json`)!
        .toString(),
    );
    expect(index.timestamps).toEqual([10, 20, 30]);
  });

  it('a line that is not UTF-8 is skipped, the file’s other lines are kept', async () => {
    const bad = Buffer.concat([
      Buffer.from(rec({ timestamp: 2, evidence: { BUS_FACTOR: 'caf' } }).slice(0, -2)),
      Buffer.from([0xe9]),
      Buffer.from('"}}\n'),
    ]);
    const d = store('latin1', {
      'r.ndjson': Buffer.concat([
        Buffer.from(`${rec({ timestamp: 1 })}\n`),
        bad,
        Buffer.from(`${rec({ timestamp: 3 })}\n`),
      ]),
    });
    const { issues, summary } = await buildSite({ store: d, out: join(d, 'out') });
    expect(issues.map((i) => [i.where.split('/').pop(), /UTF-8/.test(i.message)])).toEqual([
      ['r.ndjson:2', true],
    ]);
    expect(summary.scans).toBe(2);
  });

  it('a rule the thresholds do not define is ignored with one warning per rule id', async () => {
    const d = store('unknown-rule', {
      'r.ndjson': [
        rec({ timestamp: 1, values: { STARS: 5 } }),
        rec({ timestamp: 2, values: { STARS: 6, FORKS: 1 } }),
      ].join('\n'),
    });
    const { issues, summary } = await buildSite({ store: d, out: join(d, 'out') });
    expect(issues.map((i) => [i.severity, i.message.match(/"(\w+)"/)![1]])).toEqual([
      ['warning', 'STARS'],
      ['warning', 'FORKS'],
    ]);
    expect(summary.skipped).toBe(0);
    expect(summary.scans).toBe(2);
  });

  it('.json arrays and .yaml lists report the line of the element', () => {
    const json = parseStoreFile(
      'x.json',
      Buffer.from('[\n  {"a": 1},\n\n  {"b": "x,]"}, {"c": [1, {"d": 2}]}\n]'),
    );
    expect(json.map((i) => i.line)).toEqual([2, 4, 4]);
    const yaml = parseStoreFile('x.yaml', Buffer.from('# c\n- a: 1\n- b: 2\n  c: 3\n---\nd: 4\n'));
    expect(yaml.map((i) => i.line)).toEqual([2, 3, 6]);
    const broken = parseStoreFile('x.json', Buffer.from('[\n{"a": 1},\n{"b" 2}\n]'));
    expect(broken).toEqual([{ line: 3, error: expect.stringMatching(/broken JSON/) }]);
  });

  it('the CLI exits 1 with skipped records, 2 with --strict and writes nothing then', () => {
    const out = join(dir, 'cli-out');
    const r = runCli([
      'build',
      '--store',
      join(ROOT, 'examples/bad-store'),
      '--out',
      out,
      '--now',
      '1763600000',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/examples\/bad-store\/mixed\.ndjson:2: repositoryUrl "not a url"/);
    expect(r.stdout).toMatch(
      /^badgepress: 4 repositories, 5 scans, \d+ files written, 0 unchanged, 15 records skipped, [\d.]+ s → /,
    );
    // One of each kind docs/reference/store-records.md names, each with file:line.
    for (const reason of [
      /mixed\.ndjson:3: timestamp must be an integer/,
      /mixed\.ndjson:4: timestamp: must not be negative/,
      /mixed\.ndjson:5: values\.SECURITY_POLICY: expected true, false or null/,
      /mixed\.ndjson:6: duplicate scan/,
      /mixed\.ndjson:7: broken JSON/,
      /latin1\.ndjson:1: line is not valid UTF-8/,
      /cp1252\.json:3: file is not valid UTF-8/,
      /broken\.yaml:8: broken YAML: /,
      /long-url\.ndjson:1: repositoryUrl encodes to 306 bytes, more than the 255/,
      /keys\.ndjson:2: record: missing required key "values"/,
      /keys\.ndjson:3: record: unknown key "colour"/,
      /keys\.ndjson:4: timestamp must be whole Unix seconds from 0 to 253402300799/,
      /keys\.ndjson:5: values\.BUS_FACTOR: expected a number ≥ 0/,
      /keys\.ndjson:6: a record must be a JSON object/,
    ]) {
      expect(r.stderr).toMatch(reason);
    }
    expect(r.stderr).toMatch(/warning: \S+mixed\.ndjson:8: rule "STARS" is not defined/);
    expectEverySarifValid(out);
    const strictOut = join(dir, 'strict-out');
    const s = runCli([
      'build',
      '--strict',
      '--store',
      join(ROOT, 'examples/bad-store'),
      '--out',
      strictOut,
    ]);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/15 bad records and --strict: nothing written/);
    expect(() => readTree(strictOut)).toThrow();
  });
});
