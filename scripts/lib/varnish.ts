// Debian's varnish started on 127.0.0.1 in front of a backend with its default configuration
// (the built-in VCL, `-b` naming the backend): a standard shared HTTP cache, as a CDN or
// GitHub's image proxy is one. Its own working directory: no root config, no system paths.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, untilAnswering } from './nginx.ts';

/** The varnishd binary on PATH or in /usr/sbin, or undefined. */
export function varnishBinary(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v varnishd || ls /usr/sbin/varnishd'], {
    encoding: 'utf8',
  })
    .stdout.trim()
    .split('\n')[0];
  return found ? found : undefined;
}

export interface RunningVarnish {
  port: number;
  stop(): Promise<void>;
}

/** Starts varnishd in the foreground before `backendPort`; resolves once it answers. */
export async function startVarnish(backendPort: number): Promise<RunningVarnish> {
  const varnishd = varnishBinary();
  if (!varnishd)
    throw new Error('varnish is not installed: apt-get install -y varnish (.ci/run does)');
  const dir = mkdtempSync(join(tmpdir(), 'badgepress-varnish-'));
  const port = await freePort();
  const args = [
    '-F',
    '-n',
    join(dir, 'n'),
    '-a',
    `127.0.0.1:${port}`,
    '-b',
    `127.0.0.1:${backendPort}`,
    '-s',
    'malloc,16m',
  ];
  const child = spawn(varnishd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const s of [child.stdout, child.stderr])
    s.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  await untilAnswering(port, child, () => `varnishd: ${output}`);
  return {
    port,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
