// Hostile input that once hung a build, leaked credentials into a public tree or was refused
// with a message naming the wrong cause: decision patterns, special files, YAML
// tags, repository URLs, config addresses, oversized lines and unreadable files.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, NODE_TSX, ROOT, spawnChecked } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { MAX_TEXT_BYTES, parseStoreFile } from '../src/load/parse-file.ts';
import { loadHistories } from '../src/load/histories.ts';
import { DirectoryStore, type StoreEntry } from '../src/load/store.ts';
import { ConfigError } from '../src/errors.ts';
import { loadThresholdsA } from '../src/config/load.ts';
import { catalogA } from '../src/evaluate/shape-a.ts';
import type { LoadIssue, RepositoryHistory } from '../src/load/types.ts';
import { buildSite, readTree } from './helpers/site.ts';
import { loadSettings } from '../src/config/load.ts';

const dir = tempDir();
// Root reads files of mode 000: the permission cases then run the build as nobody.
const AS_ROOT = process.getuid?.() === 0;
chmodSync(dir, 0o755);
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
function cli(args: string[], seconds = 60, asNobody = false) {
  const user = asNobody && AS_ROOT ? { uid: 65534, gid: 65534 } : {};
  const r = spawnChecked(NODE_TSX[0], [...NODE_TSX.slice(1), `${ROOT}src/cli.ts`, ...args], {
    cwd: ROOT,
    env: childEnv(),
    timeout: seconds * 1000,
    ...user,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('decision patterns match in linear time (RE2)', () => {
  it('a catastrophic grantedRegex against a long URL ends the build in seconds, and patterns still grant', () => {
    const hostile = `https://github.com/${'a'.repeat(40)}!`;
    const d = folder({
      'badgepress.yaml': `shape: B\nstore: store\nthresholds: {B: ${join(ROOT, 'examples/shape-b/thresholds-b.yaml')}}\ndecisions: decisions\n`,
      'decisions/oss.yaml':
        "ruleId: MANUAL/Project is open source\ngrantedRegex: ['^https://github\\.com/(a+)+$', '^https://codeberg\\.org/']\n",
      'store/s.ndjson': [
        line({ repositoryUrl: hostile, timestamp: 1760000000, values: { COMMITS: 7 } }),
        line({
          repositoryUrl: 'https://codeberg.org/acme/tool',
          timestamp: 1760000000,
          values: { COMMITS: 7 },
        }),
      ].join('\n'),
    });
    const out = join(d, 'out');
    // Backtracking needs about 2^40 steps here: hours. RE2 needs one pass over 60 characters.
    const r = cli(
      ['build', '--config', join(d, 'badgepress.yaml'), '--out', out, '--now', '1760000000'],
      30,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const explanation = (url: string) =>
      JSON.parse(
        readFileSync(
          join(out, 'api/v1/repositories', encodeURIComponent(url), 'badges/OPEN-SOURCE'),
          'utf8',
        ),
      ) as unknown;
    expect(JSON.stringify(explanation('https://codeberg.org/acme/tool'))).toContain(
      'the repository matches ^https://codeberg\\\\.org/',
    );
    expect(JSON.stringify(explanation(hostile))).not.toContain('Granted manually');
  });
});

/** Loads a directory store under the default Shape A thresholds: histories and every issue. */
async function load(store: string): Promise<{ histories: RepositoryHistory[]; issues: string[] }> {
  const catalog = catalogA(await loadThresholdsA(join(ROOT, 'config/thresholds-a.yaml')));
  const issues: string[] = [];
  const histories: RepositoryHistory[] = [];
  for await (const h of loadHistories(new DirectoryStore(store), {
    catalog,
    report: (i: LoadIssue) => issues.push(`${i.where}: ${i.message}`),
  }))
    histories.push(h);
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
      'a.ndjson':
        '{"repositoryUrl":"https://github.com/acme/a","timestamp":10,"values":{"BUS_FACTOR":1e400}}\n{"repositoryUrl":"https://github.com/acme/a","timestamp":11,"values":{"SECURITY_POLICY":-1e400}}',
      'b.yaml':
        'repositoryUrl: https://github.com/acme/b\ntimestamp: 10\nvalues: {BUS_FACTOR: .inf}\n---\nrepositoryUrl: https://github.com/acme/b\ntimestamp: 11\nvalues: {BUS_FACTOR: .nan}\n',
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
      {
        line: 2,
        error:
          'line is 572 MiB long, more than the 512 MiB a JavaScript string can hold; a record is one line of JSON',
      },
      { line: 3, value: { b: 2 } },
    ]);
  });

  it('through a build: an NDJSON line over 64 MiB (a file large enough to be streamed) is too long, with the limit', async () => {
    // What a build meets: line files over 64 MiB are streamed, and a line longer than 64 MiB
    // is refused there, never held. Sparse: 65 MiB of zeros costs no disk blocks.
    const d = folder({});
    const path = join(d, 's.ndjson');
    writeFileSync(path, `${scan('https://github.com/acme/a')}\n`);
    truncateSync(path, 66 * 2 ** 20);
    appendFileSync(path, `\n${scan('https://github.com/acme/b')}\n`);
    const { histories, issues } = await load(d);
    expect(histories.map((h) => h.repositoryUrl)).toEqual([
      'https://github.com/acme/a',
      'https://github.com/acme/b',
    ]);
    expect(issues).toEqual([
      `${path}:2: line longer than 64 MiB; split the record or shorten its evidence; record skipped`,
    ]);
  });

  it('a 600 MB .json or .yaml file is too large, and says how to split it', () => {
    for (const name of ['s.json', 's.yaml']) {
      expect(parseStoreFile(name, huge())).toEqual([
        {
          line: 1,
          error:
            'file is 572 MiB, more than the 512 MiB a JavaScript string can hold; split it, or write it as NDJSON (one record per line)',
        },
      ]);
    }
    expect(MAX_TEXT_BYTES).toBe(2 ** 29 - 24);
  });
});

