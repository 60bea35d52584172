// The four git rules on repositories made here with real git and fixed dates. Expected values
// come from plain git commands or are worked out by hand in the comments.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { measureRepository } from '../src/measure/git/measure.ts';
import { botTest } from '../src/measure/bots.ts';
import type { GitRuleOptions } from '../src/measure/git/rules.ts';
import { GIT_RULE_IDS } from '../src/model/measured-rules.ts';
import { CatFile, rootChanges, storedObjects } from '../src/measure/git/cat-file.ts';
import { readSnapshots } from '../src/measure/git/snapshot.ts';
import { git, utc, WorkRepo, type Person } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';

const settings = { timeoutMs: 30_000 };
const options = (o: Partial<GitRuleOptions> = {}): GitRuleOptions => ({
  rules: new Set(GIT_RULE_IDS),
  horizonMonths: 12,
  busFactorMonths: 12,
  isBot: botTest(),
  ...o,
});

const BOB_OLD: Person = { name: 'Bob', email: 'bob@old.example' };
const BOB: Person = { name: 'Bob', email: 'bob@new.example' };
const CAROL: Person = { name: 'Carol', email: 'carol@example.org' };
const DAVE: Person = { name: 'Dave', email: 'dave@example.org' };
// "Talbot" holds "bot": a person all the same.
const TALBOT: Person = { name: 'Sam Talbot', email: 'sam@talbot.example' };
const DEPENDABOT: Person = {
  name: 'dependabot[bot]',
  email: '49699333+dependabot[bot]@users.noreply.github.com',
};
const ACTIONS: Person = { name: 'GitHub Action', email: 'action@github.com' };
// A bot only through the mailmap.
const CI: Person = { name: 'ci', email: 'ci@example.org' };

const E = utc(2026, 11, 25);

