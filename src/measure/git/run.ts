// Every git process the scanner starts: bounded in time, never prompting for a password, and
// given secrets (an Authorization header) only through its environment, so no token ever
// appears in a process list, a mirror's config or an error message.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { remoteText } from '../../model/safe-text.ts';
import { ByteQueue } from './byte-queue.ts';

/** How every git process of one scan is started. */
export interface GitSettings {
  /** Kill a git process that runs longer than this. */
  timeoutMs: number;
  /** Config given through GIT_CONFIG_COUNT/KEY/VALUE (never argv): credentials. */
  secretConfig?: ReadonlyArray<readonly [string, string]>;
}

export interface GitCall {
  /** The repository (bare: its directory); absent for clone and ls-remote. */
  gitDir?: string;
  args: readonly string[];
  settings: GitSettings;
  /**
   * Never fetch a missing object from the promisor remote (a blobless mirror's lazy fetch): a
   * process that would need one fails instead (every transport refused; GIT_NO_LAZY_FETCH on
   * git 2.44 and later). For everything that reads a mirror to measure it.
   */
  noLazyFetch?: boolean;
}

export class GitError extends Error {
  override name = 'GitError';
  readonly stderr: string;
  readonly timedOut: boolean;
  constructor(
    message: string,
    /** git's own words, secrets removed. */
    stderr: string,
    timedOut: boolean,
  ) {
    super(message);
    this.stderr = stderr;
    this.timedOut = timedOut;
  }
}

export interface GitChild {
  stdout: Readable;
  stdin: Writable;
  /** Resolves when git exits 0; rejects with a GitError otherwise. */
  done: Promise<void>;
  kill(): void;
}

// Variables that would point git at another repository or config than the one we name, run a
// program of the user's (a diff, a pager, a password prompt) or change what git prints.
const INHERITED_OUT = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_SYSTEM',
  'GIT_NAMESPACE',
  'GIT_CEILING_DIRECTORIES',
  'GIT_EXTERNAL_DIFF',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_EDITOR',
  // Pathspec magic for every command: a scan's pathspecs mean what they say.
  'GIT_LITERAL_PATHSPECS',
  'GIT_GLOB_PATHSPECS',
  'GIT_NOGLOB_PATHSPECS',
  'GIT_ICASE_PATHSPECS',
];

/**
 * The environment of one git process: no prompt, C messages, no pager, no system or global
 * config (the user's own ~/.gitconfig and XDG config are never read: GIT_CONFIG_GLOBAL names
 * an empty file), and the secrets as config.
 */
function gitEnvironment(
  settings: GitSettings,
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...base,
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    LC_ALL: 'C',
    LANGUAGE: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
  };
  for (const k of INHERITED_OUT) delete env[k];
  for (const k of Object.keys(env))
    if (/^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)$/.test(k)) delete env[k];
  // ssh must fail rather than ask for a passphrase or a host key decision.
  env.GIT_SSH_COMMAND ??= 'ssh -o BatchMode=yes';
  const secret = settings.secretConfig ?? [];
  if (secret.length > 0) {
    env.GIT_CONFIG_COUNT = String(secret.length);
    secret.forEach(([key, value], i) => {
      env[`GIT_CONFIG_KEY_${i}`] = key;
      env[`GIT_CONFIG_VALUE_${i}`] = value;
    });
  }
  return env;
}

/**
 * The secrets of a config value: the value, its header's credential ("Basic …") and that
 * credential's part after the scheme; for Basic, the decoded `user:password` and the password
 * (the raw token a remote may quote back).
 */
function secretsOf(value: string): string[] {
  const credential = value.replace(/^[^:]*:\s*/, '');
  const encoded = value.replace(/^[^:]*:\s*\S+\s+/, '');
  const out = [value, credential, encoded];
  if (/^basic$/i.test(credential.split(/\s+/)[0] ?? '')) {
    const pair = Buffer.from(encoded, 'base64').toString('utf8');
    out.push(pair, pair.slice(pair.indexOf(':') + 1));
  }
  return out;
}

/**
 * `text` (git's or a remote's words) safe to show: terminal control removed (a remote's escape
 * sequences never reach our stderr) and every form (redactSecrets) of every secret value and
 * its credential replaced (remoteText, shared with the forge side).
 */
function redact(text: string, settings: GitSettings): string {
  return remoteText(
    text,
    (settings.secretConfig ?? []).flatMap(([, value]) => secretsOf(value)),
  );
}

/**
 * Options before every subcommand: they win over every config file git still reads (a
 * repository's own, which a `mirror=PATH` brings), so nothing in any config runs a program of
 * its choosing or changes what we parse. Hooks never run (a mirror is data, never code of ours
 * to execute); no signature is verified (gpg.program would run); no fsmonitor daemon, pager,
 * password prompt or credential helper; commit text is printed in UTF-8; and HTTP never follows
 * a redirect, so the token configured for a host is never sent to another one.
 */
const ISOLATING_ARGS: readonly string[] = [
  '--no-pager',
  ...[
    'core.hooksPath=/dev/null',
    'core.fsmonitor=false',
    'core.askPass=',
    'credential.helper=',
    'log.showSignature=false',
    'gpg.program=false',
    'gpg.openpgp.program=false',
    'gpg.x509.program=false',
    'gpg.ssh.program=false',
    'gpg.ssh.defaultKeyCommand=false',
    'i18n.logOutputEncoding=UTF-8',
    'log.mailmap=false',
    'core.pager=cat',
    'http.followRedirects=false',
  ].flatMap((kv) => ['-c', kv]),
];