const mkfifo = (path: string) => expect(spawnSync('mkfifo', [path]).status).toBe(0);
const scan = (url: string, t = 10) =>
  line({ repositoryUrl: url, timestamp: t, values: { BUS_FACTOR: 3 } });

describe('only regular files are read: a FIFO or device never blocks a build', () => {
  it('a store file replaced by a FIFO after listing is a named bad file; the others are built', {
    timeout: 20_000,
  }, async () => {
    const d = folder({
      'a.ndjson': scan('https://github.com/acme/a'),
      'b.ndjson': scan('https://github.com/acme/b'),
      'c.yaml': 'x: 1',
    });
    // The race made certain: the listing sees regular files, the reads find a FIFO and a device.
    class SwappedAfterListing extends DirectoryStore {
      override async entries(): Promise<StoreEntry[]> {
        const names = await super.entries();
        rmSync(join(d, 'b.ndjson'));
        mkfifo(join(d, 'b.ndjson'));
        rmSync(join(d, 'c.yaml'));
        symlinkSync('/dev/zero', join(d, 'c.yaml'));
        return names;
      }
    }
    const catalog = catalogA(await loadThresholdsA(join(ROOT, 'config/thresholds-a.yaml')));
    const issues: string[] = [];
    const built: string[] = [];
    for await (const h of loadHistories(new SwappedAfterListing(d), {
      catalog,
      report: (i) => issues.push(`${i.where}: ${i.message}`),
    }))
      built.push(h.repositoryUrl);
    expect(built).toEqual(['https://github.com/acme/a']);
    expect(issues).toEqual([
      `${join(d, 'b.ndjson')}: is a FIFO (named pipe), not a regular file; only regular files are read; file skipped, the other files are built`,
      `${join(d, 'c.yaml')}: is a character device, not a regular file; only regular files are read; file skipped, the other files are built`,
    ]);
  });

  it('thresholds and decision files that are FIFOs are config errors naming the file (exit 2)', {
    timeout: 40_000,
  }, async () => {
    const d = folder({ 'store/a.ndjson': scan('https://github.com/acme/a') });
    mkfifo(join(d, 'fifo.yaml'));
    writeFileSync(join(d, 'site.yaml'), `store: store\nthresholds: {A: fifo.yaml}\n`);
    const r = cli(['build', '--config', join(d, 'site.yaml'), '--out', join(d, 'out')], 20);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${join(d, 'fifo.yaml')}: is a FIFO (named pipe), not a regular file; only regular files are read`,
    );
    mkdirSync(join(d, 'decisions'));
    mkfifo(join(d, 'decisions', 'din.yaml'));
    const { loadDecisions } = await import('../src/config/decisions.ts');
    const { loadThresholdsB } = await import('../src/config/thresholds-b.ts');
    const t = await loadThresholdsB(join(ROOT, 'examples/shape-b/thresholds-b.yaml'));
    const err = (await loadDecisions(join(d, 'decisions'), t).catch(
      (e: unknown) => e,
    )) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.problems).toEqual([
      `${join(d, 'decisions', 'din.yaml')}: is a FIFO (named pipe), not a regular file; only regular files are read`,
    ]);
  });
});

describe('a store file that cannot be read is named with its real cause and skipped', () => {
  it('a file over 2 GiB, a file of mode 000 and a link to nothing: each named, the rest built (exit 1)', () => {
    const d = folder({
      'store/ok.ndjson': scan('https://github.com/acme/ok'),
      'store/locked.ndjson': scan('https://github.com/acme/locked'),
    });
    chmodSync(d, 0o755);
    const store = join(d, 'store');
    chmodSync(store, 0o755);
    chmodSync(join(store, 'ok.ndjson'), 0o644);
    chmodSync(join(store, 'locked.ndjson'), 0o000);
    // Sparse: 2 GiB + 1 byte of file, no disk blocks. A whole-file kind (.json): line files of
    // any size are streamed in bounded memory instead (test/store-spill.test.ts).
    writeFileSync(join(store, 'big.json'), '');
    truncateSync(join(store, 'big.json'), 2 ** 31 + 1);
    chmodSync(join(store, 'big.json'), 0o644);
    symlinkSync(join(store, 'gone.ndjson'), join(store, 'dangling.ndjson'));
    const out = join(d, 'out');
    mkdirSync(out, { mode: 0o777 });
    chmodSync(out, 0o777);
    const r = cli(['build', '--store', store, '--out', out], 60, true);
    expect(r.stderr).toContain(
      `${join(store, 'big.json')}: file too large to parse as a whole (2048 MiB; the limit is 512 MiB); write it as .ndjson, one record per line, which is read in bounded memory; file skipped`,
    );
    expect(r.stderr).toContain(
      `${join(store, 'locked.ndjson')}: cannot be read: permission denied (EACCES); let the build's user read it (chmod a+r); file skipped, the other files are built`,
    );
    expect(r.stderr).toContain(
      `${join(store, 'dangling.ndjson')}: does not exist (a link to nothing, or removed while the build ran); fix or remove it; file skipped, the other files are built`,
    );
    expect(r.stderr).not.toMatch(/a link to nothing\?/);
    expect(r.code).toBe(1);
    expect(
      JSON.parse(
        readFileSync(
          join(
            out,
            'api/v1/repositories',
            encodeURIComponent('https://github.com/acme/ok'),
            'index.json',
          ),
          'utf8',
        ),
      ),
    ).toMatchObject({
      timestamps: [10],
    });
  });

  it('an unreadable subdirectory is named itself, not the store root (exit 4)', () => {
    const d = folder({
      'store/ok.ndjson': scan('https://github.com/acme/ok'),
      'store/team/x.ndjson': scan('https://github.com/acme/x'),
    });
    chmodSync(d, 0o755);
    chmodSync(join(d, 'store'), 0o755);
    chmodSync(join(d, 'store', 'team'), 0o000);
    const out = join(d, 'out');
    mkdirSync(out, { mode: 0o777 });
    chmodSync(out, 0o777);
    const r = cli(['build', '--store', join(d, 'store'), '--out', out], 60, true);
    chmodSync(join(d, 'store', 'team'), 0o755);
    expect(r.stderr).toContain(
      `store ${join(d, 'store', 'team')}: cannot read the directory (EACCES); let the build's user read it (chmod a+rx) or move it out of the store`,
    );
    expect(r.code).toBe(4);
  });
});