describe('git rules on one history', () => {
  const root = tempDir('badgepress-scan-rules-');
  let work: WorkRepo;
  let bare: string;
  const c: Record<string, string> = {};

  beforeAll(() => {
    work = WorkRepo.init(join(root, 'work'));
    c.dave = work.commit({ author: DAVE, at: utc(2025, 1, 10) });
    c.mailmap = work.commit({
      at: utc(2026, 1, 5),
      files: {
        '.mailmap': 'Bob <bob@new.example> <bob@old.example>\nci-runner[bot] <ci@example.org>\n',
        'docs/SECURITY.md': 'mail us\n',
      },
    });
    c.bob1 = work.commit({ author: BOB_OLD, at: utc(2026, 2, 1) });
    // Clock skew: dated 2019 between 2026 commits. `git log --since` stops at it.
    c.skewed = work.commit({ author: TALBOT, at: utc(2019, 6, 1) });
    c.bob2 = work.commit({ author: BOB_OLD, at: utc(2026, 3, 1) });
    c.bob3 = work.commit({ author: BOB, at: utc(2026, 4, 1) });
    work.commit({ author: DEPENDABOT, at: utc(2026, 4, 15) });
    work.commit({ author: ACTIONS, at: utc(2026, 5, 1) });
    work.commit({ author: CI, at: utc(2026, 5, 2) });
    work.git(['checkout', '-q', '-b', 'feature']);
    c.carol = work.commit({ author: CAROL, at: utc(2026, 5, 10) });
    work.git(['checkout', '-q', 'main']);
    c.bob4 = work.commit({ author: BOB, at: utc(2026, 5, 12) });
    c.merge = work.merge('feature', utc(2026, 5, 20));
    c.alice2 = work.commit({ at: utc(2026, 6, 1) });
    c.talbot = work.commit({ author: TALBOT, at: utc(2026, 7, 1) });
    work.commit({ author: DEPENDABOT, at: utc(2026, 8, 1) });
    // Committed "in 2027" by a wrong clock, before E on the branch: not an event of E.
    c.future = work.commit({ at: utc(2026, 8, 20), committed: utc(2027, 1, 1) });
    c.T = work.commit({ author: BOB, at: utc(2026, 9, 1) });
    // After E: the tip as of E is its parent.
    c.after = work.commit({ at: utc(2026, 12, 1) });
    work.tag('v0.0', { target: c.dave });
    work.tag('v0.1', { target: c.bob1 });
    work.tag('v0.2', { target: c.bob2, annotatedAt: utc(2026, 6, 2) });
    work.tag('v0.3-rc1', { target: c.T, annotatedAt: utc(2026, 10, 1) });
    work.taggerlessTag('old-style', c.alice2);
    work.tag('v1.0', { target: c.after, annotatedAt: utc(2026, 12, 2) });
    bare = work.bareClone(join(root, 'bare.git'));
  });

  it('measures the tip as of E, its commits, tags, policy and bus factor', async () => {
    const { measurements, facts } = await measureRepository(bare, [E], options(), settings);
    const m = measurements[0]!;
    // The expected commits, by plain git: non-merge commits reachable from T, mailmapped,
    // dated by committer time in (E - 12 months, E], without bots.
    const from = utc(2025, 11, 25);
    const lines = git(bare, [
      'log',
      '--no-merges',
      '--use-mailmap',
      '--format=%ct%x09%aN%x09%aE',
      c.T!,
    ])
      .trim()
      .split('\n');
    const people = lines
      .map((l) => l.split('\t'))
      .filter(([, n, e]) => !`${n}${e}`.includes('[bot]') && e !== 'action@github.com');
    const expected = people
      .map(([t]) => Number(t))
      .filter((t) => t > from && t <= E)
      .sort((a, b) => a - b);
    expect(m.values.COMMITS).toEqual({ events: expected });
    // By hand: alice 2, carol 1, talbot 1 (his 2019 commit is out of the window), and Bob's
    // two addresses merged by .mailmap: 5; bots and the merge left out.
    expect(expected).toHaveLength(9);
    expect(m.evidence.COMMITS).toContain('4 commits by bots left out');
    expect(m.evidence.COMMITS).toContain(`main at ${c.T!.slice(0, 12)} (2026-09-01)`);
    // Bob's 5 of 9 reach half: one person. Without the mailmap he would be 3 + 2 and the answer 2.
    expect(m.values.BUS_FACTOR).toBe(1);
    expect(m.evidence.BUS_FACTOR).toMatch(
      /^1 contributor of 4 made at least half of 9 non-merge commits/,
    );
    // Tags by hand: v0.1 (its commit, 2026-02-01), old-style (no tagger: its commit, 2026-06-01),
    // v0.2 (tagger, 2026-06-02), v0.3-rc1 (pre-release, 2026-10-01); v0.0 before the horizon, v1.0 after E.
    expect(m.values.RELEASES).toEqual({
      events: [utc(2026, 2, 1), utc(2026, 6, 1), utc(2026, 6, 2), utc(2026, 10, 1)],
    });
    expect(m.evidence.RELEASES).toContain('newest v0.3-rc1, 2026-10-01');
    expect(m.values.SECURITY_POLICY).toBe(true);
    expect(m.evidence.SECURITY_POLICY).toContain('docs/SECURITY.md');
    expect(JSON.stringify(m.evidence)).not.toMatch(/@/);
    expect(facts.defaultBranch).toBe('main');
    expect([...facts.tagNames].sort()).toEqual([
      'old-style',
      'v0.0',
      'v0.1',
      'v0.2',
      'v0.3-rc1',
      'v1.0',
    ]);
  });

  it('finds commits behind a clock-skewed one, which git log --since would not', async () => {
    const since = git(bare, ['log', '--format=%H', `--since=${utc(2026, 1, 1)}`, c.T!]);
    expect(since).not.toContain(c.bob1);
    const { measurements } = await measureRepository(bare, [E], options(), settings);
    expect((measurements[0]!.values.COMMITS as { events: number[] }).events).toContain(
      utc(2026, 2, 1),
    );
  });

  it('keeps events over the horizon while the bus factor keeps its own window', async () => {
    const { measurements } = await measureRepository(
      bare,
      [E],
      options({ horizonMonths: 24, busFactorMonths: 3 }),
      settings,
    );
    const m = measurements[0]!;
    // Dave's 2025-01-10 commit is within 24 months; the 2019 one is not.
    expect((m.values.COMMITS as { events: number[] }).events[0]).toBe(utc(2025, 1, 10));
    // In the 3 months to E (after 2026-08-25): Bob's T alone (the "2027" commit is after E).
    expect(m.values.BUS_FACTOR).toBe(1);
    expect(m.evidence.BUS_FACTOR).toContain(
      'of 1 made at least half of 1 non-merge commit in the 3 months',
    );
    expect((m.values.RELEASES as { events: number[] }).events[0]).toBe(utc(2025, 1, 10));
  });

  it('leaves out bots named by a pattern, and only the rules asked for', async () => {
    const { measurements } = await measureRepository(
      bare,
      [E],
      options({ isBot: botTest(['^sam@']), rules: new Set(['BUS_FACTOR']) }),
      settings,
    );
    expect(Object.keys(measurements[0]!.values)).toEqual(['BUS_FACTOR']);
    expect(measurements[0]!.evidence.BUS_FACTOR).toContain('of 3 made at least half of 8');
  });

  it("measures nothing before the first commit; a backdated commit is held from its parent's time", async () => {
    // By hand: the first commit is Dave's, 2025-01-10. The one dated 2019 follows bob1
    // (2026-02-01) on the branch, so the branch held it from 2026-02-01 on: it makes no month
    // before 2025-01-10 a month with history, and the tip as of 2026-01-31 is still c.mailmap.
    const times = [
      utc(2019, 7, 1),
      utc(2024, 12, 1),
      utc(2025, 2, 1),
      utc(2026, 1, 31),
      utc(2026, 2, 15),
      E,
    ];
    const { measurements } = await measureRepository(bare, times, options(), settings);
    expect(measurements.slice(0, 2)).toEqual([undefined, undefined]);
    const tipOf = (i: number) => measurements[i]!.evidence.SECURITY_POLICY;
    expect(tipOf(2)).toContain(`main at ${c.dave!.slice(0, 12)} (2025-01-10)`);
    expect(tipOf(3)).toContain(`main at ${c.mailmap!.slice(0, 12)} (2026-01-05)`);
    expect(tipOf(4)).toContain(`main at ${c.skewed!.slice(0, 12)} (2019-06-01)`);
    // The commit dated 2027 by a clock ahead holds nothing back: the tip as of E is T after it.
    expect(tipOf(5)).toContain(`main at ${c.T!.slice(0, 12)} (2026-09-01)`);
  });
});

