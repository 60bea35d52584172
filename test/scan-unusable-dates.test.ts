// A forge item with a date that does not read costs that item, never the record: before, the
// NaN it became made ISSUE_REACTION_TIME NaN, the record failed record.schema.json and nothing
// was written for it, git's rules included, on every forge. Each forge's stand-in here answers
// one issue with a maintainer's reaction 2 days later and one more reaction dated at a leap
// second: valid RFC 3339 (the forges' documented date-time, so the stand-ins pass it on), but
// no date JavaScript's Date.parse reads.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withToken } from './helpers/cli-in-process.ts';
import { git, utc, WorkRepo } from './helpers/git-repo.ts';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';
import { startGitHub } from '../scripts/lib/forge-peers/github.ts';
import { startGitLab } from '../scripts/lib/forge-peers/gitlab.ts';
import { startGitea } from '../scripts/lib/forge-peers/gitea.ts';
import { usableMeasurement } from '../src/scan/usable-values.ts';
import { tempDir } from './helpers/tmp.ts';

const E = utc(2026, 11, 25);
const BAD = '2026-11-03T23:59:60Z';
const FILES = ['github.com/acme/widget', 'gitlab.example/acme/widget', 'forge.example/acme/widget'];

describe('a forge date that does not read', () => {
  const root = tempDir('badgepress-scan-dates-');
  const config = join(root, 'badgepress.yaml');
  const servers: ForgeServer[] = [];
  let commitTimes: number[];

  beforeAll(async () => {
    const repo = WorkRepo.init(join(root, 'widget'));
    repo.commit({ at: utc(2026, 6, 2) });
    repo.commit({ at: utc(2026, 10, 7) });
    repo.bareClone(join(root, 'widget.git'));
    commitTimes = git(join(root, 'widget.git'), ['log', '--format=%ct'])
      .trim()
      .split('\n')
      .map(Number)
      .sort();
    const github = await startGitHub({
      issues: [
        {
          number: 1,
          created: '2026-11-01T00:00:00Z',
          updated: '2026-11-03T00:00:00Z',
          author: { login: 'alice' },
          association: 'NONE',
        },
      ],
      comments: [
        {
          issue: 1,
          created: '2026-11-03T00:00:00Z',
          author: { login: 'maint' },
          association: 'OWNER',
        },
      ],
      // A triage action: the events list has no `since` the stand-in could filter it by.
      events: [{ issue: 1, event: 'labeled', created: BAD, actor: { login: 'maint' } }],
    });
    const gitlab = await startGitLab({
      members: [{ username: 'maint', access: 40 }],
      issues: [{ iid: 1, created: '2026-11-01T00:00:00Z', author: { username: 'alice' } }],
      notes: [
        {
          issue: 1,
          created: '2026-11-03T00:00:00Z',
          author: { username: 'maint' },
          body: 'Looking into it.',
        },
        { issue: 1, created: BAD, author: { username: 'maint' }, body: 'And again.' },
      ],
    });
    const gitea = await startGitea({
      owner: 'acme',
      collaborators: [],
      issues: [{ number: 1, created: '2026-11-01T00:00:00Z', author: 'alice' }],
      timeline: [
        { issue: 1, type: 'comment', created: '2026-11-03T00:00:00Z', user: 'acme' },
        { issue: 1, type: 'comment', created: BAD, user: 'acme' },
      ],
    });
    servers.push(github, gitlab, gitea);
    writeFileSync(
      config,
      [
        'store: store',
        'scan:\n  mirrors: mirrors\n  retries: 0',
        'hosts:',
        `  github.com: { kind: github, apiUrl: "${github.url}", requestsPerSecond: 1000 }`,
        `  gitlab.example: { kind: gitlab, apiUrl: "${gitlab.url}", tokenEnv: TEST_GITLAB_TOKEN, requestsPerSecond: 1000 }`,
        `  forge.example: { kind: gitea, apiUrl: "${gitea.url}", requestsPerSecond: 1000 }`,
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(root, 'repos.txt'),
      FILES.map((f) => `https://${f} mirror=widget.git`).join('\n') + '\n',
    );
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('leaves that item out on every forge; the record keeps git rules and the other forge rules', async () => {
    const scan = await withToken([
      'scan',
      '--config',
      config,
      '--repos',
      join(root, 'repos.txt'),
      '--store',
      join(root, 'store'),
      '--as-of',
      String(E),
      '--rules',
      'COMMITS,BUS_FACTOR,ISSUE_REACTION_TIME,RELEASES',
      '--json',
    ]);
    expect(scan.stderr).toBe('');
    expect(JSON.parse(scan.stdout)).toMatchObject({
      repositories: 3,
      measured: 3,
      failed: 0,
      records: 3,
    });
    for (const s of servers) expect(s.violations).toEqual([]);
    for (const file of FILES) {
      const record = JSON.parse(readFileSync(join(root, 'store', `${file}.ndjson`), 'utf8'));
      expect(record.values.COMMITS).toEqual({ events: commitTimes });
      expect(record.values.BUS_FACTOR).toBe(1);
      expect(record.values.RELEASES).toEqual({ events: [] });
      // Opened 2026-11-01, answered 2026-11-03: 2 days; the reaction at the leap second is left out.
      expect(record.values.ISSUE_REACTION_TIME).toBe(2);
      expect(record.evidence.ISSUE_REACTION_TIME).toContain(
        '1 issue or reaction with a date that does not read left out',
      );
    }
  });

  it('a value the record cannot hold costs its own rule only, and says so', () => {
    const m = usableMeasurement({
      values: {
        A: Number.NaN,
        B: { events: [5, Number.NaN, -1, 253_402_300_800, 1.5, 7] },
        C: 3,
        D: true,
        F: null,
        G: { events: [1] },
      },
      evidence: { A: 'mean of 2 issues', B: '6 events' },
    });
    expect(m.values).toEqual({
      A: null,
      B: { events: [5, 7] },
      C: 3,
      D: true,
      F: null,
      G: { events: [1] },
    });
    expect(m.evidence).toEqual({
      A: 'mean of 2 issues; could not be determined: the value measured (NaN) is not a number of 0 or more',
      B: '6 events; 4 events with a time that does not read as one left out',
    });
  });
});
