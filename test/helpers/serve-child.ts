// A `badgepress serve` child process, started with any command line (compiled CLI, npx in an
// install), and the base URL it prints once it listens.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface ServeChild {
  child: ChildProcess;
  /** http://host:port, from the line serve prints. */
  url: string;
  /** SIGTERM, then the exit code (serve ends 0 on a signal). */
  stop(): Promise<number | null>;
}

/** `ready` finds the base URL in what the child prints: serve's line by default. */
export function startServeChild(
  command: string,
  args: string[],
  opts: SpawnOptions,
  ready = /at (http:\/\/\S+?)\/api\/v1\/repositories\//,
): Promise<ServeChild> {
  return new Promise((ok, fail) => {
    const child = spawn(command, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const stop = async () => {
      // detached: the child leads a process group (npx → sh → node); the signal goes to all of it.
      if (child.exitCode === null && child.signalCode === null) {
        if (opts.detached && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
        else child.kill('SIGTERM');
      }
      return exited;
    };
    const collect = (c: Buffer) => {
      out += c.toString();
      const m = ready.exec(out);
      if (m) ok({ child, url: m[1]!, stop });
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', fail);
    void exited.then((code) => fail(new Error(`serve exited ${code} before listening: ${out}`)));
  });
}
