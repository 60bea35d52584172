// `badgepress serve`: serve a built directory with the same resolver the edge runs.
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createSiteServer } from '../resolver/adapter/node/server.ts';
import { integerFlag, parseFlags, UsageError } from './args.ts';

export const SERVE_USAGE = 'usage: badgepress serve [--dir DIR] [--port N] [--host 127.0.0.1]';

export interface Serving {
  url: string;
  close(): Promise<void>;
}

/** `busyHint`: what to do when the port is taken, in the words of the command that asked. */
export async function startServing(dir: string, port: number, host: string, busyHint = 'pick another port'): Promise<Serving> {
  if (!existsSync(dir)) throw new UsageError(`--dir ${dir}: no such directory; run "badgepress build --out ${dir}" first`);
  const server = createSiteServer(dir);
  await new Promise<void>((ok, fail) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      fail(err.code === 'EADDRINUSE' ? new UsageError(`--port ${port}: already in use; ${busyHint}`) : err),
    );
    server.listen(port, host, ok);
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shownHost}:${addr.port}`,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { dir: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } }, SERVE_USAGE);
  const dir = values.dir ?? 'dist';
  const serving = await startServing(dir, integerFlag('port', values.port, 0, 65535) ?? 8787, values.host ?? '127.0.0.1');
  process.stdout.write(`badgepress: serving ${dir} at ${serving.url}/api/v1/repositories/ (Ctrl+C stops)\n`);
  await waitForSignal();
  await serving.close();
  return 0;
}

export function waitForSignal(): Promise<void> {
  return new Promise((ok) => {
    process.once('SIGINT', () => ok());
    process.once('SIGTERM', () => ok());
  });
}
