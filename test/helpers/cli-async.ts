// Runs the real command line in a child process without blocking this one: tests whose S3
// peer, proxy or stalled server lives in this process need its event loop free.
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, ROOT } from './cli.ts';

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runCliAsync(
  args: string[],
  opts: {
    cwd?: string;
    env?: Record<string, string>;
    started?: (child: ChildProcess) => void;
  } = {},
): Promise<CliExit> {
  const child = spawn(CLI[0], [...CLI.slice(1), ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, CI: 'true', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  opts.started?.(child);
  // A child that could not start (EACCES on the Node binary, ENOENT) fails with that reason.
  return new Promise((ok, fail) => {
    child.once('error', (err) =>
      fail(new Error(`could not run ${CLI.join(' ')}: ${err.message}`, { cause: err })),
    );
    child.once('close', (code, signal) => ok({ code, signal, stdout, stderr }));
  });
}