describe('what is published: repository URLs', () => {
  const urls = {
    creds: 'https://alice:s3cret-token@github.com/acme/private',
    token: 'https://ghp_SECRETTOKEN@github.com/acme/other',
    js: 'javascript://github.com/%0aalert(1)',
    data: 'data://text/html,x',
    v6: 'https://[::1/x',
    git: 'git://git.example.org/acme/tool',
  };
  const store = () =>
    folder({
      'a.ndjson': [
        ...Object.values(urls).map((u) => scan(u)),
        scan('https://bücher.example/acme/books', 10),
        scan('https://BÜCHER.example/acme/books', 20),
        scan('https://xn--bcher-kva.example/acme/books', 30),
      ].join('\n'),
    });

  it('credentials, other schemes and malformed hosts are bad records; one Unicode host is one repository', async () => {
    const d = store();
    const out = join(d, 'out');
    const { issues, summary } = await buildSite({ store: d, out });
    const file = join(d, 'a.ndjson');
    expect(issues.map((i) => `${i.where}: ${i.message}`)).toEqual([
      `${file}:1: repositoryUrl holds credentials (user:password@ before the host); remove them: the URL is published, and credentials must never be; record skipped`,
      `${file}:2: repositoryUrl holds credentials (user:password@ before the host); remove them: the URL is published, and credentials must never be; record skipped`,
      `${file}:3: repositoryUrl uses the scheme "javascript", which this site does not accept; accepted: http, https (repositoryUrlSchemes: in the site config); record skipped`,
      `${file}:4: repositoryUrl uses the scheme "data", which this site does not accept; accepted: http, https (repositoryUrlSchemes: in the site config); record skipped`,
      `${file}:5: repositoryUrl has a malformed host "[::1"; write a host name, or an IPv6 address in brackets, and an optional :port; record skipped`,
      `${file}:6: repositoryUrl uses the scheme "git", which this site does not accept; accepted: http, https (repositoryUrlSchemes: in the site config); record skipped`,
    ]);
    expect(summary.repositories).toBe(1);
    const tree = readTree(out);
    const books = encodeURIComponent('https://xn--bcher-kva.example/acme/books');
    expect(
      JSON.parse(tree.get(`api/v1/repositories/${books}/index.json`)!.toString()),
    ).toMatchObject({
      repositoryUrl: 'https://xn--bcher-kva.example/acme/books',
      timestamps: [10, 20, 30],
    });
    for (const [key, body] of tree) {
      expect(`${key} ${body.toString('latin1')}`).not.toMatch(
        /s3cret|SECRETTOKEN|javascript|alert|bücher|b%C3%BCcher/i,
      );
    }
  });

  it('repositoryUrlSchemes: widens the schemes a site accepts (git:// built), and is checked', async () => {
    const d = store();
    writeFileSync(join(d, 'site.yaml'), 'repositoryUrlSchemes: [https, git]\n');
    const { issues, summary } = await buildSite({
      store: d,
      out: join(d, 'out'),
      config: join(d, 'site.yaml'),
    });
    expect(issues.filter((i) => i.message.includes('scheme')).map((i) => i.where)).toEqual([
      `${join(d, 'a.ndjson')}:3`,
      `${join(d, 'a.ndjson')}:4`,
    ]);
    expect(summary.repositories).toBe(2);
    writeFileSync(join(d, 'bad.yaml'), 'repositoryUrlSchemes: [HTTPS]\n');
    await expect(loadSettings(join(d, 'bad.yaml'))).rejects.toThrow(
      /bad\.yaml:1 repositoryUrlSchemes\[0\]: must match pattern/,
    );
  });
});

