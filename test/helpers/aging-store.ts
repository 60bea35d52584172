// One repository scanned once, and a config whose badges expire a day after that scan: the
// input of the expiry tests (builds, serve, plan).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.ts';

/** The scan's time (Unix seconds). */
export const AGING_TS = 1_763_000_000;
export const AGING_URL = 'https://github.com/acme/aging';

/** Writes dir/expiry-cfg/badgepress.yaml (expireAfterDays: 1) and the store dir/expiry-store. */
export function agingStore(dir: string): { store: string; config: string } {
  const config = join(dir, 'expiry-cfg', 'badgepress.yaml');
  mkdirSync(join(dir, 'expiry-cfg'), { recursive: true });
  writeFileSync(
    config,
    `expireAfterDays: 1\nthresholds:\n  A: ${join(ROOT, 'config/thresholds-a.yaml')}\n`,
  );
  const store = join(dir, 'expiry-store');
  mkdirSync(store, { recursive: true });
  writeFileSync(
    join(store, 'r.ndjson'),
    JSON.stringify({
      repositoryUrl: AGING_URL,
      timestamp: AGING_TS,
      values: { ISSUE_REACTION_TIME: 0, BUS_FACTOR: 4 },
    }),
  );
  return { store, config };
}
