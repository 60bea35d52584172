import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from '../../scripts/build-worker.ts';
import { conformanceFailures, type Runner } from './cases.ts';
import { conformanceSite } from './fixture.ts';

const dir = await conformanceSite();
const script = await bundleWorker();

// An S3-style origin: decodes the request path once and looks the key up literally.
const origin: Server = createServer((req, res) => {
  const path = decodeURIComponent((req.url ?? '/').split('?')[0]!).slice(1);
  try {
    const body = readFileSync(join(dir, path));
    res.writeHead(200, { etag: `"${body.length}"` }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});

function runner(mf: () => Miniflare): Runner {
  return async (req) => {
    const res = await mf().dispatchFetch(`http://badges.example${req.url}`, { method: req.method, headers: req.headers, redirect: 'manual' });
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
  viaOrigin = new Miniflare({ modules: true, script, bindings: { ORIGIN_URL: `http://127.0.0.1:${port}/` } });
  viaR2 = new Miniflare({ modules: true, script, r2Buckets: ['BUCKET'] });
  const bucket = (await viaR2.getR2Bucket('BUCKET')) as unknown as { put(key: string, value: string): Promise<unknown> };
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    await bucket.put(relative(dir, path).split(sep).join('/'), readFileSync(path, 'utf8'));
  }
}, 60_000);

afterAll(async () => {
  await viaOrigin?.dispose();
  await viaR2?.dispose();
  await new Promise<void>((ok) => origin.close(() => ok()));
});

describe('the Worker in workerd conforms', () => {
  it('bundles within 10 KB', () => {
    expect(Buffer.byteLength(script)).toBeLessThanOrEqual(10 * 1024);
  });

  it('answers the conformance table from an S3-style origin', async () => {
    expect(await conformanceFailures(runner(() => viaOrigin))).toEqual([]);
  });

  it('answers the conformance table from an R2 binding', async () => {
    expect(await conformanceFailures(runner(() => viaR2))).toEqual([]);
  });
});
