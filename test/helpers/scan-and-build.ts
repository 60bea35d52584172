// A scan and a strict build through the CLI (in-process), in one folder: for tests that follow
// what a scan writes to the pages, explanations and SARIF a build makes of it. Every config
// file a test writes here shares the store, the mirrors and the repos file of the folder.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ROOT } from './cli.ts';
import { runCommand } from './cli-in-process.ts';

/** What `scan --json` prints (docs/reference/scan.md), the members tests read typed. */
export type ScanJson = Record<string, unknown> & {
  notAsked: Array<{ rules: string[]; why: string }>;
};

export interface ScanAndBuild {
  /** A config file `name`.yaml of `shape` (default A), with `more` lines added. */
  config(name: string, more?: string[], shape?: 'A' | 'B'): string;
  /** `scan --json` of the folder's repos.txt as of `asOf`, `more` flags after: its summary (stderr empty). */
  /** `env`: variables for this run alone (a host's token). */
  scan(
    config: string,
    asOf: number,
    more?: string[],
    env?: Record<string, string>,
  ): Promise<ScanJson>;
  /** A strict build of `shape` into the folder `name` as of `now` from the plain config, `more` flags after. */
  build(name: string, shape: 'A' | 'B', now: number, more?: string[]): Promise<string>;
}

/**
 * In `root`: configs with the store `store`, the mirrors `mirrors`, no retries, Shape A's
 * shipped thresholds (or `thresholdsB` for Shape B, the shipped ones by default) and `common`
 * lines; the builds read `plain.yaml`, written here.
 */
export function scanAndBuild(
  root: string,
  opts: { thresholdsB?: string; common?: string[] } = {},
): ScanAndBuild {
  const thresholdsB = opts.thresholdsB ?? join(ROOT, 'config/thresholds-b.yaml');
  const config = (name: string, more: string[] = [], shape: 'A' | 'B' = 'A') => {
    const file = join(root, `${name}.yaml`);
    writeFileSync(
      file,
      [
        `shape: ${shape}`,
        'store: store',
        ...(opts.common ?? []),
        `thresholds:\n  A: ${join(ROOT, 'config/thresholds-a.yaml')}\n  B: ${thresholdsB}`,
        'scan:\n  mirrors: mirrors\n  retries: 0',
        ...more,
        '',
      ].join('\n'),
    );
    return file;
  };
  const plain = config('plain');
  return {
    config,
    async scan(file, asOf, more = [], env = {}) {
      const args = ['--repos', join(root, 'repos.txt'), '--as-of', String(asOf), '--json', ...more];
      const r = await runCommand(['scan', '--config', file, ...args], { env });
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout);
    },
    async build(name, shape, now, more = []) {
      const out = join(root, name);
      const args = ['--shape', shape, '--out', out, '--now', String(now), '--strict', ...more];
      const r = await runCommand(['build', '--config', plain, ...args]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return out;
    },
  };
}
