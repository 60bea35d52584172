// Hostile input that once hung a build, leaked credentials into a public tree or was refused
// with a message naming the wrong cause (issue 16): decision patterns, special files, YAML
// tags, repository URLs, config addresses, oversized lines and unreadable files.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, NODE_TSX, ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { MAX_TEXT_BYTES, parseStoreFile } from '../src/load/parse-file.ts';
import { loadHistories } from '../src/load/histories.ts';
import { DirectoryStore } from '../src/load/store.ts';
import { loadThresholdsA } from '../src/config/load.ts';
import { catalogA } from '../src/evaluate/shape-a.ts';
import type { LoadIssue, RepositoryHistory } from '../src/load/types.ts';

const dir = tempDir();
const line = (o: object) => JSON.stringify(o);

let n = 0;
function folder(files: Record<string, string>): string {
  const d = join(dir, `case${++n}`);
  mkdirSync(d, { recursive: true });
  for (const [f, body] of Object.entries(files)) {
    mkdirSync(join(d, f, '..'), { recursive: true });
    writeFileSync(join(d, f), body);
  }
  return d;
}

/** The real command line, killed after `seconds`: a hang shows as code null. */
function cli(args: string[], seconds = 60) {
  const r = spawnSync(NODE_TSX[0], [...NODE_TSX.slice(1), `${ROOT}src/cli.ts`, ...args], { cwd: ROOT, env: childEnv(), encoding: 'utf8', timeout: seconds * 1000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('decision patterns match in linear time (RE2)', () => {
  it('a catastrophic grantedRegex against a long URL ends the build in seconds, and patterns still grant', () => {
    const hostile = `https://github.com/${'a'.repeat(40)}!`;
    const d = folder({
      'badgepress.yaml': `shape: B\nstore: store\nthresholds: {B: ${join(ROOT, 'config/thresholds-b.yaml')}}\ndecisions: decisions\n`,
      'decisions/oss.yaml': "ruleId: MANUAL/Project is open source\ngrantedRegex: ['^https://github\\.com/(a+)+$', '(?i)^https://CODEBERG\\.org/']\n",
      'store/s.ndjson': [
        line({ repositoryUrl: hostile, timestamp: 1760000000, values: { COMMITS: 7 } }),
        line({ repositoryUrl: 'https://codeberg.org/acme/tool', timestamp: 1760000000, values: { COMMITS: 7 } }),
      ].join('\n'),
    });
    const out = join(d, 'out');
    // Backtracking needs about 2^40 steps here: hours. RE2 needs one pass over 60 characters.
    const r = cli(['build', '--config', join(d, 'badgepress.yaml'), '--out', out, '--now', '1760000000'], 30);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const explanation = (url: string) => JSON.parse(readFileSync(join(out, 'api/v1/repositories', encodeURIComponent(url), 'badges/OPEN-SOURCE'), 'utf8')) as unknown;
    expect(JSON.stringify(explanation('https://codeberg.org/acme/tool'))).toContain('the repository matches (?i)^https://CODEBERG\\\\.org/');
    expect(JSON.stringify(explanation(hostile))).not.toContain('Granted manually');
  });
});

/** Loads a directory store under the default Shape A thresholds: histories and every issue. */
async function load(store: string): Promise<{ histories: RepositoryHistory[]; issues: string[] }> {
  const catalog = catalogA(await loadThresholdsA(join(ROOT, 'config/thresholds-a.yaml')));
  const issues: string[] = [];
  const histories: RepositoryHistory[] = [];
  for await (const h of loadHistories(new DirectoryStore(store), { catalog, report: (i: LoadIssue) => issues.push(`${i.where}: ${i.message}`) })) histories.push(h);
  return { histories, issues };
}

describe('values a record cannot hold are bad records with file:line', () => {
  it('YAML !!omap, !!set, !!timestamp and !!binary values are refused, the other records kept', async () => {
    const d = folder({
      's.yaml': [
        '- repositoryUrl: https://github.com/acme/omap',
        '  timestamp: 10',
        '  values: !!omap [{BUS_FACTOR: 3}]',
        '- repositoryUrl: https://github.com/acme/set',
        '  timestamp: 10',
        '  values: {BUS_FACTOR: 3}',
        '  evidence: !!set {a, b}',
        '- repositoryUrl: https://github.com/acme/ok',
        '  timestamp: 10',
        '  values: {BUS_FACTOR: 3}',
        '- repositoryUrl: https://github.com/acme/date',
        '  timestamp: !!timestamp 2025-01-01',
        '  values: {BUS_FACTOR: 3}',
        '---',
        'repositoryUrl: https://github.com/acme/bytes',
        'timestamp: 10',
        'values: {BUS_FACTOR: !!binary aGVsbG8=}',
      ].join('\n'),
    });
    const { histories, issues } = await load(d);
    expect(histories.map((h) => h.repositoryUrl)).toEqual(['https://github.com/acme/ok']);
    const file = join(d, 's.yaml');
    expect(issues).toEqual([
      `${file}:1: values: a YAML !!omap (an ordered mapping) is not a value a record may hold; write a plain mapping, list, number or string; record skipped`,
      `${file}:4: evidence: a YAML !!set is not a value a record may hold; write a plain mapping, list, number or string; record skipped`,
      `${file}:11: timestamp: a YAML !!timestamp is not a value a record may hold; write a plain mapping, list, number or string; record skipped`,
      `${file}:15: values.BUS_FACTOR: a YAML !!binary is not a value a record may hold; write a plain mapping, list, number or string; record skipped`,
    ]);
  });

  it('1e400, .inf and .nan are said to be no finite number, never "null"', async () => {
    const d = folder({
      'a.ndjson': '{"repositoryUrl":"https://github.com/acme/a","timestamp":10,"values":{"BUS_FACTOR":1e400}}\n{"repositoryUrl":"https://github.com/acme/a","timestamp":11,"values":{"SECURITY_POLICY":-1e400}}',
      'b.yaml': 'repositoryUrl: https://github.com/acme/b\ntimestamp: 10\nvalues: {BUS_FACTOR: .inf}\n---\nrepositoryUrl: https://github.com/acme/b\ntimestamp: 11\nvalues: {BUS_FACTOR: .nan}\n',
    });
    const { issues } = await load(d);
    expect(issues).toEqual([
      `${join(d, 'a.ndjson')}:1: values.BUS_FACTOR: not a finite number: got Infinity (out of range, as 1e400 or .inf is); write a number ≥ 0 or null; record skipped`,
      `${join(d, 'a.ndjson')}:2: values.SECURITY_POLICY: expected true, false or null for a yes/no rule, got -Infinity (out of range, as 1e400 or .inf is); record skipped`,
      `${join(d, 'b.yaml')}:1: values.BUS_FACTOR: not a finite number: got Infinity (out of range, as 1e400 or .inf is); write a number ≥ 0 or null; record skipped`,
      `${join(d, 'b.yaml')}:5: values.BUS_FACTOR: not a finite number: got NaN (.nan); write a number ≥ 0 or null; record skipped`,
    ]);
  });
});

describe('text too long for a JavaScript string is named as such, with the limit', () => {
  // Zero-filled and never written: the pages stay unallocated, so 600 MB costs no memory
  // unless something decodes it (which the limit exists to prevent).
  const huge = () => Buffer.alloc(600_000_000);

  it('a 600 MB NDJSON line is too long, not "not valid UTF-8"; the lines around it are read', () => {
    const bytes = huge();
    bytes.write('{"a":1}\n', 0);
    bytes.write('\n{"b":2}\n', bytes.length - 9);
    expect(parseStoreFile('s.ndjson', bytes)).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 2, error: 'line is 572 MiB long, more than the 512 MiB a JavaScript string can hold; a record is one line of JSON' },
      { line: 3, value: { b: 2 } },
    ]);
  });

  it('a 600 MB .json or .yaml file is too large, and says how to split it', () => {
    for (const name of ['s.json', 's.yaml']) {
      expect(parseStoreFile(name, huge())).toEqual([
        { line: 1, error: 'file is 572 MiB, more than the 512 MiB a JavaScript string can hold; split it, or write it as NDJSON (one record per line)' },
      ]);
    }
    expect(MAX_TEXT_BYTES).toBe(2 ** 29 - 24);
  });
});
