// `badgepress serve` as a user runs it: the cache ages of the config the build used reach
// serve's answers, and a --dir that is not a directory is refused up front.
import { request } from 'node:http';
import { join } from 'node:path';
import { readdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, runCli } from './helpers/cli.ts';
import { startServeChild, type ServeChild } from './helpers/serve-child.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const WIDGET = encodeURIComponent('https://github.com/acme/widget');
const children: ServeChild[] = [];
afterAll(async () => {
  for (const child of children) await child.stop();
});

/** Starts serve and resolves with the base URL it prints. */
async function startServe(args: string[]): Promise<string> {
  const serving = await startServeChild(CLI[0], [...CLI.slice(1), 'serve', ...args], {
    cwd: ROOT,
    env: { ...process.env, CI: 'true' },
  });
  children.push(serving);
  return serving.url;
}

function headers(url: string): Promise<{ status: number; cacheControl: string | undefined }> {
  return new Promise((ok, fail) => {
    request(url, { method: 'HEAD' }, (res) => {
      res.resume();
      ok({ status: res.statusCode ?? 0, cacheControl: res.headers['cache-control'] });
    })
      .on('error', fail)
      .end();
  });
}

describe('badgepress serve', () => {
  it('answers with the cache ages of --config (latest and per-time files, redirects, assets)', async () => {
    const cfg = join(dir, 'site.yaml');
    writeFileSync(cfg, 'cache:\n  latestMaxAge: 60\n  immutableMaxAge: 600\n');
    const out = join(dir, 'site');
    expect(
      runCli([
        'build',
        '--config',
        cfg,
        '--store',
        join(ROOT, 'examples/store'),
        '--out',
        out,
        '--now',
        '1764000000',
      ]).code,
    ).toBe(0);
    const base = await startServe(['--dir', out, '--port', '0', '--config', cfg]);
    const repo = `${base}/api/v1/repositories/${WIDGET}`;
    expect(await headers(`${repo}/badges/MAINTENANCE.svg`)).toEqual({
      status: 200,
      cacheControl: 'public, max-age=60',
    });
    // A time between two scans and its per-time file: a threshold change rebuilds that file, so
    // both get latestMaxAge (issue 37); only content-hashed assets are immutable.
    expect(await headers(`${repo}/sarif?timestamp=1762000001`)).toEqual({
      status: 302,
      cacheControl: 'public, max-age=60',
    });
    expect(await headers(`${repo}/at/1762000000/sarif`)).toEqual({
      status: 200,
      cacheControl: 'public, max-age=60',
    });
    const css = readdirSync(join(out, 'assets')).find((f) => /^site\.[0-9a-f]{8,64}\.css$/.test(f));
    expect(await headers(`${base}/assets/${css}`)).toEqual({
      status: 200,
      cacheControl: 'public, max-age=600, immutable',
    });
  });

  it('refuses a --dir that is a file, with exit 2', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const r = runCli(['serve', '--dir', file, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `--dir ${file}: not a directory; name the directory a build wrote (its --out)`,
    );
  });
});
