// `npm run bench -- --only forge`: HTTP requests one repository costs on each forge kind, against
// the loopback stand-ins the tests use (every answer checked against the forge's description).
// Two repositories per kind: a quiet one (no issue, a few runs) and a busy one (40 issues in
// the window, 30 of them by outsiders, 150 comments, 450 CI runs, 20 releases, 8 packages).
// Each is scanned twice, the second time the next day, unchanged, with the first scan's answers
// (ETags): the requests counted against the forge's limit, first and again, beside those
// before issue 33.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeAnswersPath, forgeFor } from '../src/measure/forge/index.ts';
import type { ForgeRequest, ForgeResult } from '../src/measure/types.ts';
import type { ForgeServer } from './lib/forge-peers/server.ts';
import { startGitHub } from './lib/forge-peers/github.ts';
import { startGitLab } from './lib/forge-peers/gitlab.ts';
import { startGitea } from './lib/forge-peers/gitea.ts';

const E = Date.parse('2026-11-25T00:00:00Z') / 1000;
const at = (daysBefore: number) =>
  new Date((E - daysBefore * 86400) * 1000).toISOString().replace('.000Z', 'Z');
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

interface Busy {
  issues: number;
  outsiders: number;
  comments: number;
  runs: number;
  releases: number;
  packages: number;
}
const QUIET: Busy = { issues: 0, outsiders: 0, comments: 0, runs: 5, releases: 2, packages: 1 };
const BUSY: Busy = {
  issues: 40,
  outsiders: 30,
  comments: 150,
  runs: 450,
  releases: 20,
  packages: 8,
};

function github(b: Busy): Promise<ForgeServer> {
  return startGitHub({
    issues: range(b.issues).map((i) => ({
      number: i + 1,
      created: at(80 - i),
      author: { login: i < b.outsiders ? `user${i}` : 'maint' },
      association: i < b.outsiders ? 'NONE' : 'OWNER',
    })),
    comments: range(b.comments).map((i) => ({
      issue: (i % Math.max(1, b.issues)) + 1,
      created: at(40 - (i % 30)),
      author: { login: 'maint' },
      association: 'OWNER',
    })),
    events: range(b.outsiders).map((i) => ({
      issue: i + 1,
      event: 'labeled',
      created: at(79 - i),
      actor: { login: 'maint' },
    })),
    runs: range(b.runs).map((i) => ({
      created: at(300 - (i % 290)),
      event: 'push',
      conclusion: i % 3 ? 'success' : 'failure',
    })),
    releases: range(b.releases).map((i) => ({
      tag: `v${i}`,
      published: at(300 - i * 10),
      assets: i < b.packages ? [at(300 - i * 10)] : [],
    })),
  });
}

function gitlab(b: Busy): Promise<ForgeServer> {
  return startGitLab({
    members: [{ username: 'maint', access: 40 }],
    issues: range(b.issues).map((i) => ({
      iid: i + 1,
      created: at(80 - i),
      author: { username: i < b.outsiders ? `user${i}` : 'maint' },
    })),
    notes: range(b.comments).map((i) => ({
      issue: (i % Math.max(1, b.issues)) + 1,
      created: at(40 - (i % 30)),
      author: { username: 'maint' },
      body: 'ok',
    })),
    pipelines: range(b.runs).map((i) => ({
      created: at(300 - (i % 290)),
      status: i % 3 ? 'success' : 'failed',
    })),
    releases: range(b.releases).map((i) => ({ tag: `v${i}`, released: at(300 - i * 10) })),
    packages: range(b.packages).map((i) => ({
      name: 'widget',
      version: `1.${i}.0`,
      type: 'npm',
      created: at(300 - i * 10),
    })),
  });
}

function gitea(b: Busy): Promise<ForgeServer> {
  return startGitea({
    owner: 'acme',
    members: ['maint'],
    collaborators: [],
    issues: range(b.issues).map((i) => ({
      number: i + 1,
      created: at(80 - i),
      author: i < b.outsiders ? `user${i}` : 'maint',
    })),
    timeline: range(b.comments).map((i) => ({
      issue: (i % Math.max(1, b.issues)) + 1,
      type: 'comment',
      created: at(40 - (i % 30)),
      user: 'maint',
    })),
    runs: range(b.runs).map((i) => ({
      created: at(300 - (i % 290)),
      status: i % 3 ? 'success' : 'failure',
    })),
    releases: range(b.releases).map((i) => ({ tag: `v${i}`, published: at(300 - i * 10) })),
    packages: range(b.packages).map((i) => ({
      name: 'widget',
      version: `1.${i}.0`,
      type: 'npm',
      created: at(300 - i * 10),
      repository: 'acme/widget',
    })),
  });
}

