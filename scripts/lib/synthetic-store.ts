// Deterministic synthetic store for benchmarks and tests: one .ndjson file per repository,
// values spread over every band. Shape B writes Shape B's count rules instead.
// scripts/gen-store.ts is its command line.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const HOSTS = [
  'https://github.com/org{o}/repo{r}',
  'https://gitlab.com/group{o}/sub/team/project{r}',
  'https://codeberg.org/u{o}/tool{r}',
  'https://git.example.org:8443/platform{o}/svc{r}',
];
const DAY = 86400;
const START = 1_735_689_600; // 2025-01-01

/** Small deterministic PRNG (mulberry32): the same seed gives the same store everywhere. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GenOptions {
  repos: number;
  scans: number;
  out: string;
  seed?: number;
  shape?: 'A' | 'B';
  /** Repository i's URL (default: repositoryUrl, 100 a owner spread over four hosts). */
  urlOf?: (i: number) => string;
}

export function repositoryUrl(i: number): string {
  return HOSTS[i % HOSTS.length]!.replace('{o}', String(Math.floor(i / 100))).replace(
    '{r}',
    String(i),
  );
}

export function generateStore(o: GenOptions): void {
  mkdirSync(o.out, { recursive: true });
  const rnd = prng(o.seed ?? 1);
  const pick = (n: number) => Math.floor(rnd() * n);
  const width = String(o.repos).length;
  for (let i = 0; i < o.repos; i++) {
    const url = (o.urlOf ?? repositoryUrl)(i);
    const lines: string[] = [];
    for (let s = 0; s < o.scans; s++) {
      const timestamp = START + s * 7 * DAY + pick(DAY);
      const values: Record<string, unknown> =
        o.shape === 'B'
          ? {
              COMMITS:
                rnd() < 0.5
                  ? pick(12)
                  : {
                      events: Array.from(
                        { length: pick(10) },
                        () => timestamp - pick(240 * DAY),
                      ).sort((a, b) => a - b),
                    },
              ISSUE_REACTION_TIME: rnd() < 0.05 ? null : pick(20),
              RELEASES: pick(4),
              PACKAGES: pick(3),
              CI_PIPELINE: pick(30),
            }
          : {
              ISSUE_REACTION_TIME: rnd() < 0.05 ? null : pick(20),
              BUS_FACTOR: pick(7),
              SECURITY_POLICY: rnd() < 0.05 ? null : rnd() < 0.6,
              DEPENDENTS: pick(30),
            };
      lines.push(JSON.stringify({ repositoryUrl: url, timestamp, values }));
    }
    writeFileSync(
      join(o.out, `repo-${String(i).padStart(width, '0')}.ndjson`),
      `${lines.join('\n')}\n`,
    );
  }
}
