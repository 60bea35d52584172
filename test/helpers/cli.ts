// Runs the real command line in a child process, as a user would.
import {
  spawnSync,
  type SpawnSyncOptionsWithStringEncoding,
  type SpawnSyncReturns,
} from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** `node --import tsx …`: one process (the tsx CLI would fork a child that a kill misses). */
export const NODE_TSX = [process.execPath, '--import', 'tsx'] as const;
/** The compiled command line, as bin/badgepress.js runs it: vitest's globalSetup compiles it
 *  (test/helpers/compile-cli.ts). It starts in a fraction of a spawn through tsx. */
export const CLI = [process.execPath, `${ROOT}lib/cli.js`] as const;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a child runs with: CI=true unless the test says otherwise; undefined removes a variable. */
export function childEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', ...overrides };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

/**
 * spawnSync that fails with the reason a process could not start or was killed (EACCES on a
 * Node binary another user owns, ENOENT, a timeout) instead of returning a status of null
 * that a test would then compare with its expected code.
 */
export function spawnChecked(
  command: string,
  args: readonly string[],
  opts: Omit<SpawnSyncOptionsWithStringEncoding, 'encoding'> = {},
): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { ...opts, encoding: 'utf8' });
  if (r.error)
    throw new Error(
      `could not run ${command} ${args.join(' ')}: ${r.error.message}${r.stderr ? `\n${r.stderr}` : ''}`,
      { cause: r.error },
    );
  return r;
}

export function runCli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined> } = {},
): CliRun {
  const r = spawnChecked(CLI[0], [...CLI.slice(1), ...args], {
    cwd: opts.cwd ?? ROOT,
    env: childEnv(opts.env),
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
