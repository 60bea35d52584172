// Runs the real command line in a child process, as a user would.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** `node --import tsx …`: one process (the tsx CLI would fork a child that a kill misses). */
export const NODE_TSX = [process.execPath, '--import', 'tsx'] as const;

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

export function runCli(args: string[], opts: { cwd?: string; env?: Record<string, string | undefined> } = {}): CliRun {
  const r = spawnSync(NODE_TSX[0], [...NODE_TSX.slice(1), `${ROOT}src/cli.ts`, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: childEnv(opts.env),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
