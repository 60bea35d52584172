import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve, type KeyReader } from '../src/resolver/core.ts';
import { canonicalRepositoryUrl } from '../src/model/repository-url.ts';
import { directoryReader } from '../src/resolver/adapter/node/directory-reader.ts';
import { createSiteServer } from '../src/resolver/adapter/node/server.ts';
import { conformanceSite } from './conformance/fixture.ts';
import {
  CANARY,
  LOCATION,
  linkedPath,
  plantCanaries,
  traversalPath,
} from './conformance/traversal.ts';
import { hostilePath, hostileQuery, method } from './helpers/hostile.ts';

const dir = await conformanceSite();
plantCanaries(dir);

// Random hostile paths, and paths aimed at the canaries, about one in three each.
const anyPath = fc.oneof(hostilePath, traversalPath, linkedPath);
const anyQuery = fc.oneof(hostileQuery, fc.constant('timestamp=1760000001'));

function decode(body: Uint8Array | string | null): string {
  return body === null ? '' : typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
}

describe('hostile requests to the resolver core', () => {
  const read: KeyReader = directoryReader(dir);

  it('never throw, never answer 5xx, never redirect outside the API, never leak a canary', async () => {
    await fc.assert(
      fc.asyncProperty(method, anyPath, anyQuery, async (m, path, query) => {
        const answer = await resolve({ method: m, path, query }, read);
        expect(answer.status).toBeLessThan(500);
        expect(answer.headers['cache-control']).toBeTruthy();
        if (answer.headers.location !== undefined)
          expect(answer.headers.location).toMatch(LOCATION);
        expect(decode(answer.body)).not.toContain(CANARY);
      }),
      { numRuns: 4000 },
    );
  });

  it('every Location is the canonical key path of the repository asked for', async () => {
    const index = async () => ({
      body: JSON.stringify({ repositoryUrl: '', timestamps: [0], badges: [] }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.webUrl({ withQueryParameters: false, withFragments: false }),
        fc.boolean(),
        fc.integer({ min: 0, max: 2 ** 40 }),
        async (url, encoded, t) => {
          const path = `/api/v1/repositories/${encoded ? encodeURIComponent(url) : url}/sarif`;
          const answer = await resolve({ method: 'GET', path, query: `timestamp=${t}` }, index);
          const c = canonicalRepositoryUrl(url);
          if (!c.ok) {
            expect(answer.status).toBe(400);
            return;
          }
          expect(answer.status).toBe(302);
          expect(answer.headers.location).toBe(`/api/v1/repositories/${c.encoded}/at/0/sarif`);
          expect(answer.headers.location).toMatch(LOCATION);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('hostile requests to badgepress serve over a socket', () => {
  const server = createSiteServer(dir);
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    await new Promise<void>((ok) => server.close(() => ok()));
  });

  function send(
    m: string,
    raw: string,
  ): Promise<{ status: number; location?: string; body: string }> {
    return new Promise((ok, fail) => {
      const r = request({ host: '127.0.0.1', port, method: m, path: raw, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          ok({
            status: res.statusCode ?? 0,
            ...(res.headers.location ? { location: res.headers.location } : {}),
            body: Buffer.concat(chunks).toString(),
          }),
        );
      });
      r.on('error', fail);
      r.end();
    });
  }

  it('holds the same properties for thousands of raw paths', async () => {
    // Node's client refuses control characters in a path; everything else goes out raw.
    const printable = anyPath.map((p) =>
      p.replace(/[\u0000-\u0020\u007f-\uffff]/g, (c) => encodeURIComponent(c).replace(/%/g, '%25')),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'HEAD', 'POST'),
        printable,
        anyQuery,
        async (m, path, query) => {
          const answer = await send(
            m,
            query ? `${path}?${query.replace(/[^\x21-\x7e]/g, '')}` : path,
          );
          expect(answer.status).toBeGreaterThanOrEqual(200);
          expect(answer.status).toBeLessThan(500);
          if (answer.location !== undefined) expect(answer.location).toMatch(LOCATION);
          expect(answer.body).not.toContain(CANARY);
        },
      ),
      { numRuns: 2500 },
    );
  });

  it('dot segments and links never reach a file outside the directory', async () => {
    const raws = [
      '/../x/sarif',
      '/api/v1/repositories/../../../../x/sarif',
      '/api/v1/repositories/../../../../x/index.json',
      '/api/v1/repositories/../../../../x/badges/MAINTENANCE.svg',
      '/api/v1/repositories/../../../../x/badges/MAINTENANCE.svg?timestamp=1760000001',
      '/api/v1/repositories/..%2f..%2f..%2f..%2fx/sarif',
      '/api/v1/repositories/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fx/badges/MAINTENANCE.svg',
      '/api/v1/repositories/https%3A%2F%2Fh.org%2F..%2F..%2F..%2F..%2F..%2Fx/sarif',
      ...fc.sample(linkedPath, 30),
    ];
    for (const raw of raws) {
      const a = await send('GET', raw);
      expect(a.status, raw).toBeGreaterThanOrEqual(400);
      expect(a.status, raw).toBeLessThan(500);
      expect(a.body, raw).not.toContain(CANARY);
    }
  });
});
