// `npm run worker:local -- --dir DIR [--config wrangler.toml] [--port N]`: the Worker as
// deployed, run here before a deploy. It loads the bundle `main` names (npm run build:worker)
// into workerd through miniflare (a dev dependency), at the wrangler.toml's
// compatibility_date and [vars], with an R2 bucket bound as BUCKET and filled from a built
// site in DIR (under KEY_PREFIX, as the site is published).
// No Cloudflare account or wrangler is needed; workerd refuses a compatibility_date newer
// than it supports, as Cloudflare would refuse one newer than today.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

const USAGE = 'usage: npm run worker:local -- --dir DIR [--config wrangler.toml] [--port N]';

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

export async function startLocalWorker(opts: { config: string; dir: string; port: number }): Promise<{ url: URL; close: () => Promise<void> }> {
  const toml = readFileSync(opts.config, 'utf8');
  const { main, compatibility_date: compatibilityDate } = tomlStrings(toml);
  // [vars] are the Worker's bindings as on Cloudflare (KEY_PREFIX, the cache ages).
  const vars = tomlStrings(toml, 'vars');
  if (!main || !compatibilityDate) throw new Error(`${opts.config}: main and compatibility_date must be set (main = "dist-worker/worker.js")`);
  const script = readFileSync(resolve(dirname(opts.config), main), 'utf8');
  const mf = new Miniflare({ modules: true, script, compatibilityDate, bindings: vars, r2Buckets: ['BUCKET'], host: '127.0.0.1', port: opts.port });
  const url = await mf.ready;
  const bucket = (await mf.getR2Bucket('BUCKET')) as unknown as { put(key: string, value: Uint8Array): Promise<unknown> };
  for (const e of readdirSync(opts.dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    await bucket.put((vars.KEY_PREFIX ?? '') + relative(opts.dir, path).split(sep).join('/'), new Uint8Array(readFileSync(path)));
  }
  return { url, close: () => mf.dispose() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { dir: { type: 'string' }, config: { type: 'string', default: 'wrangler.toml' }, port: { type: 'string', default: '8788' } } });
  if (!values.dir || !/^\d+$/.test(values.port!)) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const worker = await startLocalWorker({ config: values.config!, dir: values.dir, port: Number(values.port) });
  process.stdout.write(`worker: ${worker.url.href} (workerd, the bucket filled from ${values.dir}; Ctrl+C stops)\n`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void worker.close().then(() => process.exit(0)));
}