async function once(
  kind: 'github' | 'gitlab' | 'gitea',
  server: ForgeServer,
  /** The mirrors folder its answers are kept in between scans; undefined: none kept. */
  answersDir: string | undefined,
  at: number,
  /** Listed by a source this run, which said its issues are on: no lookup is asked. */
  listed = false,
): Promise<{ result: ForgeResult; ms: number }> {
  const host = `${kind}.bench`;
  // With a token, as a scan of many repositories runs (GitHub's GraphQL API answers no anonymous request).
  const forge = forgeFor(
    {
      hosts: {
        [host]: {
          kind,
          apiUrl: server.url,
          tokenEnv: 'BENCH_FORGE_TOKEN',
          requestsPerSecond: 1000,
        },
      },
      ...(answersDir !== undefined ? { answersDir } : {}),
    },
    { BENCH_FORGE_TOKEN: 'bench-token' },
  );
  const request: ForgeRequest = {
    target: {
      url: `https://${host}/acme/widget`,
      host,
      path: 'acme/widget',
      source: 'bench',
      ...(listed ? { issuesEnabled: true } : {}),
    },
    times: [at],
    asOf: at,
    git: { tagNames: new Set() },
    windowMonths: {},
    horizonMonths: 12,
  };
  const started = performance.now();
  const result = await forge(request.target)!.measure(request);
  const ms = performance.now() - started;
  if (server.violations.length > 0 || result.failures.length > 0)
    throw new Error(
      `bench forge ${kind}: ${[...server.violations, ...result.failures].join('; ')}`,
    );
  return { result, ms };
}

/** Requests counted against the limit per repository before issue 33 (quiet, busy; every scan alike). */
const BEFORE = { github: [4, 40], gitlab: [6, 131], gitea: [5, 45] } as const;

/**
 * One row per forge kind: requests counted against its limit for a quiet and a busy
 * repository, first scan and an unchanged rescan (the first's answers kept as a scan keeps
 * them), and the busy first scan's time.
 */
export async function forgeRows(
  say: (name: string, value: string, key?: string, raw?: number | string) => void,
): Promise<void> {
  const kinds = { github, gitlab, gitea } as const;
  const dir = await mkdtemp(join(tmpdir(), 'bp-bench-forge-'));
  try {
    for (const [kind, start] of Object.entries(kinds) as Array<
      [keyof typeof kinds, (b: Busy) => Promise<ForgeServer>]
    >) {
      const figures: string[] = [];
      let busyMs = 0;
      let busyKeptBytes = 0;
      for (const b of [QUIET, BUSY]) {
        const mirrors = join(dir, `${kind}-${b.issues}`);
        const host = `${kind}.bench`;
        const file = forgeAnswersPath(mirrors, {
          url: `https://${host}/acme/widget`,
          host,
          path: 'acme/widget',
          source: 'bench',
        });
        const counted: number[] = [];
        for (const scan of ['first', 'rescan']) {
          const server = await start(b);
          try {
            // The rescan the next day, as a daily scan does (the same month: see scan.md).
            const { result, ms } = await once(
              kind,
              server,
              mirrors,
              scan === 'first' ? E : E + 86_400,
            );
            if (result.requests !== server.requests.length)
              throw new Error(
                `bench forge ${kind}: counted ${result.requests}, served ${server.requests.length}`,
              );
            counted.push(result.counted ?? result.requests);
            if (b === BUSY && scan === 'first') {
              busyMs = ms;
              busyKeptBytes = await stat(file).then(
                (st) => st.size,
                () => 0,
              );
            }
          } finally {
            await server.close();
          }
        }
        figures.push(`${counted[0]} then ${counted[1]}`);
      }
      // The busy repository's first scan once more, as a scan from a source makes it.
      const server = await start(BUSY);
      let fromSource: number;
      try {
        const { result } = await once(kind, server, undefined, E, true);
        fromSource = result.counted ?? result.requests;
      } finally {
        await server.close();
      }
      const [quiet, busy] = BEFORE[kind];
      say(
        `forge requests counted per repository, ${kind} (quiet; busy: first scan then an unchanged rescan the next day)`,
        `${figures[0]}; ${figures[1]}; busy first listed by a source: ${fromSource} (before: ${quiet} then ${quiet}; ${busy} then ${busy}; busy first: ${busyMs.toFixed(0)} ms over loopback; its file kept for the rescan (answers, reactions): ${busyKeptBytes === 0 ? 'none' : `${(busyKeptBytes / 1024).toFixed(1)} KiB`})`,
        `forgeRequests_${kind}`,
        figures.join('; '),
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
