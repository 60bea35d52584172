import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Miniflare, type WorkerOptions } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from '../../scripts/build-worker.ts';
import { conformanceFailures, type Runner } from './cases.ts';
import { conformanceSites, type SiteName } from './fixture.ts';

const sites = await conformanceSites();
const script = await bundleWorker();
const SITES: SiteName[] = ['A', 'B'];
// What the README's compatibility_date (any from 2022-10-31 on) turns on: URL is the WHATWG
// parser, which writes hosts beyond ASCII in punycode as the build does.
const COMPATIBILITY_FLAGS = ['url_standard'];
// Each site is one Worker (named and routed after it) of a Miniflare instance: one workerd
// process each for the origin and the R2 set-up.
const workerName = (site: SiteName) => `site-${site.toLowerCase()}`;

// An S3-style origin over both sites (site/, site-b/): decodes the request path once and
// looks the key up literally.
const origin: Server = createServer((req, res) => {
  const path = decodeURIComponent((req.url ?? '/').split('?')[0]!).slice(1);
  try {
    const body = readFileSync(join(sites.root, path));
    res.writeHead(200, { etag: `"${body.length}"` }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});

function runner(mf: () => Miniflare): Runner {
  return async (req) => {
    // Miniflare routes a request to the Worker whose route matches its host.
    const res = await mf().dispatchFetch(
      `http://${workerName(req.site ?? 'A')}.example${req.url}`,
      {
        method: req.method,
        headers: req.headers,
        redirect: 'manual',
      },
    );
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    return { status: res.status, headers, body: await res.text() };
  };
}

let viaOrigin: Miniflare;
let viaR2: Miniflare;

beforeAll(async () => {
  await new Promise<void>((ok) => origin.listen(0, '127.0.0.1', ok));
  const port = (origin.address() as AddressInfo).port;
  const worker = (site: SiteName, more: Partial<WorkerOptions>): WorkerOptions =>
    ({
      name: workerName(site),
      routes: [`${workerName(site)}.example/*`],
      modules: true,
      script,
      compatibilityFlags: COMPATIBILITY_FLAGS,
      ...more,
    }) as WorkerOptions;
  viaOrigin = new Miniflare({
    workers: [
      worker('A', { bindings: { ORIGIN_URL: `http://127.0.0.1:${port}/site/` } }),
      worker('B', { bindings: { ORIGIN_URL: `http://127.0.0.1:${port}/site-b` } }),
    ],
  });
  viaR2 = new Miniflare({
    workers: SITES.map((site) =>
      worker(site, { r2Buckets: { BUCKET: `bucket-${workerName(site)}` } }),
    ),
  });
  for (const site of SITES) {
    const bucket = (await viaR2.getR2Bucket('BUCKET', workerName(site))) as unknown as {
      put(key: string, value: string): Promise<unknown>;
    };
    const dir = sites[site];
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const path = join(e.parentPath, e.name);
      await bucket.put(relative(dir, path).split(sep).join('/'), readFileSync(path, 'utf8'));
    }
  }
});

afterAll(async () => {
  await viaOrigin?.dispose();
  await viaR2?.dispose();
  await new Promise<void>((ok) => origin.close(() => ok()));
});

describe('the Worker in workerd conforms', () => {
  it('bundles within 10 KB', () => {
    expect(Buffer.byteLength(script)).toBeLessThanOrEqual(10 * 1024);
  });

  it('answers the conformance table from an S3-style origin, Shape A and Shape B sites', async () => {
    expect(await conformanceFailures(runner(() => viaOrigin))).toEqual([]);
  });

  it('answers the conformance table from an R2 binding, Shape A and Shape B sites', async () => {
    expect(await conformanceFailures(runner(() => viaR2))).toEqual([]);
  });
});
