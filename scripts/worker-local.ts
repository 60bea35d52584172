// `npm run worker:local -- --dir DIR [--config wrangler.toml] [--port N]`: the Worker as
// deployed, run here before a deploy. It loads the bundle `main` names (npm run build:worker)
// into workerd through miniflare (a dev dependency), at the wrangler.toml's
// compatibility_date and [vars], with an R2 bucket bound as BUCKET and filled from a built
// site in DIR (under KEY_PREFIX, as the site is published). Without a wrangler.toml it runs
// dist-worker/worker.js at the newest date the pinned workerd supports, with no [vars].
// No Cloudflare account or wrangler is needed; workerd refuses a compatibility_date newer
// than it supports, as Cloudflare would refuse one newer than today.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

const USAGE =
  'usage: npm run worker:local -- --dir DIR [--config FILE (default: ./wrangler.toml if there)] [--port N]';

/** The string values `name = "…"` a wrangler.toml sets at its top (table '') or in one [table]. */
export function tomlStrings(toml: string, table = ''): Record<string, string> {
  const values: Record<string, string> = {};
  let current = '';
  for (const line of toml.split('\n')) {
    const header = /^\s*\[+([^\]]+)\]+\s*(#.*)?$/.exec(line);
    if (header) current = header[1]!.trim();
    const m = /^\s*([A-Za-z_][\w-]*)\s*=\s*"([^"]*)"/.exec(line);
    if (m && current === table) values[m[1]!] = m[2]!;
  }
  return values;
}

/** What worker:local runs with when there is no wrangler.toml: the guide's, less the deploy-only keys. */
export function defaultWranglerToml(): string {
  // The newest date the pinned workerd supports: a local run has no deploy date to match.
  const { compatibilityDate } = createRequire(import.meta.url)('workerd') as {
    compatibilityDate: string;
  };
  return `main = "dist-worker/worker.js"\ncompatibility_date = "${compatibilityDate}"\n`;
}

/** A problem the user can fix (a missing file, a bad setting): said in one line, without a stack. */
export class LocalWorkerError extends Error {}

/**
 * The Worker in workerd with its bucket filled from `dir`. The bucket is filled before the
 * requested port is listened on (a first workerd on a port of its own fills it, kept in a
 * temporary directory; the runtime then restarts on the requested port), so that the port
 * answers only once every file is there: no 404 for a file still being put.
 */
export async function startLocalWorker(opts: {
  config?: string;
  dir: string;
  port: number;
}): Promise<{ url: URL; close: () => Promise<void>; config: string }> {
  const config = opts.config ?? (existsSync('wrangler.toml') ? 'wrangler.toml' : undefined);
  if (opts.config !== undefined && !existsSync(opts.config))
    throw new LocalWorkerError(
      `--config ${opts.config}: no such file (save the guide's wrangler.toml there, or leave --config out)`,
    );
  const toml = config === undefined ? defaultWranglerToml() : readFileSync(config, 'utf8');
  const shown = config ?? `no wrangler.toml here, so ${toml.trim().split('\n').join(', ')}`;
  const { main, compatibility_date: compatibilityDate } = tomlStrings(toml);
  // [vars] are the Worker's bindings as on Cloudflare (KEY_PREFIX, the cache ages).
  const vars = tomlStrings(toml, 'vars');
  if (!main || !compatibilityDate)
    throw new LocalWorkerError(
      `${config}: main and compatibility_date must be set (main = "dist-worker/worker.js")`,
    );
  const bundle = resolve(config === undefined ? '.' : dirname(config), main);
  if (!existsSync(bundle))
    throw new LocalWorkerError(
      `${bundle} (main in ${config ?? 'the default settings'}) is missing: run "npm run build:worker" first`,
    );
  if (!existsSync(opts.dir) || !statSync(opts.dir).isDirectory())
    throw new LocalWorkerError(
      `--dir ${opts.dir}: no such directory (build the site there first: npx badgepress build --out ${opts.dir})`,
    );
  const script = readFileSync(bundle, 'utf8');
  const persist = mkdtempSync(join(tmpdir(), 'badgepress-worker-local-'));
  const options = {
    modules: true,
    script,
    compatibilityDate,
    bindings: vars,
    r2Buckets: ['BUCKET'],
    r2Persist: persist,
    host: '127.0.0.1',
  };
  const mf = new Miniflare({ ...options, port: 0 });
  const close = async () => {
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  };
  try {
    await mf.ready;
    const bucket = (await mf.getR2Bucket('BUCKET')) as unknown as {
      put(key: string, value: Uint8Array): Promise<unknown>;
    };
    for (const e of readdirSync(opts.dir, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const path = join(e.parentPath, e.name);
      await bucket.put(
        (vars.KEY_PREFIX ?? '') + relative(opts.dir, path).split(sep).join('/'),
        new Uint8Array(readFileSync(path)),
      );
    }
    await mf.setOptions({ ...options, port: opts.port });
    return { url: await mf.ready, close, config: shown };
  } catch (err) {
    await close();
    throw err;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string' },
      config: { type: 'string' },
      port: { type: 'string', default: '8788' },
    },
  });
  if (!values.dir || !/^\d+$/.test(values.port!)) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  try {
    const worker = await startLocalWorker({
      config: values.config,
      dir: values.dir,
      port: Number(values.port),
    });
    process.stdout.write(
      `worker: ${worker.url.href} (workerd, the bucket filled from ${values.dir}; ${worker.config}; Ctrl+C stops)\n`,
    );
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => void worker.close().then(() => process.exit(0)));
  } catch (err) {
    if (!(err instanceof LocalWorkerError)) throw err;
    process.stderr.write(`worker:local: ${err.message}\n`);
    process.exit(2);
  }
}
