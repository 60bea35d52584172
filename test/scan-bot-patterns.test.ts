// A bot pattern that backtracks exponentially on a backtracking engine, `^(\w+\s?)+-ci$`, over a
// 34-character author name that almost matches: over a minute of one core per name there (41 s
// for 30 characters in the audit), linear on RE2. The real command line in a child, bounded by
// a generous spawn timeout: the bound is the safety net, the assertions are on what it wrote.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { childEnv, CLI, ROOT, spawnChecked } from './helpers/cli.ts';
import { utc, WorkRepo } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';
import { botPatternProblem } from '../src/model/bot-pattern.ts';
import { botTest } from '../src/measure/bots.ts';
import { startGitHub } from '../scripts/lib/forge-peers/github.ts';
import { runCommand } from './helpers/cli-in-process.ts';

const PATTERN = '^(\\w+\\s?)+-ci$';
// 34 characters: 8 s of one core for the 31 of the audit's kind, doubling with each more.
const LONG_NAME = `${'x'.repeat(33)}!`;

describe('bot patterns run on RE2', () => {
  const root = tempDir('badgepress-bot-patterns-');
  const config = join(root, 'badgepress.yaml');
  const list = join(root, 'repos.txt');

  beforeAll(() => {
    const work = WorkRepo.init(join(root, 'work'));
    work.commit({ at: utc(2026, 3, 10), author: { name: LONG_NAME, email: 'x@example.org' } });
    work.commit({
      at: utc(2026, 4, 10),
      author: { name: 'nightly build-ci', email: 'ci@example.org' },
    });
    work.commit({
      at: utc(2026, 5, 10),
      author: { name: 'nightly build-ci', email: 'ci@example.org' },
    });
    work.bareClone(join(root, 'one.git'));
    writeFileSync(
      config,
      [
        'shape: A',
        'store: store',
        `thresholds:\n  A: ${resolve(ROOT, 'examples/scan/thresholds-git.yaml')}`,
        `scan:\n  mirrors: ${join(root, 'mirrors')}\n  retries: 0`,
        '',
      ].join('\n'),
    );
    writeFileSync(list, `https://example.org/acme/one mirror=${join(root, 'one.git')}\n`);
  });

  it('a 34-character name against ^(\\w+\\s?)+-ci$ is matched at once; the bot is left out, the person kept', () => {
    const r = spawnChecked(
      CLI[0],
      [
        ...CLI.slice(1),
        'scan',
        '--config',
        config,
        '--repos',
        list,
        '--store',
        join(root, 'store'),
        '--as-of',
        '2026-11-01',
        '--bot-pattern',
        PATTERN,
      ],
      {
        cwd: root,
        env: childEnv(),
        timeout: 30_000,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const line = JSON.parse(readFileSync(join(root, 'store/example.org/acme/one.ndjson'), 'utf8'));
    // Three commits, two by the bot: one contributor made them all.
    expect(line.values.BUS_FACTOR).toBe(1);
    expect(line.evidence.BUS_FACTOR).toContain(
      '1 contributor of 1 made at least half of 1 non-merge commit',
    );
    expect(line.values.COMMITS).toEqual({ events: [utc(2026, 3, 10)] });
    expect(line.evidence.COMMITS).toContain('2 commits by bots left out');
  });

  it('matches case-insensitively, unanchored, on the name or the e-mail; RE2 refuses backreferences with a reason', () => {
    const isBot = botTest([PATTERN, 'deploy@']);
    expect(isBot({ name: 'xxxxxxxxxx!', email: 'x@example.org' })).toBe(false);
    expect(isBot({ name: 'Nightly Build-CI', email: 'n@example.org' })).toBe(true);
    expect(isBot({ name: 'Someone', email: 'DEPLOY@example.org' })).toBe(true);
    expect(botPatternProblem('(a)\\1')).toMatch(
      /^not a regular expression RE2 accepts \(.*\); backreferences and lookaround are not supported$/,
    );
    expect(botPatternProblem(PATTERN)).toBeUndefined();
  });
});

describe('bot patterns reach the forge too', () => {
  const root = tempDir('badgepress-bot-patterns-forge-');

  // alice's issue: a comment by release-helper (an OWNER account a bot runs) after 1 day, by
  // maint after 2; nightly-ci's issue is never answered (10 days old at E). Counting the
  // pattern bots: (1 + 10) / 2 = 5.5 days; leaving them out: alice's issue alone, 2 days.
  // nightly-ci comments 120 times on its own issue: past the 100 timeline items one GraphQL
  // query brings, so an adapter that took it for a person's would ask for the rest.
  async function scanWithPatterns(dir: string, token: string | undefined) {
    const github = await startGitHub({
      issues: [
        {
          number: 1,
          created: '2026-11-01T00:00:00Z',
          author: { login: 'alice' },
          association: 'NONE',
        },
        {
          number: 2,
          created: '2026-11-15T00:00:00Z',
          author: { login: 'nightly-ci' },
          association: 'NONE',
        },
      ],
      comments: [
        {
          issue: 1,
          created: '2026-11-02T00:00:00Z',
          author: { login: 'release-helper' },
          association: 'OWNER',
        },
        {
          issue: 1,
          created: '2026-11-03T00:00:00Z',
          author: { login: 'maint' },
          association: 'OWNER',
        },
        ...Array.from({ length: 120 }, (_, n) => ({
          issue: 2,
          created: `2026-11-16T00:${String(n % 60).padStart(2, '0')}:${String(Math.floor(n / 60)).padStart(2, '0')}Z`,
          author: { login: 'nightly-ci' },
          association: 'NONE',
        })),
      ],
    });
    try {
      const work = WorkRepo.init(join(dir, 'work'));
      work.commit({ at: utc(2026, 10, 1) });
      work.bareClone(join(dir, 'one.git'));
      const config = join(dir, 'badgepress.yaml');
      const tokenEnv = token === undefined ? '' : ', tokenEnv: GH_TOKEN_TEST';
      const hosts = `hosts:\n  github.com: { kind: github, apiUrl: "${github.url}", requestsPerSecond: 1000${tokenEnv} }`;
      writeFileSync(
        config,
        [
          'shape: A',
          'store: store',
          `scan:\n  mirrors: mirrors\n  retries: 0\n  botPatterns: ["^nightly-ci$"]`,
          hosts,
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(dir, 'repos.txt'),
        `https://github.com/acme/one mirror=${join(dir, 'one.git')}\n`,
      );
      const args = [
        'scan',
        '--config',
        config,
        '--repos',
        join(dir, 'repos.txt'),
        '--store',
        join(dir, 'store'),
        '--as-of',
        '2026-11-25',
        '--rules',
        'ISSUE_REACTION_TIME',
      ];
      const r = await runCommand([...args, '--bot-pattern', '^release-helper$'], {
        env: { GH_TOKEN_TEST: token },
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const line = JSON.parse(readFileSync(join(dir, 'store/github.com/acme/one.ndjson'), 'utf8'));
      expect(line.values.ISSUE_REACTION_TIME).toBe(2);
      expect(line.evidence.ISSUE_REACTION_TIME).toBe(
        'Mean first maintainer reaction over 1 issue opened in the 3 months to 2026-11-25',
      );
      return github.requests;
    } finally {
      await github.close();
    }
  }

  it("an issue or a maintainer's comment by a login scan.botPatterns names is a bot's: left out of the reaction time", async () => {
    // Without a token: the REST lists. The adapter skips the triage events of the pattern
    // bot's issue: only alice's are read.
    const requests = await scanWithPatterns(join(root, 'rest'), undefined);
    expect(requests.filter((q) => q.path.endsWith('/events')).map((q) => q.path)).toEqual([
      '/repos/acme/one/issues/1/events',
    ]);
  });

  it('through GraphQL (with a token) the same test runs on issue authors and reactors', async () => {
    // One query: the pattern bot's issue is not read past its first 100 timeline items.
    const requests = await scanWithPatterns(join(root, 'graphql'), 'ghp_test');
    expect(requests.filter((q) => q.path === '/graphql')).toHaveLength(1);
    expect(requests.some((q) => q.path.endsWith('/events'))).toBe(false);
  });
});
