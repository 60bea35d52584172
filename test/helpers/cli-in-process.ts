// Runs a badgepress command in this process: the same `main()` the compiled CLI calls (flag
// parsing, the command, failure-to-exit-code mapping, --json error lines), without a child's
// Node start and module loading (0.4-1 s a spawn). For tests that check what a command prints,
// returns or writes; a test about the process itself (a kill, a terminal, startup, the exit
// status Node reports) spawns the real CLI through ./cli.ts instead, and every command a test
// file is about keeps at least one such spawn.
import { main } from '../../src/commands/main.ts';
import type { CliRun } from './cli.ts';

type Write = typeof process.stdout.write;

/** Commands run one at a time: stdout, stderr and the environment are this process's own. */
let running: Promise<unknown> = Promise.resolve();

/** As `runCli` (cwd is this process's, the checkout): CI=true unless `env` says otherwise; undefined removes a variable. */
export function runCommand(
  args: string[],
  opts: { env?: Record<string, string | undefined> } = {},
): Promise<CliRun> {
  const run = running.then(() => runNow(args, { CI: 'true', ...opts.env }));
  running = run.catch(() => undefined);
  return run;
}

/**
 * The token a test config's GitLab host names (`tokenEnv: TEST_GITLAB_TOKEN`): without one,
 * GitLab answers no notes or members, so ISSUE_REACTION_TIME stays unknown.
 */
export const TEST_GITLAB_TOKEN = { TEST_GITLAB_TOKEN: 'glpat-test' };

/** `runCommand` with TEST_GITLAB_TOKEN set. */
export const withToken = (args: string[]): Promise<CliRun> =>
  runCommand(args, { env: TEST_GITLAB_TOKEN });

async function runNow(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  setEnv(env);
  let stdout = '';
  let stderr = '';
  const [out, err] = [process.stdout.write, process.stderr.write];
  const capture = (append: (s: string) => void): Write =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as Write;
  process.stdout.write = capture((s) => (stdout += s));
  process.stderr.write = capture((s) => (stderr += s));
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    setEnv(saved);
  }
}

function setEnv(env: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}
