// `npm run bench -- --only forge` (and the full bench): what listing 10,000 repositories costs on
// each forge kind, against the loopback stand-ins the tests use (every answer checked against
// the forge's description): requests and seconds for a GitLab group with nested subgroups and
// the whole instance (keyset), a GitHub organisation and a Forgejo organisation. Every 7th
// repository is private, every 11th archived, every 13th a fork; discovery keeps public ones
// neither archived nor forks. Each source is listed twice, the second time unchanged with the
// first listing's answers kept as a scan keeps them (beside the mirrors, where the forge
// answers conditional requests): its pages answered 304 are counted.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverSources, listingAnswersPath } from '../src/measure/forge/sources.ts';
import type { SourceSetting } from '../src/config/types.ts';
import type { CatalogueRepo } from './lib/forge-peers/catalogue.ts';
import type { ForgeServer } from './lib/forge-peers/server.ts';
import { startGitHub } from './lib/forge-peers/github.ts';
import { startGitLab } from './lib/forge-peers/gitlab.ts';
import { startGitea } from './lib/forge-peers/gitea.ts';

const COUNT = 10_000;

function catalogue(path: (i: number) => string): CatalogueRepo[] {
  return Array.from({ length: COUNT }, (_, i) => ({
    path: path(i),
    ...(i % 7 === 0 ? { visibility: 'private' as const } : {}),
    ...(i % 11 === 0 ? { archived: true } : {}),
    ...(i % 13 === 0 ? { fork: true } : {}),
  }));
}

const source = (url: string): SourceSetting => ({
  url,
  archived: false,
  forks: false,
  mirrors: false,
  visibility: ['public'],
  topics: [],
  include: [],
  exclude: [],
  where: 'bench',
});

interface Listing {
  kept: number;
  requests: number;
  seconds: number;
  /** The same listing again, unchanged, with the first one's answers: requests, 304s, seconds. */
  again: { requests: number; notModified: number; seconds: number };
  /** Bytes of the file the first listing's answers were kept in. */
  keptBytes: number;
}

async function listed(
  kind: string,
  server: ForgeServer,
  host: string,
  url: string,
): Promise<Listing> {
  const dir = await mkdtemp(join(tmpdir(), 'bp-bench-listing-'));
  try {
    const once = async () => {
      const before = server.requests.length;
      const started = performance.now();
      const found = await discoverSources(
        [source(url)],
        {
          hosts: {
            [host]: { kind, apiUrl: server.url, tokenEnv: 'BENCH_TOKEN', requestsPerSecond: 1000 },
          },
        },
        { BENCH_TOKEN: 'bench' },
        [],
        undefined,
        dir,
      );
      const seconds = (performance.now() - started) / 1000;
      if (found.problems.length > 0 || server.violations.length > 0)
        throw new Error(
          `bench discover ${kind}: ${[...found.problems, ...server.violations].join('; ')}`,
        );
      if (found.requests !== server.requests.length - before)
        throw new Error(
          `bench discover ${kind}: counted ${found.requests}, served ${server.requests.length - before}`,
        );
      return { found, seconds };
    };
    const first = await once();
    const keptBytes = await stat(listingAnswersPath(dir, host, url)).then(
      (s) => s.size,
      () => 0,
    );
    const again = await once();
    return {
      kept: first.found.targets.length,
      requests: first.found.requests,
      seconds: first.seconds,
      again: {
        requests: again.found.requests,
        notModified: again.found.notModified,
        seconds: again.seconds,
      },
      keptBytes,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One row per source kind: repositories kept, requests, seconds over loopback. */
export async function discoverRows(
  say: (name: string, value: string, key?: string, raw?: number | string) => void,
): Promise<void> {
  const row = (what: string, key: string, r: Listing) =>
    say(
      `discovery of ${COUNT} repositories, ${what}`,
      `${r.requests} requests, ${r.kept} kept, ${r.seconds.toFixed(2)} s over loopback; again unchanged: ${r.again.requests} requests, ${r.again.notModified} answered 304, ${r.again.seconds.toFixed(2)} s (answers kept: ${r.keptBytes === 0 ? 'none' : `a file of ${(r.keptBytes / 1024 / 1024).toFixed(2)} MiB`})`,
      `discover_${key}`,
      r.requests,
    );
  const gitlab = await startGitLab({
    catalogue: {
      web: 'https://gitlab.bench',
      repos: catalogue((i) => `big/g${i % 10}/s${i % 9}/d${i % 4}/p${i}`),
    },
  });
  try {
    row(
      'GitLab group, nested subgroups',
      'gitlabGroup',
      await listed('gitlab', gitlab, 'gitlab.bench', 'https://gitlab.bench/big'),
    );
    row(
      'GitLab instance (keyset)',
      'gitlabInstance',
      await listed('gitlab', gitlab, 'gitlab.bench', 'https://gitlab.bench/'),
    );
  } finally {
    await gitlab.close();
  }
  const github = await startGitHub({
    catalogue: { web: 'https://github.bench', repos: catalogue((i) => `acme/r${i}`) },
  });
  try {
    row(
      'GitHub organisation',
      'githubOrg',
      await listed('github', github, 'github.bench', 'https://github.bench/acme'),
    );
  } finally {
    await github.close();
  }
  const gitea = await startGitea({
    owner: 'acme',
    catalogue: { web: 'https://forgejo.bench', repos: catalogue((i) => `acme/r${i}`) },
  });
  try {
    row(
      'Forgejo organisation',
      'forgejoOrg',
      await listed('gitea', gitea, 'forgejo.bench', 'https://forgejo.bench/acme'),
    );
  } finally {
    await gitea.close();
  }
}