it("the absence factor of CHAOSS's worked example is 2", async () => {
  const { absenceFactor } = await import('../src/measure/git/rules.ts');
  // chaoss.community/kb/metric-bus-factor: 1000, 202, 90, 33, 332, 343, 42, 433 → 2.
  expect(absenceFactor([1000, 202, 90, 33, 332, 343, 42, 433])).toBe(2);
  expect(absenceFactor([])).toBe(0);
});

describe('edge repositories', () => {
  const root = tempDir('badgepress-scan-edges-');

  it('an empty repository: no commits, no tags, no policy, bus factor 0', async () => {
    const bare = join(root, 'empty.git');
    git(root, ['init', '-q', '--bare', bare]);
    const { measurements, facts } = await measureRepository(bare, [E], options(), settings);
    expect(measurements[0]!.values).toEqual({
      BUS_FACTOR: 0,
      COMMITS: { events: [] },
      RELEASES: { events: [] },
      SECURITY_POLICY: false,
    });
    expect(measurements[0]!.evidence.COMMITS).toMatch(/has no commits/);
    expect(facts.tagNames.size).toBe(0);
    // No first commit, so no history: a backfill's month starts get no record, E gets one.
    const backfill = await measureRepository(
      bare,
      [utc(2026, 9, 1), utc(2026, 10, 1), E],
      options(),
      settings,
    );
    expect(backfill.measurements.map((m) => m !== undefined)).toEqual([false, false, true]);
    const notAtE = await measureRepository(bare, [utc(2026, 9, 1)], options({ asOf: E }), settings);
    expect(notAtE.measurements).toEqual([undefined]);
  });

  it('two commits in a row by a clock ahead hold nothing back; two backdated ones are held from their parent', async () => {
    const ahead = WorkRepo.init(join(root, 'ahead-run'));
    const x = ahead.commit({ at: utc(2026, 8, 1) });
    // Committed "in 2027" twice in a row, then T on time.
    ahead.commit({ at: utc(2026, 8, 10), committed: utc(2027, 1, 1) });
    ahead.commit({ at: utc(2026, 8, 11), committed: utc(2027, 1, 2) });
    const T = ahead.commit({ at: utc(2026, 9, 1) });
    // By hand: both 2027 commits are later than T after them, and T is not before x: they are
    // held from T's time, 2026-09-01. As of 2026-08-15: x; as of E: T.
    const a = await measureRepository(
      ahead.bareClone(join(root, 'ahead-run.git')),
      [utc(2026, 8, 15), E],
      options(),
      settings,
    );
    expect(a.measurements[0]!.evidence.SECURITY_POLICY).toContain(`main at ${x.slice(0, 12)}`);
    expect(a.measurements[1]!.evidence.SECURITY_POLICY).toContain(`main at ${T.slice(0, 12)}`);

    const behind = WorkRepo.init(join(root, 'behind-run'));
    const r = behind.commit({ at: utc(2025, 12, 10) });
    behind.commit({ at: utc(2026, 1, 10) });
    behind.commit({ at: utc(2018, 1, 1) });
    const b2 = behind.commit({ at: utc(2018, 1, 2) });
    behind.commit({ at: utc(2026, 2, 10) });
    // By hand: the two 2018 commits are held from their parent's time, 2026-01-10: no record
    // before r (2025-12-10); as of 2026-01-01: r; as of 2026-02-01: b2 (held from 2026-01-10).
    const b = await measureRepository(
      behind.bareClone(join(root, 'behind-run.git')),
      [utc(2018, 2, 1), utc(2025, 12, 1), utc(2026, 1, 1), utc(2026, 2, 1)],
      options(),
      settings,
    );
    expect(b.measurements.slice(0, 2)).toEqual([undefined, undefined]);
    expect(b.measurements[2]!.evidence.SECURITY_POLICY).toContain(`main at ${r.slice(0, 12)}`);
    expect(b.measurements[3]!.evidence.SECURITY_POLICY).toContain(`main at ${b2.slice(0, 12)}`);
  });

  it('a tag of a tree or a blob is no release, lightweight or annotated', async () => {
    const work = WorkRepo.init(join(root, 'tags'));
    const commit = work.commit({ at: utc(2026, 3, 1), files: { 'README.md': 'hi' } });
    const tree = work.git(['rev-parse', 'HEAD^{tree}']).trim();
    const blob = work.git(['rev-parse', 'HEAD:README.md']).trim();
    work.tag('v1', { target: commit, annotatedAt: utc(2026, 4, 1) });
    work.tag('tree-light', { target: tree });
    work.tag('tree-annotated', { target: tree, annotatedAt: utc(2026, 5, 1) });
    work.tag('blob-light', { target: blob });
    work.tag('blob-annotated', { target: blob, annotatedAt: utc(2026, 6, 1) });
    const bare = work.bareClone(join(root, 'tags.git'));
    // By plain git: what each tag names once peeled.
    const peeled = work
      .git(['for-each-ref', '--format=%(refname:short) %(objecttype) %(*objecttype)', 'refs/tags'])
      .trim()
      .split('\n');
    expect(peeled.sort()).toEqual([
      'blob-annotated tag blob',
      'blob-light blob ',
      'tree-annotated tag tree',
      'tree-light tree ',
      'v1 tag commit',
    ]);
    const { measurements, facts } = await measureRepository(bare, [E], options(), settings);
    // By hand: v1 alone, at its tagger date; the four others are left out and counted.
    expect(measurements[0]!.values.RELEASES).toEqual({ events: [utc(2026, 4, 1)] });
    expect(measurements[0]!.evidence.RELEASES).toBe(
      '1 tag dated in the 12 months to 2026-11-25 (newest v1, 2026-04-01); 4 tags of a tree or blob left out',
    );
    expect(facts.tagNames.size).toBe(5);
  });

  it('a renamed default branch: HEAD names it, a stale old branch is not read', async () => {
    const work = WorkRepo.init(join(root, 'renamed'), 'master');
    const old = work.commit({ at: utc(2026, 1, 1) });
    work.git(['branch', '-m', 'master', 'trunk']);
    work.commit({ at: utc(2026, 2, 1), files: { 'SECURITY.md': 'x' } });
    work.git(['branch', 'master', old]);
    const bare = work.bareClone(join(root, 'renamed.git'));
    expect(git(bare, ['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/trunk');
    const tip = git(bare, ['rev-parse', 'trunk']).trim();
    const { measurements, facts } = await measureRepository(bare, [E], options(), settings);
    expect(facts.defaultBranch).toBe('trunk');
    expect(measurements[0]!.values.COMMITS).toEqual({ events: [utc(2026, 1, 1), utc(2026, 2, 1)] });
    expect(measurements[0]!.evidence.SECURITY_POLICY).toContain(`trunk at ${tip.slice(0, 12)}`);
  });
});

describe('SECURITY_POLICY: places, case, and what is no file', () => {
  const root = tempDir('badgepress-scan-policy-');
  // Each case is the whole tree of one commit; by hand from Scorecard's list of paths.
  const cases: Array<[string, Record<string, string | { symlink: string }>, string | undefined]> = [
    ['root', { 'SECURITY.md': 'x' }, 'SECURITY.md'],
    ['lower case', { 'security.md': 'x' }, 'security.md'],
    ['.markdown, mixed case', { 'Security.Markdown': 'x' }, 'Security.Markdown'],
    ['.adoc', { 'SECURITY.adoc': 'x' }, 'SECURITY.adoc'],
    ['.rst', { 'SECURITY.rst': 'x' }, 'SECURITY.rst'],
    ['.github', { '.github/SECURITY.md': 'x' }, '.github/SECURITY.md'],
    ['.GitHub, case', { '.GitHub/security.md': 'x' }, '.GitHub/security.md'],
    ['docs', { 'docs/SECURITY.md': 'x' }, 'docs/SECURITY.md'],
    ['Docs/.rst', { 'Docs/Security.rst': 'x' }, 'Docs/Security.rst'],
    ['doc/security.rst', { 'doc/security.rst': 'x' }, 'doc/security.rst'],
    ['doc/ takes .rst only', { 'doc/SECURITY.md': 'x' }, undefined],
    ['another folder', { 'other/SECURITY.md': 'x' }, undefined],
    ['another extension', { 'SECURITY.txt': 'x', SECURITY: 'x' }, undefined],
    ['an empty file', { 'SECURITY.md': '' }, undefined],
    [
      'an empty root file, a full .github one',
      { 'SECURITY.md': '', '.github/SECURITY.md': 'x' },
      '.github/SECURITY.md',
    ],
    ['a symbolic link', { 'README.md': 'x', 'SECURITY.md': { symlink: 'README.md' } }, undefined],
    ['a directory', { 'SECURITY.md/policy.txt': 'x' }, undefined],
    // "SECURITY.md" sorts first (E before e) and is empty: the next file under the name is.
    ['two cases, the first empty', { 'SECURITY.md': '', 'security.md': 'x' }, 'security.md'],
    // The Kelvin sign lower-cases to k (as Scorecard's Unicode folding compares it).
    ['a Kelvin sign', { 'SECURITY.MAR\u212ADOWN': 'x' }, 'SECURITY.MAR\u212ADOWN'],
    ['a name of the same shape', { 'security.marXdown': 'x' }, undefined],
    // Two spellings of docs/: "Docs" sorts first and holds none; "docs/SECURITY.md" is still a
    // policy (Scorecard compares whole paths case-insensitively).
    ['Docs/ beside docs/', { 'Docs/README.md': 'x', 'docs/SECURITY.md': 'x' }, 'docs/SECURITY.md'],
  ];

  it('finds exactly the policy files, in one cat-file process', async () => {
    const work = WorkRepo.init(join(root, 'w'));
    const commits: string[] = [];
    cases.forEach(([, files], i) => {
      work.git(['rm', '-rq', '--ignore-unmatch', '.']);
      commits.push(work.commit({ at: utc(2026, 1, 1 + i), files: { ...files, keep: String(i) } }));
    });
    // A submodule (a gitlink) under the policy's name.
    work.git(['rm', '-rq', '--ignore-unmatch', '.']);
    work.commit({ at: utc(2026, 3, 1), files: { keep: 'sub' } });
    work.git(['update-index', '--add', '--cacheinfo', `160000,${commits[0]},SECURITY.md`]);
    work.git(['commit', '-qm', 'gitlink'], {
      GIT_AUTHOR_NAME: 'A',
      GIT_AUTHOR_EMAIL: 'a@b',
      GIT_COMMITTER_NAME: 'A',
      GIT_COMMITTER_EMAIL: 'a@b',
    });
    commits.push(work.git(['rev-parse', 'HEAD']).trim());
    expect(work.git(['ls-tree', 'HEAD', 'SECURITY.md'])).toMatch(/^160000 commit/);
    const call = { gitDir: join(work.dir, '.git'), settings };
    const cat = new CatFile(call);
    const snapshots = await readSnapshots(cat, commits);
    await cat.close();
    const found = commits.map((oid) => snapshots.get(oid)!.securityPolicy);
    expect(found).toEqual([...cases.map(([, , want]) => want), undefined]);
    // The same roots worked out, each from the one before and what git says changed between
    // them (every case a new root: files added, removed, made a folder, a link, a submodule).
    const listing = new CatFile(call);
    const asked: string[] = [];
    const read = listing.read.bind(listing);
    listing.read = (name, onHeader) => (asked.push(name), read(name, onHeader));
    const listed = await readSnapshots(
      listing,
      commits,
      undefined,
      {
        stored: (c) => storedObjects(call, c),
        changes: (pairs, rootBytes) => rootChanges(call, pairs, rootBytes),
      },
      0,
    );
    await listing.close();
    expect(commits.map((oid) => listed.get(oid)!.securityPolicy)).toEqual([
      ...cases.map(([, , want]) => want),
      undefined,
    ]);
    // No root but the first was read: every other one was worked out.
    const roots = commits.map((c) => work.git(['rev-parse', `${c}^{tree}`]).trim());
    expect(asked.filter((name) => roots.slice(1).includes(name))).toEqual([]);
    // git failing to say what changed, or how the roots are stored: every root read whole, the
    // same policies found.
    const failing = () => Promise.reject(new Error('git failed'));
    for (const reader of [
      { stored: (trees: readonly string[]) => storedObjects(call, trees), changes: failing },
      { stored: failing, changes: failing },
    ]) {
      const whole = new CatFile(call);
      const failed = await readSnapshots(whole, commits, undefined, reader, 0);
      await whole.close();
      expect(commits.map((oid) => failed.get(oid)!.securityPolicy)).toEqual([
        ...cases.map(([, , want]) => want),
        undefined,
      ]);
    }
  });
});

describe('evidence counts as the pages write counts (issue 34: grouped digits, one helper)', () => {
  it('1,000 tags: "1,000 tags dated", as counted() writes it on the page beside it', async () => {
    const root = tempDir('badgepress-scan-many-tags-');
    const work = WorkRepo.init(join(root, 'work'));
    const oid = work.commit({ at: utc(2026, 6, 1) });
    // 1,000 lightweight tags of that commit, made in one git process; each is dated by it.
    const lines = Array.from({ length: 1000 }, (_, i) => `create refs/tags/t${i} ${oid}\n`).join(
      '',
    );
    git(work.dir, ['update-ref', '--stdin'], {}, lines);
    expect(git(work.dir, ['tag', '--list']).trim().split('\n')).toHaveLength(1000);
    const bare = work.bareClone(join(root, 'bare.git'));
    const { measurements } = await measureRepository(
      bare,
      [E],
      options({ rules: new Set(['RELEASES']) }),
      settings,
    );
    expect(measurements[0]!.evidence.RELEASES).toMatch(
      /^1,000 tags dated in the 12 months to 2026-11-25 /,
    );
  });
});
