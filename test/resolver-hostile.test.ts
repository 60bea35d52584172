import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve, type KeyReader } from '../src/resolver/core.ts';
import { directoryReader } from '../src/resolver/adapter/node/directory-reader.ts';
import { createSiteServer } from '../src/resolver/adapter/node/server.ts';
import { conformanceSite, WIDGET } from './conformance/fixture.ts';
import { hostilePath, hostileQuery, method } from './helpers/hostile.ts';

const dir = await conformanceSite();
// A canary beside the served directory: no request may ever return it.
const CANARY = 'CANARY-7f3a9c outside the site';
writeFileSync(join(dirname(dir), 'secret.txt'), CANARY);
writeFileSync(join(dir, 'secret.txt'), CANARY);

function decode(body: Uint8Array | string | null): string {
  return body === null ? '' : typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
}

describe('hostile requests to the resolver core', () => {
  const read: KeyReader = directoryReader(dir);

  it('never throw, never answer 5xx, never redirect outside the API, never leak the canary', async () => {
    await fc.assert(
      fc.asyncProperty(method, hostilePath, hostileQuery, async (m, path, query) => {
        const answer = await resolve({ method: m, path, query }, read);
        expect(answer.status).toBeLessThan(500);
        expect(answer.headers['cache-control']).toBeTruthy();
        if (answer.headers.location !== undefined) expect(answer.headers.location).toMatch(/^\/api\/v1\/repositories\/[^/]+\/at\/\d+\//);
        expect(decode(answer.body)).not.toContain(CANARY);
      }),
      { numRuns: 4000 },
    );
  });

  it('every Location is a canonical key path (no dot segments, no raw slashes in the repository)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.webUrl({ withQueryParameters: false, withFragments: false }), fc.integer({ min: 0, max: 2 ** 40 }), async (url, t) => {
        const answer = await resolve({ method: 'GET', path: `/api/v1/repositories/${encodeURIComponent(url)}/sarif`, query: `timestamp=${t}` }, async () => ({
          body: JSON.stringify({ repositoryUrl: url, timestamps: [0], badges: [] }),
        }));
        expect(answer.status).toBeLessThan(500);
        if (answer.headers.location) {
          const seg = answer.headers.location.split('/')[4]!;
          expect(seg).not.toMatch(/[/?#]|^\.\.?$/);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('hostile requests to badgepress serve over a socket', () => {
  const server = createSiteServer(dir);
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  function send(m: string, raw: string): Promise<{ status: number; location?: string; body: string }> {
    return new Promise((ok, fail) => {
      const r = request({ host: '127.0.0.1', port, method: m, path: raw }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => ok({ status: res.statusCode ?? 0, ...(res.headers.location ? { location: res.headers.location } : {}), body: Buffer.concat(chunks).toString() }));
      });
      r.on('error', fail);
      r.end();
    });
  }

  it('holds the same properties for hundreds of raw paths', async () => {
    // Node's client refuses control characters in a path; everything else goes out raw.
    const printable = hostilePath.map((p) => p.replace(/[\u0000-\u0020\u007f-\uffff]/g, (c) => encodeURIComponent(c).replace(/%/g, '%25')));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'HEAD', 'POST'), printable, hostileQuery, async (m, path, query) => {
        const answer = await send(m, query ? `${path}?${query.replace(/[^\x21-\x7e]/g, '')}` : path);
        expect(answer.status).toBeGreaterThanOrEqual(200);
        expect(answer.status).toBeLessThan(500);
        if (answer.location !== undefined) expect(answer.location.startsWith('/api/v1/repositories/')).toBe(true);
        expect(answer.body).not.toContain(CANARY);
      }),
      { numRuns: 400 },
    );
  });

  it('dot segments never reach a file outside the directory', async () => {
    for (const raw of ['/../secret.txt', '/api/v1/repositories/../../secret.txt', '/api/v1/repositories/..%2f..%2fsecret.txt/sarif', '/api/v1/repositories/%2e%2e%2f%2e%2e%2fsecret.txt/badges/X.svg', '/secret.txt', '/api/v1/repositories/https%3A%2F%2Fh.org%2F..%2F..%2F..%2Fsecret.txt/sarif']) {
      const a = await send('GET', raw);
      expect(a.status, raw).toBeGreaterThanOrEqual(400);
      expect(a.status, raw).toBeLessThan(500);
      expect(a.body).not.toContain(CANARY);
    }
  });
});
