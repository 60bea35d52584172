// Incremental builds that repair themselves: after each case, the incremental output equals a
// clean build of the same inputs into an empty directory (the build state set aside).
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildIncrementally } from './helpers/incremental.ts';
import { readTree } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { childEnv, CLI, ROOT, runCli, spawnChecked } from './helpers/cli.ts';

const dir = tempDir();
const NOW = 1_763_600_000;
const T = 1_760_000_000;
const url = (i: number) => `https://github.com/repair/r${i}`;
const scan = (i: number, t: number, v: number) =>
  `${JSON.stringify({ repositoryUrl: url(i), timestamp: t, values: { BUS_FACTOR: v, ISSUE_REACTION_TIME: v } })}\n`;

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

const published = (tree: Map<string, Buffer>) =>
  new Map([...tree].filter(([k]) => !k.startsWith('.badgepress/')));

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

describe('a build state that cannot be trusted is named, set aside, and the build is a full one', () => {
  const STATE = '.badgepress/state/1/0.json';
  async function built(): Promise<{ store: string; out: string; args: string[] }> {
    const store = place('store');
    const out = place('out');
    writeStore(store, 'a.ndjson', scan(0, T, 1) + scan(1, T, 3));
    writeStore(store, 'b.ndjson', scan(2, T, 2));
    const args = ['build', '--store', store, '--out', out, '--now', String(NOW)];
    expect((await runCommand(args)).code).toBe(0);
    return { store, out, args };
  }
  const clean = async (store: string, out: string) => {
    const c = place('clean');
    expect(
      (await runCommand(['build', '--store', store, '--out', c, '--now', String(NOW)])).code,
    ).toBe(0);
    expect(published(readTree(out))).toEqual(published(readTree(c)));
  };

  it('a summary line edited by hand (still JSON): named with its line, set aside, a full build, exit 0', async () => {
    const { store, out, args } = await built();
    const path = join(out, STATE);
    const lines = readFileSync(path, 'utf8').split('\n');
    const i = lines.findIndex((l) => l.startsWith('["r",'));
    // The summary line inside the repository's line, no longer JSON itself.
    lines[i] = lines[i]!.replace(/,"\{/, ',"{{');
    writeFileSync(path, lines.join('\n'));
    // A changed store file: the summaries of the others would be carried from the state.
    writeStore(store, 'b.ndjson', scan(2, T + 86400, 4), true);
    const r = await runCommand(args);
    // Found at the end line, whose digest no longer matches the lines before it.
    expect(r.stderr).toContain(
      `build state ${path}: line ${lines.length - 1} is the end of other lines than these: the state was edited`,
    );
    expect(r.stderr).toContain(`set aside as ${path}.untrusted; this build is a full one`);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('unchanged since the last build');
    expect(existsSync(`${path}.untrusted`)).toBe(true);
    await clean(store, out);
    // The next build trusts the state the full one wrote.
    expect((await runCommand(args)).stdout).toContain(
      '(3 unchanged since the last build, not read)',
    );
  });

  it('a FIFO at the state path: never opened for a read that blocks; set aside, a full build', {
    timeout: 20_000,
  }, async () => {
    const { store, out, args } = await built();
    const path = join(out, STATE);
    execFileSync('rm', [path]);
    execFileSync('mkfifo', [path]);
    const r = await runCommand(args);
    expect(r.stderr).toContain(`build state ${path}: is a FIFO (named pipe), not a regular file`);
    expect(r.code).toBe(0);
    expect(statSync(`${path}.untrusted`).isFIFO()).toBe(true);
    expect(statSync(path).isFile()).toBe(true);
    await clean(store, out);
  });

  // The real CLI under a 15 s bound: a read that blocks on a FIFO would hang the process, not fail.
  const bounded = (args: string[]) => {
    const r = spawnChecked(CLI[0], [...CLI.slice(1), ...args], {
      cwd: ROOT,
      env: childEnv(),
      timeout: 15_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it('a FIFO at a summary part, then a changed store: never opened; the build writes the part in its place; `site` names it', {
    timeout: 60_000,
  }, async () => {
    const { store, out, args } = await built();
    const part = join(out, '.badgepress/summaries/0-of-1.ndjson');
    const summaries = readFileSync(part);
    rmSync(part);
    execFileSync('mkfifo', [part]);
    // `site` reads the parts: it names the FIFO and says what to do, exit 2.
    const site = bounded(['site', '--shards', '1', '--out', out, '--now', String(NOW)]);
    expect(site.stderr).toContain(`${part}: is a FIFO (named pipe), not a regular file`);
    expect(site.stderr).toContain('run "badgepress build --shard 0/1" again');
    expect(site.code).toBe(2);
    writeStore(store, 'b.ndjson', scan(2, T + 86400, 4), true);
    const r = bounded(args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(statSync(part).isFile()).toBe(true);
    expect(readFileSync(part)).not.toEqual(summaries);
    await clean(store, out);
  });

  it('a FIFO in the lease chain: never opened; the build refuses, naming it, exit 4, and runs once it is removed', {
    timeout: 60_000,
  }, async () => {
    const { out, args } = await built();
    const chain = join(out, '.badgepress/lease');
    for (const name of readdirSync(chain)) rmSync(join(chain, name));
    execFileSync('mkfifo', [join(chain, '0.json')]);
    const r = bounded(args);
    expect(r.stderr).toContain(
      `lease ${join(chain, '0.json')}: is a FIFO (named pipe), not a regular file`,
    );
    expect(r.stderr).toContain(`remove ${join(chain, '0.json')} and run again`);
    expect(r.code).toBe(4);
    rmSync(join(chain, '0.json'));
    expect(bounded(args).code).toBe(0);
  });

  it('a state of 512 MB without a newline (the real CLI): no RangeError, a full build, exit 0', {
    timeout: 60_000,
  }, async () => {
    const store = place('store');
    const out = place('out');
    writeStore(store, 'a.ndjson', scan(0, T, 1));
    const args = ['build', '--store', store, '--out', out, '--now', String(NOW)];
    expect((await runCommand(args)).code).toBe(0);
    const path = join(out, STATE);
    // Sparse: 512 MB of NUL bytes that take no disk.
    writeFileSync(path, '');
    truncateSync(path, 512 * 2 ** 20);
    const r = runCli(args);
    expect(r.stderr).toContain(`build state ${path}: line 1 is longer than`);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 repository,');
    expect(statSync(path).size).toBeLessThan(1_000_000);
  });
});

describe('store files read just after they were written (racily clean)', () => {
  it('the next build knows them by their bytes: skipped if unchanged, recorded clean once no longer recent', async () => {
    const store = place('store');
    const out = place('out');
    // Written now: the three builds below must all read them within the 2 s in which a file
    // could be written again unseen, and on a loaded machine they can take more than the half
    // second a back-dated mtime would leave them.
    const now = Date.now() / 1000;
    for (const [name, i] of [
      ['a.ndjson', 0],
      ['b.ndjson', 1],
    ] as const) {
      writeFileSync(join(store, name), scan(i, T, i + 1));
      utimesSync(join(store, name), now, now);
    }
    await buildIncrementally({ flags: { store, out }, now: NOW });
    const state = () => readFileSync(join(out, '.badgepress/state/1/0.json'), 'utf8');
    expect(state()).toMatch(/"f","a\.ndjson","\d+:\d+:recent:[A-Za-z0-9+/=]+"/);
    // Still recent, same bytes: nothing redone.
    expect((await buildIncrementally({ flags: { store, out }, now: NOW })).summary.reused).toBe(2);
    // Rewritten with the same size and mtime (what the mark is for): the bytes tell.
    writeFileSync(join(store, 'b.ndjson'), scan(1, T, 7));
    utimesSync(join(store, 'b.ndjson'), now, now);
    const rewritten = await buildIncrementally({ flags: { store, out }, now: NOW });
    expect(rewritten.summary.reused).toBe(1);
    await expectClean(store, out);
    // No longer recent: verified by its bytes once more, then recorded by size and mtime alone.
    await new Promise((ok) => setTimeout(ok, Math.max(0, (now + 2.1 - Date.now() / 1000) * 1000)));
    expect((await buildIncrementally({ flags: { store, out }, now: NOW })).summary.reused).toBe(2);
    expect(state()).not.toContain(':recent');
    expect(state()).toMatch(/"f","a\.ndjson","\d+:\d+"/);
  });
});

describe('a build that did not finish', () => {
  it('its successor redoes what it may have published, even where a store file returns to the version the old state records', async () => {
    const store = place('store');
    const out = place('out');
    const v1 = { a: scan(0, T, 1), b: scan(1, T, 2) };
    writeStore(store, 'a.ndjson', v1.a);
    writeStore(store, 'b.ndjson', v1.b);
    const old = {
      a: statSync(join(store, 'a.ndjson')).mtime,
      b: statSync(join(store, 'b.ndjson')).mtime,
    };
    await buildIncrementally({ flags: { store, out }, now: NOW });
    writeStore(store, 'a.ndjson', scan(0, T, 6));
    writeStore(store, 'b.ndjson', scan(1, T, 7));
    // Stops (as a kill would) once r0's files are out and while r1's go out.
    const stopped = await buildIncrementally({
      flags: { store, out },
      now: NOW,
      onPut: (key) => {
        if (key.includes(encodeURIComponent(url(1)))) throw new Error('killed');
      },
    }).catch((e: unknown) => e);
    expect(stopped).toMatchObject({ message: 'killed' });
    expect(
      readFileSync(
        join(out, `api/v1/repositories/${encodeURIComponent(url(0))}/badges/MAINTENANCE`),
        'utf8',
      ),
    ).toContain('"value":6');
    // `cp -p` of the old files: the same bytes, sizes and mtimes the old state records.
    writeFileSync(join(store, 'a.ndjson'), v1.a);
    writeFileSync(join(store, 'b.ndjson'), v1.b);
    utimesSync(join(store, 'a.ndjson'), old.a, old.a);
    utimesSync(join(store, 'b.ndjson'), old.b, old.b);
    const next = await buildIncrementally({ flags: { store, out }, now: NOW });
    expect(next.summary.reused).toBe(0);
    await expectClean(store, out);
    expect(existsSync(join(out, '.badgepress/state/1/0.pending.json'))).toBe(false);
    // And the one after is incremental again.
    expect((await buildIncrementally({ flags: { store, out }, now: NOW })).summary.reused).toBe(2);
  });
});

/** A store folder, a copy of the Shape A thresholds, and a config (site.yaml) `config` rewrites with extra lines. */
function siteWithConfig(name: string): {
  root: string;
  store: string;
  thresholds: string;
  config: (extra: string) => void;
} {
  const root = place(name);
  const store = join(root, 'store');
  mkdirSync(store);
  const thresholds = readFileSync(join(ROOT, 'config/thresholds-a.yaml'), 'utf8');
  writeFileSync(join(root, 'thresholds.yaml'), thresholds);
  const config = (extra: string) =>
    writeFileSync(
      join(root, 'site.yaml'),
      `shape: A\nthresholds: { A: thresholds.yaml }\n${extra}`,
    );
  config('');
  return { root, store, thresholds, config };
}

describe('--prune removes site-wide files the build no longer produces', () => {
  it('a list page past the last, a removed badge’s and rule’s pages, openapi.json, then the whole human site', async () => {
    const { root, store, thresholds, config } = siteWithConfig('sitewide');
    // 101 repositories: a second list page.
    const lines = Array.from({ length: 101 }, (_, i) => scan(i, T, i % 9));
    writeStore(store, 'all.ndjson', lines.join(''));
    const out = join(root, 'out');
    const build = async (to: string, prune: boolean) => {
      const r = await runCommand([
        'build',
        '--config',
        join(root, 'site.yaml'),
        '--store',
        store,
        '--out',
        to,
        '--now',
        String(NOW),
        ...(prune ? ['--prune'] : []),
      ]);
      expect(r.code, r.stderr).toBe(0);
    };
    const sameAsClean = async () => {
      const clean = place('clean');
      await build(clean, false);
      expect([...published(readTree(out)).keys()]).toEqual([...published(readTree(clean)).keys()]);
      expect(published(readTree(out))).toEqual(published(readTree(clean)));
    };
    await build(out, false);
    expect(existsSync(join(out, 'repositories/page/2.html'))).toBe(true);
    expect(existsSync(join(out, 'api/v1/openapi.json'))).toBe(true);

    writeStore(store, 'all.ndjson', lines.slice(0, 99).join(''));
    await build(out, true);
    expect(existsSync(join(out, 'repositories/page/2.html'))).toBe(false);
    await sameAsClean();

    // The REUSED badge and the DEPENDENTS rule it alone uses, removed.
    writeFileSync(
      join(root, 'thresholds.yaml'),
      thresholds
        .replace(/  - id: DEPENDENTS[\s\S]*?(?=badges:)/, '')
        .replace(/  - id: REUSED[\s\S]*$/, ''),
    );
    await build(out, true);
    expect(existsSync(join(out, 'badges/REUSED'))).toBe(false);
    expect(existsSync(join(out, 'rules/DEPENDENTS'))).toBe(false);
    await sameAsClean();

    config('openapi: false\n');
    await build(out, true);
    expect(existsSync(join(out, 'api/v1/openapi.json'))).toBe(false);
    await sameAsClean();

    config('openapi: false\npages: false\n');
    // A file of the operator's beside the site stays.
    writeFileSync(join(out, 'CNAME'), 'badges.example.org\n');
    await build(out, true);
    expect(
      [...published(readTree(out)).keys()].filter((k) => !k.startsWith('api/v1/repositories/')),
    ).toEqual(['CNAME']);
    // No folder the pages lived in is left behind, empty.
    expect(readdirSync(out).sort()).toEqual(['.badgepress', 'CNAME', 'api']);
    rmSync(join(out, 'CNAME'));
    await sameAsClean();
  });
});

describe('plan counts what build then writes', () => {
  it('pages, site-wide pages, summaries and openapi.json included, whatever changed', async () => {
    const { root, store, thresholds, config } = siteWithConfig('plan');
    for (let i = 0; i < 4; i++) writeStore(store, `r${i}.ndjson`, scan(i, T, i + 2));
    const out = join(root, 'out');
    const flags = [
      '--config',
      join(root, 'site.yaml'),
      '--store',
      store,
      '--out',
      out,
      '--now',
      String(NOW),
      '--json',
    ];
    const compare = async (what: string) => {
      const plan = JSON.parse((await runCommand(['plan', ...flags])).stdout) as {
        added: number;
        changed: number;
        removed: number;
        unchanged: number;
      };
      const built = JSON.parse((await runCommand(['build', ...flags, '--prune'])).stdout) as {
        written: number;
        removed: number;
        unchanged: number;
      };
      expect(
        { written: plan.added + plan.changed, removed: plan.removed, unchanged: plan.unchanged },
        what,
      ).toEqual({
        written: built.written,
        removed: built.removed,
        unchanged: built.unchanged,
      });
      return built;
    };
    expect((await compare('first build')).written).toBeGreaterThan(0);
    expect((await compare('nothing changed')).written).toBe(0);
    writeStore(store, 'r1.ndjson', scan(1, T + 86400, 9), true);
    await compare('a new scan');
    rmSync(join(store, 'r2.ndjson'));
    await compare('a repository left the store');
    writeFileSync(
      join(root, 'thresholds.yaml'),
      thresholds
        .replace('{ min: 0, max: 0, status: fail }', '{ min: 0, max: 1, status: fail }')
        .replace('{ min: 1, max: 4, status: bronze }', '{ min: 2, max: 4, status: bronze }'),
    );
    expect((await compare('one badge’s bands')).written).toBeGreaterThan(0);
    config('openapi: false\n');
    expect((await compare('openapi: false')).removed).toBeGreaterThan(0);
    config('openapi: false\npages: false\n');
    expect((await compare('pages: false')).removed).toBeGreaterThan(0);
    await compare('nothing changed again');
  });
});
