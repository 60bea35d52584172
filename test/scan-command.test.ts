// `badgepress scan` end to end on repositories made here (read through mirror=PATH): the list's
// bad lines, the store it writes, a strict build of that store, idempotence, history, the lease.
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from './helpers/cli-in-process.ts';
import { spawnSync } from 'node:child_process';
import { childEnv, CLI, runCli, ROOT, spawnChecked } from './helpers/cli.ts';
import { git, utc, WorkRepo, type Person } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';

const BOB: Person = { name: 'Bob', email: 'bob@example.org' };
/** Why the forge rules are not asked on example.org, as docs/reference/scan.md words it. */
const NO_FORGE_API =
  'no forge API is known for example.org; to measure it, name its kind (github, gitlab or gitea) and apiUrl under hosts: in the config';

describe('badgepress scan', () => {
  const root = tempDir('badgepress-scan-cmd-');
  const config = join(root, 'badgepress.yaml');
  const repos = join(root, 'repos.txt');
  let alphaTip: string;

  beforeAll(() => {
    const alpha = WorkRepo.init(join(root, 'alpha'));
    alpha.commit({ at: utc(2026, 3, 10), files: { 'SECURITY.md': 'mail us' } });
    alpha.commit({ author: BOB, at: utc(2026, 5, 3) });
    alpha.tag('v1.0', { annotatedAt: utc(2026, 5, 4) });
    alpha.commit({ at: utc(2026, 7, 20) });
    alpha.commit({ author: BOB, at: utc(2026, 9, 2) });
    alphaTip = alpha.commit({ at: utc(2026, 10, 30) });
    alpha.tag('v1.1');
    alpha.bareClone(join(root, 'alpha.git'));
    const beta = WorkRepo.init(join(root, 'beta'));
    beta.commit({ at: utc(2026, 8, 1) });
    beta.bareClone(join(root, 'beta.git'));
    writeFileSync(
      config,
      [
        'shape: A',
        `store: store`,
        `out: dist`,
        `thresholds:\n  A: ${resolve(ROOT, 'examples/scan/thresholds-git.yaml')}`,
        'scan:\n  mirrors: mirrors\n  retries: 0',
        '',
      ].join('\n'),
    );
    writeFileSync(
      repos,
      [
        '# two local repositories',
        'https://example.org/acme/alpha mirror=alpha.git   # read from the bare clone',
        'https://example.org/acme/beta.git mirror=beta.git',
        'ftp://example.org/acme/gamma',
        'https://token123@example.org/acme/delta',
        'not-a-url',
        'https://example.org/acme/alpha mirror=alpha.git',
        '',
      ].join('\n'),
    );
  });

  const scanArgs = (store: string, ...more: string[]) => [
    'scan',
    '--config',
    config,
    '--repos',
    repos,
    '--store',
    join(root, store),
    ...more,
  ];

  it('names bad lines with FILE:line, scans the others, and a strict build of the store passes', async () => {
    const r = await runCommand(scanArgs('store', '--as-of', '2026-11-01'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${repos}:4: the scheme "ftp" is not supported`);
    expect(r.stderr).toContain(`${repos}:5: the URL holds credentials`);
    expect(r.stderr).toContain(`${repos}:6: "not-a-url" is not a URL`);
    expect(r.stderr).toContain(
      `${repos}:7: https://example.org/acme/alpha is listed already at ${repos}:2`,
    );
    expect(r.stderr + r.stdout).not.toContain('token123');
    expect(r.stdout).toMatch(
      /^badgepress scan: 2 repositories, 2 measured, 0 already stored, 2 records written, 0 failed, 4 list lines skipped/,
    );

    const E = utc(2026, 11, 1);
    const line = JSON.parse(
      readFileSync(join(root, 'store/example.org/acme/alpha.ndjson'), 'utf8'),
    );
    // By plain git: the commit times of the branch, all within 12 months of E; tags by their dates.
    const times = git(join(root, 'alpha.git'), ['log', '--no-merges', '--format=%ct', 'main'])
      .trim()
      .split('\n')
      .map(Number)
      .sort();
    expect(line).toMatchObject({
      kind: 'scan',
      repositoryUrl: 'https://example.org/acme/alpha',
      timestamp: E,
    });
    // example.org has no forge API badgepress knows: the forge rules are not asked, null with
    // why (though these thresholds judge none); RELEASES keeps git's tags, and says the forge's
    // were not read.
    expect(line.values).toEqual({
      BUS_FACTOR: 1,
      CI_PIPELINE: null,
      COMMITS: { events: times },
      ISSUE_REACTION_TIME: null,
      PACKAGES: null,
      RELEASES: { events: [utc(2026, 5, 4), utc(2026, 10, 30)] },
      SECURITY_POLICY: true,
    });
    expect(line.evidence.CI_PIPELINE).toBe(`not asked: ${NO_FORGE_API}`);
    expect(line.evidence.RELEASES).toBe(
      `2 tags dated in the 12 months to 2026-11-01 (newest v1.1, 2026-10-30); forge releases not read: not asked: ${NO_FORGE_API}`,
    );
    // Alice 3 of 5 commits: half by one person.
    expect(line.evidence.BUS_FACTOR).toContain(`1 contributor of 2 made at least half of 5`);
    expect(line.evidence.COMMITS).toContain(alphaTip.slice(0, 12));
    // The store keeps the URL as listed (with .git), one file per repository.
    expect(readFileSync(join(root, 'store/example.org/acme/beta.ndjson'), 'utf8')).toContain(
      '"repositoryUrl":"https://example.org/acme/beta.git"',
    );

    const build = await runCommand(['build', '--config', config, '--strict', '--now', String(E)]);
    expect(build.stderr).toBe('');
    expect(build.code).toBe(0);
    expect(readdirSync(join(root, 'dist/api/v1/repositories'))).toHaveLength(2);
    // The default thresholds judge neither COMMITS nor RELEASES: no warning about rules badgepress measures itself.
    const plain = await runCommand([
      'build',
      '--store',
      join(root, 'store'),
      '--out',
      join(root, 'dist-default'),
      '--now',
      String(E),
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toBe('');
  });

  it('a second scan at the same --as-of leaves the store byte-identical', async () => {
    const file = join(root, 'store/example.org/acme/alpha.ndjson');
    const before = readFileSync(file);
    const r = await runCommand(scanArgs('store', '--as-of', '1793491200', '--json'));
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({
      repositories: 2,
      measured: 0,
      upToDate: 2,
      records: 0,
      failed: 0,
      listProblems: 4,
      exitCode: 1,
    });
    expect(readFileSync(file)).toEqual(before);
  });

  it('backfilled monthly records equal single scans at each month start', async () => {
    const E = '2026-11-15T12:00:00Z';
    const h = await runCommand(
      scanArgs(
        'history',
        '--as-of',
        E,
        '--history',
        'monthly',
        '--since',
        '2026-01',
        '--rules',
        'COMMITS,RELEASES,BUS_FACTOR,SECURITY_POLICY',
      ),
    );
    // By hand: alpha's first commit is 2026-03-10, so April to November, and E: 8 + 1; beta's only
    // commit is at 2026-08-01 00:00, the month start itself: August to November, and E: 4 + 1.
    expect(h.stdout).toContain('14 records written');
    for (const t of [4, 5, 6, 7, 8, 9, 10, 11].map((m) => utc(2026, m, 1))) {
      await runCommand(
        scanArgs(
          'single',
          '--as-of',
          String(t),
          '--rules',
          'COMMITS,RELEASES,BUS_FACTOR,SECURITY_POLICY',
        ),
      );
    }
    await runCommand(
      scanArgs('single', '--as-of', E, '--rules', 'COMMITS,RELEASES,BUS_FACTOR,SECURITY_POLICY'),
    );
    for (const name of ['alpha', 'beta']) {
      const history = readFileSync(join(root, `history/example.org/acme/${name}.ndjson`), 'utf8');
      expect(history).toBe(
        readFileSync(join(root, `single/example.org/acme/${name}.ndjson`), 'utf8'),
      );
    }
    // One more history run adds nothing, and measures nothing: the months before each first
    // commit (January to March for alpha, to July for beta) never get a record, and the
    // repositories say so without being read again.
    const again = await runCommand(
      scanArgs('history', '--as-of', E, '--history', 'monthly', '--since', '2026-01', '--json'),
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ measured: 0, upToDate: 2, records: 0 });
  });

  it('--fetch never without a mirror fails that repository only; --rules names what nothing measures', async () => {
    const list = join(root, 'fetch-never.txt');
    writeFileSync(
      list,
      `https://example.org/acme/alpha mirror=${join(root, 'alpha.git')}\nhttps://example.org/acme/nowhere\n`,
    );
    const r = await runCommand([
      'scan',
      '--config',
      config,
      '--repos',
      list,
      '--store',
      join(root, 'never'),
      '--fetch',
      'never',
      '--as-of',
      '2026-11-01',
      '--rules',
      'COMMITS,DEPENDENTS',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${list}:2 https://example.org/acme/nowhere: no mirror at`);
    expect(r.stdout).toContain('1 measured');
    // DEPENDENTS asked for without an index: not asked (the config is why, not --fetch never),
    // null in the record with that cause.
    const why =
      'no dependents: source in the config; to measure it, add one naming ecosyste.ms or deps.dev';
    expect(r.stdout).toContain(`; not asked: DEPENDENTS (${why})\n`);
    const line = JSON.parse(
      readFileSync(join(root, 'never/example.org/acme/alpha.ndjson'), 'utf8'),
    );
    expect(line.values).toEqual({ COMMITS: expect.anything(), DEPENDENTS: null });
    expect(line.evidence.DEPENDENTS).toBe(`not asked: ${why}`);
  });

  it('--rules refuses an id no measurer knows (exit 2, nothing written); a narrower scan at E never blocks a full one silently', async () => {
    const typo = await runCommand(
      scanArgs('narrow', '--as-of', '2026-11-01', '--rules', 'commits'),
    );
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      '--rules "commits": no rule badgepress scan measures has this id; it measures BUS_FACTOR, CI_PIPELINE, COMMITS, DEPENDENTS, ISSUE_REACTION_TIME, PACKAGES, RELEASES, SECURITY_POLICY',
    );
    expect(readdirSync(root)).not.toContain('narrow');
    // A forge rule alone on a host without a forge API: not asked, held null with why, as on a
    // host with api: false; nothing is unmeasured.
    const forgeOnly = await runCommand(
      scanArgs('forge-only', '--as-of', '2026-11-01', '--rules', 'CI_PIPELINE', '--json'),
    );
    expect(JSON.parse(forgeOnly.stdout)).toMatchObject({
      measured: 2,
      records: 2,
      unmeasured: [],
      notAsked: [{ rules: ['CI_PIPELINE'], why: NO_FORGE_API }],
      failed: 0,
    });
    const held = JSON.parse(
      readFileSync(join(root, 'forge-only/example.org/acme/alpha.ndjson'), 'utf8'),
    );
    expect([held.values, held.evidence]).toEqual([
      { CI_PIPELINE: null },
      { CI_PIPELINE: `not asked: ${NO_FORGE_API}` },
    ]);
    // A narrower scan at E, then a full one at E: the stored record lacks three rules, and the
    // scan says so (exit 1) rather than "already stored"; the store keeps one record at E.
    await runCommand(scanArgs('narrow', '--as-of', '2026-11-01', '--rules', 'COMMITS'));
    const full = await runCommand(scanArgs('narrow', '--as-of', '2026-11-01', '--json'));
    expect(JSON.parse(full.stdout)).toMatchObject({
      measured: 0,
      upToDate: 0,
      incomplete: 2,
      records: 0,
      exitCode: 1,
    });
    expect(full.stderr).toContain(
      `${repos}:2 https://example.org/acme/alpha: the stored record at 2026-11-01T00:00:00Z lacks BUS_FACTOR, RELEASES, SECURITY_POLICY (a scan with a narrower --rules wrote it)`,
    );
    expect(full.stderr).toContain(
      'delete that record from example.org/acme/alpha.ndjson in the store and scan again',
    );
    expect(
      readFileSync(join(root, 'narrow/example.org/acme/alpha.ndjson'), 'utf8').trim().split('\n'),
    ).toHaveLength(1);
    // What was not asked is named with why: DEPENDENTS without a dependents: source, CI_PIPELINE
    // on example.org, which has no forge API; and what nothing measured (a rule the thresholds
    // judge that badgepress does not measure), below.
    const why = await runCommand(
      scanArgs('why', '--as-of', '2026-11-01', '--rules', 'COMMITS,CI_PIPELINE,DEPENDENTS'),
    );
    expect(why.stdout).toContain(
      `; not asked: DEPENDENTS (no dependents: source in the config; to measure it, add one naming ecosyste.ms or deps.dev); CI_PIPELINE (${NO_FORGE_API})\n`,
    );
    expect(why.stdout).not.toContain('not measured');
    // A forge rule no repository got as far as its forge for (this one's URL names a page below it).
    const below = join(root, 'below.txt');
    writeFileSync(
      below,
      `https://github.com/acme/alpha/tree/main mirror=${join(root, 'alpha.git')}\n`,
    );
    const unreached = await runCommand([
      ...scanArgs('below', '--as-of', '2026-11-01', '--rules', 'COMMITS,ISSUE_REACTION_TIME'),
      '--repos',
      below,
    ]);
    expect(unreached.stdout).toContain('1 failed, ');
    expect(unreached.stdout).toContain(
      "; not measured: ISSUE_REACTION_TIME (no scanned repository got as far as its host's forge API)\n",
    );
    const custom = join(root, 'custom.yaml');
    const thresholds = join(root, 'custom-thresholds.yaml');
    writeFileSync(
      thresholds,
      `${readFileSync(resolve(ROOT, 'examples/scan/thresholds-git.yaml'), 'utf8').replace('badges:\n', '  - id: CODE_REVIEW\n    name: Code review\n    description: Reviewed changes.\n    help: Review.\n    type: boolean\n    positiveStatus: gold\n    negativeStatus: fail\nbadges:\n')}  - id: REVIEWED\n    criteria: [CODE_REVIEW]\n`,
    );
    writeFileSync(
      custom,
      readFileSync(config, 'utf8').replace(/A: .*thresholds-git\.yaml/, `A: ${thresholds}`),
    );
    const judged = await runCommand([
      'scan',
      '--config',
      custom,
      '--repos',
      repos,
      '--store',
      join(root, 'why-custom'),
      '--as-of',
      '2026-11-01',
    ]);
    expect(judged.stdout).toContain(
      '; not measured: CODE_REVIEW (badgepress does not measure them; another scanner writes them)\n',
    );
    // The same narrow rules again are stored already.
    const again = await runCommand(
      scanArgs('narrow', '--as-of', '2026-11-01', '--rules', 'COMMITS', '--json'),
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ upToDate: 2, incomplete: 0 });
  });

  it('mirror= naming a working copy or nothing says so, and what to name instead', async () => {
    const list = join(root, 'bad-mirrors.txt');
    writeFileSync(
      list,
      'https://example.org/acme/copy mirror=alpha\nhttps://example.org/acme/none mirror=nowhere.git\n',
    );
    const r = await runCommand([
      'scan',
      '--config',
      config,
      '--repos',
      list,
      '--store',
      join(root, 'bad-mirrors'),
      '--as-of',
      '2026-11-01',
    ]);
    expect(r.code).toBe(1);
    const fix = 'name a bare repository (git clone --bare or --mirror) or drop mirror=';
    expect(r.stderr).toContain(
      `${list}:1 https://example.org/acme/copy: mirror=${join(root, 'alpha')} (${list}:1) is not a bare git repository: fatal: not a git repository: '${join(root, 'alpha')}' (a working copy: its repository is ${join(root, 'alpha/.git')}); ${fix}`,
    );
    expect(r.stderr).toContain(
      `${list}:2 https://example.org/acme/none: mirror=${join(root, 'nowhere.git')} (${list}:2) is not a bare git repository: no such directory; ${fix}`,
    );
    expect(r.stderr).not.toContain('for-each-ref');
  });

  it('--shard i/n splits the list by the rule build --shard uses; each shard holds its own lease', async () => {
    const { shardOf } = await import('../src/model/shard.ts');
    const files: string[] = [];
    for (const i of [0, 1]) {
      const r = await runCommand(
        scanArgs('sharded', '--as-of', '2026-11-01', '--shard', `${i}/2`, '--json'),
      );
      // The list's four bad lines are reported once, by shard 0.
      expect(JSON.parse(r.stdout)).toMatchObject({
        shard: `${i}/2`,
        failed: 0,
        listProblems: i === 0 ? 4 : 0,
      });
      expect(r.stderr.includes('line skipped')).toBe(i === 0);
      files.push(`${i}:${JSON.parse(r.stdout).measured}`);
    }
    const expected = [0, 1].map(
      (i) =>
        `${i}:${['https://example.org/acme/alpha', 'https://example.org/acme/beta.git'].filter((u) => shardOf(u, 2) === i).length}`,
    );
    expect(files).toEqual(expected);
    expect(readdirSync(join(root, 'sharded/example.org/acme')).sort()).toEqual([
      'alpha.ndjson',
      'beta.ndjson',
    ]);
  });

  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'on a terminal, draws a progress line and clears it before the summary',
    () => {
      const cmd = [...CLI, ...scanArgs('tty', '--as-of', '2026-11-01')]
        .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
        .join(' ');
      const r = spawnChecked('script', ['-qec', cmd, '/dev/null'], {
        cwd: ROOT,
        env: childEnv({ CI: undefined }),
        timeout: 60_000,
      });
      expect(r.stdout).toMatch(
        /\r\x1b\[Kscan: 2\/2 repositories\r\x1b\[K[^]*badgepress scan: 2 repositories, 2 measured/,
      );
    },
  );

  it('exits 4 when the store cannot be written, naming the file', async () => {
    const store = join(root, 'broken');
    mkdirSync(store);
    // A file where the host's folder belongs.
    writeFileSync(join(store, 'example.org'), 'not a folder');
    const r = await runCommand(scanArgs('broken', '--as-of', '2026-11-01', '--json'));
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`store ${store}/example.org/acme/`);
    expect(r.stderr).toContain('ENOTDIR');
  });

  it('keeps to the per-host cap without idling another host behind it', async () => {
    const { scan } = await import('../src/scan/scan.ts');
    const { parseTargets } = await import('../src/measure/targets.ts');
    const { DirectoryStoreWriter } = await import('../src/store/writer.ts');
    const { DEFAULT_SCAN } = await import('../src/config/defaults.ts');
    const list = ['a', 'a', 'a', 'a', 'b', 'b']
      .map((host, i) => `https://${host}.example/r/${i} mirror=${join(root, 'alpha.git')}`)
      .join('\n');
    const inner = new DirectoryStoreWriter(join(root, 'capped'));
    const running = new Map<string, number>();
    let most = { a: 0, b: 0, all: 0 };
    const order: string[] = [];
    const total = () => [...running.values()].reduce((x, y) => x + y, 0);
    // In flight: from reading what the store holds to appending the records.
    const writer = Object.assign(Object.create(inner) as typeof inner, {
      storedTimes: async (file: string, url: string) => {
        const host = new URL(url).host[0] as 'a' | 'b';
        order.push(url);
        running.set(host, (running.get(host) ?? 0) + 1);
        most = {
          ...most,
          [host]: Math.max(most[host], running.get(host)!),
          all: Math.max(most.all, total()),
        };
        return inner.storedTimes(file, url);
      },
      append: async (file: string, lines: readonly string[]) => {
        await inner.append(file, lines);
        const host = file[0] as 'a' | 'b';
        running.set(host, running.get(host)! - 1);
      },
    });
    const summary = await scan({
      targets: parseTargets(list, join(root, 'capped.txt')).targets,
      writer,
      asOf: utc(2026, 11, 1),
      fetch: 'never',
      rules: new Set(['COMMITS']),
      settings: { ...DEFAULT_SCAN, mirrors: join(root, 'mirrors'), concurrency: 2, perHost: 1 },
      windowMonths: {},
      report: (line) => expect.fail(line),
    });
    expect(summary).toMatchObject({ measured: 6, failed: 0 });
    // One a host at a time, two at once in all, and b's first repository started second, not
    // after every one of a's (which would have held the other global slot while waiting).
    expect(most).toEqual({ a: 1, b: 1, all: 2 });
    expect(order.slice(0, 2)).toEqual(['https://a.example/r/0', 'https://b.example/r/4']);
  });

  /** A live lease of another scan at `key` (a chain folder under .badgepress/, see io/file-lease.ts), lapsing in `seconds`. */
  const heldBy = (store: string, chain: string, seconds = 600) => {
    mkdirSync(join(store, '.badgepress', chain), { recursive: true });
    const now = Math.floor(Date.now() / 1000);
    writeFileSync(
      join(store, '.badgepress', chain, '0.json'),
      JSON.stringify({
        host: 'elsewhere',
        pid: 4242,
        token: 'other',
        acquiredAt: now,
        expiresAt: now + seconds,
      }),
    );
  };

  it('runs at once only with shards of the same n: the whole list and another n are refused (exit 5), nothing written', async () => {
    const store = join(root, 'shards-held');
    heldBy(store, 'scan-lease-shard-0-of-3');
    for (const shard of [[], ['--shard', '0/2'], ['--shard', '2/4']]) {
      const r = await runCommand(scanArgs('shards-held', '--as-of', '2026-11-01', ...shard));
      expect(r.code, shard.join(' ')).toBe(5);
      const ours = shard.length === 0 ? 'no --shard (the whole list)' : shard.join(' ');
      expect(r.stderr).toContain(
        `the store is being written by another badgepress scan with --shard 0/3 (host elsewhere, pid 4242, since `,
      );
      expect(r.stderr).toContain(
        `and this one has ${ours}: they would measure some repositories both and write them twice. Scans share a store only as shards of one n (--shard i/n, distinct i): wait for it to finish (or pass --wait SECONDS), or run this one as another shard of 3`,
      );
    }
    expect(readdirSync(store)).toEqual(['.badgepress']);
    // Another shard of 3 writes its repositories.
    const other = await runCommand(
      scanArgs('shards-held', '--as-of', '2026-11-01', '--shard', '1/3', '--json'),
    );
    expect(other.code, other.stderr).toBe(0);
    // A scan of the whole list keeps every shard out.
    const whole = join(root, 'whole-held');
    heldBy(whole, 'scan-lease');
    const r = await runCommand(scanArgs('whole-held', '--as-of', '2026-11-01', '--shard', '1/2'));
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(
      'another badgepress scan with no --shard (the whole list) (host elsewhere',
    );
    expect(r.stderr).not.toContain('another shard of');
    // The refused scans let their own leases go: a released generation is empty.
    for (const chain of readdirSync(join(store, '.badgepress')).filter(
      (n) => n !== 'scan-lease-shard-0-of-3',
    ))
      for (const g of readdirSync(join(store, '.badgepress', chain)))
        expect(readFileSync(join(store, '.badgepress', chain, g), 'utf8'), `${chain}/${g}`).toBe(
          '',
        );
  });

  it('--wait SECONDS keeps trying while another scan holds the store, as build --wait does', async () => {
    const store = join(root, 'waited');
    heldBy(store, 'scan-lease', 2);
    const r = await runCommand(
      scanArgs('waited', '--as-of', '2026-11-01', '--wait', '20', '--json'),
    );
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ measured: 2, records: 2 });
    heldBy(join(root, 'waited-overlap'), 'scan-lease-shard-0-of-2', 2);
    const s = await runCommand(
      scanArgs('waited-overlap', '--as-of', '2026-11-01', '--wait', '20', '--json'),
    );
    expect(s.code, s.stderr).toBe(1);
    expect(JSON.parse(s.stdout)).toMatchObject({ measured: 2, records: 2 });
    const bad = await runCommand(scanArgs('waited', '--wait', 'soon'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--wait');
  });

  it('exits 5 while another scan holds the store, and 2 on a bad flag (the real CLI)', async () => {
    const store = join(root, 'held');
    // A live lease of another scan: the newest generation of its chain (see io/file-lease.ts).
    mkdirSync(join(store, '.badgepress/scan-lease'), { recursive: true });
    const now = Math.floor(Date.now() / 1000);
    writeFileSync(
      join(store, '.badgepress/scan-lease/0.json'),
      JSON.stringify({
        host: hostname(),
        pid: process.pid,
        token: 'other',
        acquiredAt: now,
        expiresAt: now + 600,
      }),
    );
    const r = await runCommand(scanArgs('held', '--as-of', '2026-11-01'));
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('the store is being written by another badgepress scan');
    expect(readdirSync(store)).toEqual(['.badgepress']);
    const bad = runCli(['scan', '--repos', repos, '--store', store, '--as-of', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--as-of "yesterday": expected Unix seconds or ISO 8601');
  });
});