// git before 2.44 has no GIT_NO_LAZY_FETCH: refusing every transport makes a lazy fetch fail at once.
const NO_LAZY_FETCH_ARGS = ['-c', 'protocol.allow=never'];

// Options a subcommand takes that config would otherwise decide.
const SUBCOMMAND_ARGS: Readonly<Record<string, readonly string[]>> = {
  log: ['--no-show-signature', '--no-mailmap'],
};

/** Where the subcommand is in `args` (after any `-c key=value`), or -1. */
function subcommandAt(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-c') i++;
    else if (!args[i]!.startsWith('-')) return i;
  }
  return -1;
}

/** git's whole argv for `call`: the only place it is built (startGit is the only spawn of git). */
function gitArgv(call: GitCall): string[] {
  const at = subcommandAt(call.args);
  const sub = at >= 0 ? (SUBCOMMAND_ARGS[call.args[at]!] ?? []) : [];
  const args =
    at >= 0 ? [...call.args.slice(0, at + 1), ...sub, ...call.args.slice(at + 1)] : [...call.args];
  return [
    ...ISOLATING_ARGS,
    ...(call.noLazyFetch ? NO_LAZY_FETCH_ARGS : []),
    ...(call.gitDir ? ['--git-dir', call.gitDir] : []),
    ...args,
  ];
}

export function startGit(call: GitCall): GitChild {
  const args = gitArgv(call);
  const env = gitEnvironment(call.settings);
  if (call.noLazyFetch) env.GIT_NO_LAZY_FETCH = '1';
  // A process group of its own: a timeout kills git's helpers (git-remote-https) too.
  const child: ChildProcess = spawn('git', args, {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => {
    if (stderr.length < 16_384) stderr += c;
  });
  let timedOut = false;
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, call.settings.timeoutMs);
  // A reader that stops early (or git that ends before reading all of stdin) is no failure of its own.
  child.stdin!.on('error', () => {});
  const what = `git ${call.args[subcommandAt(call.args)] ?? call.args[0]}`;
  const done = new Promise<void>((ok, fail) => {
    child.on('error', (err) => {
      clearTimeout(timer);
      fail(
        new GitError(
          `${what} could not start (${(err as NodeJS.ErrnoException).code ?? err.message}); install git`,
          '',
          false,
        ),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return ok();
      const said = redact(stderr.trim(), call.settings);
      if (timedOut)
        return fail(
          new GitError(
            `${what} timed out after ${Math.round(call.settings.timeoutMs / 1000)} s`,
            said,
            true,
          ),
        );
      const last = causeOf(said);
      // http.followRedirects=false: git names the status only; say why and what to do.
      const redirect = /returned error: 3\d\d/.test(said)
        ? '; the remote answered with a redirect, which a scan never follows (a token stays with its host): list the URL it redirects to'
        : '';
      fail(
        new GitError(
          `${what} failed (${signal ?? `exit ${code}`})${last ? `: ${last}` : ''}${redirect}`,
          said,
          false,
        ),
      );
    });
  });
  return { stdout: child.stdout!, stdin: child.stdin!, done, kill: killGroup };
}

/**
 * The lines of git's stderr that say what went wrong: those git marks `fatal:`, `error:` (also
 * from the remote) and ssh's own `ssh:` ones, at most four of 300 characters each; git's advice
 * after them ("Please make sure you have the correct access rights") is left out. Without such
 * a line, the last two lines. `stderr` has its secrets removed already.
 */
function causeOf(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const marked = lines.filter((l) => /^(remote: )?(fatal|error|ssh):/i.test(l));
  const clip = (l: string) => (l.length > 300 ? `${l.slice(0, 297)}...` : l);
  return (marked.length > 0 ? marked.slice(0, 4) : lines.slice(-2)).map(clip).join('; ');
}

/** Runs git to its end and returns what it printed (for short outputs). */
export async function runGit(call: GitCall, input?: string): Promise<string> {
  const child = startGit(call);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.stdin.end(input ?? '');
  await child.done;
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Runs git and hands each NUL- (or newline-) terminated record of its output to `onRecord` as
 * it arrives, so a history of any length is read in constant memory beyond what `onRecord` keeps.
 */
export async function streamGitRecords(
  call: GitCall,
  separator: 0 | 10,
  onRecord: (record: string) => void,
): Promise<void> {
  const child = startGit(call);
  child.stdin.end();
  const pending = new ByteQueue();
  let failure: unknown;
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    pending.push(chunk);
    for (let end = pending.indexOf(separator); end >= 0; end = pending.indexOf(separator)) {
      const record = pending.take(end + 1);
      try {
        if (failure === undefined) onRecord(record.toString('utf8', 0, end));
      } catch (err) {
        failure = err;
        child.kill();
      }
    }
  }
  await child.done.catch((err: unknown) => {
    if (failure === undefined) throw err;
  });
  if (failure !== undefined) throw failure;
  if (pending.length > 0) onRecord(pending.take(pending.length).toString('utf8'));
}
