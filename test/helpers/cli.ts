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

export function runCli(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): CliRun {
  const r = spawnSync(NODE_TSX[0], [...NODE_TSX.slice(1), `${ROOT}src/cli.ts`, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, CI: 'true', ...opts.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