describe('what is published: addresses from the config', () => {
  it.each([
    [
      "baseUrl: 'https://\"><script>alert(1)</script>'",
      'baseUrl',
      'must be an absolute http(s) URL',
    ],
    ['baseUrl: https://badges.example.org/"><script>', 'baseUrl', 'holds characters a URI may not'],
    ['baseUrl: https://user:pw@badges.example.org', 'baseUrl', 'must not hold credentials'],
    [
      "tool:\n  informationUri: 'https://x.org/\"><script>'",
      'tool.informationUri',
      'holds characters a URI may not',
    ],
    ['tool:\n  informationUri: https://x.org/a b', 'tool.informationUri', 'must match pattern'],
    [
      'tool:\n  informationUri: https://%zz/',
      'tool.informationUri',
      'must be an absolute http(s) URL',
    ],
  ])('%s is a config error with file:line', async (yaml, path, message) => {
    const d = folder({ 'site.yaml': `store: .\n${yaml}\n` });
    const err = (await loadSettings(join(d, 'site.yaml')).catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${join(d, 'site.yaml')}:\\d+ ${path.replace('.', '\\.')}: .*${message.replace(/[()]/g, '\\$&')}`,
        ),
      ),
    ]);
  });

  it('--base-url is held to the same rule, and good addresses pass', async () => {
    const d = folder({
      'site.yaml':
        'store: .\nbaseUrl: https://badges.example.org/sub/\ntool:\n  informationUri: https://example.org/tool?x=1#y\n',
    });
    await expect(
      loadSettings(join(d, 'site.yaml'), { baseUrl: 'https://x.org/"><script>' }),
    ).rejects.toThrow(
      /--base-url "https:\/\/x\.org\/\\"><script>": holds characters a URI may not/,
    );
    const settings = await loadSettings(join(d, 'site.yaml'));
    expect(settings.baseUrl).toBe('https://badges.example.org/sub');
    expect(settings.tool.informationUri).toBe('https://example.org/tool?x=1#y');
  });
});
