// `badgepress serve`: serve a built directory with the same resolver the edge runs.
import { existsSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createSiteServer, type SiteServerOptions } from '../resolver/adapter/node/server.ts';
import { loadSettings } from '../config/load.ts';
import { integerFlag, parseFlags } from './args.ts';
import { UsageError } from '../errors.ts';

export const SERVE_USAGE =
  'usage: badgepress serve [--dir DIR] [--port N] [--host 127.0.0.1] [--config FILE] [--max-connections N]';

export interface Serving {
  url: string;
  close(): Promise<void>;
}

/** `busyHint`: what to do when the port is taken, in the words of the command that asked. */
export async function startServing(
  dir: string,
  port: number,
  host: string,
  busyHint = 'pick another port',
  opts: SiteServerOptions = {},
): Promise<Serving> {
  if (!existsSync(dir))
    throw new UsageError(
      `--dir ${dir}: no such directory; run "badgepress build --out ${dir}" first`,
    );
  if (!statSync(dir).isDirectory())
    throw new UsageError(
      `--dir ${dir}: not a directory; name the directory a build wrote (its --out)`,
    );
  const server = createSiteServer(dir, opts);
  await new Promise<void>((ok, fail) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      fail(
        err.code === 'EADDRINUSE'
          ? new UsageError(`--port ${port}: already in use; ${busyHint}`)
          : err,
      ),
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
  const { values } = parseFlags(
    argv,
    {
      dir: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      config: { type: 'string' },
      'max-connections': { type: 'string' },
    },
    SERVE_USAGE,
  );
  const dir = values.dir ?? 'dist';
  const port = integerFlag('port', values.port, 0, 65535) ?? 8787;
  // The cache ages the build gave the files (config `cache:`) are the ones serve's own answers
  // (redirects, errors) and the files it serves carry; the config is found as build finds it.
  // The site settings alone (not resolveFlags): serve needs no thresholds, decisions or templates.
  // serve reads no store: '.' stands in for one, so a directory without a config of its own
  // (an npm install) can serve what its build wrote.
  const { cache } = await loadSettings(values.config, { store: '.' });
  // Default: the open-file limit less a reserve (see defaultMaxConnections).
  const maxConnections = integerFlag('max-connections', values['max-connections'], 1, 1_000_000);
  const serving = await startServing(dir, port, values.host ?? '127.0.0.1', 'pick another port', {
    ...cache,
    ...(maxConnections !== undefined ? { maxConnections } : {}),
  });
  process.stdout.write(
    `badgepress: serving ${dir}: pages at ${serving.url}/, API at ${serving.url}/api/v1/repositories/ (Ctrl+C stops)\n`,
  );
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
