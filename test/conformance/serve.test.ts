import { listenLocal, closeServer } from '../../scripts/lib/listen.ts';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createSiteServer } from '../../src/resolver/adapter/node/server.ts';
import { conformanceFailures, type Runner } from './cases.ts';
import { httpRunner } from './http-runner.ts';
import { conformanceSites, WIDGET } from './fixture.ts';

const sites = await conformanceSites();
const dir = sites.A;
// The reader's clock, moved by hand: a held file is trusted for a second, then asked again.
let clock = 0;
const server = createSiteServer(dir, { now: () => clock });
const serverB = createSiteServer(sites.B);
let port = 0;
let portB = 0;

const runA = httpRunner('127.0.0.1', () => port);
const runB = httpRunner('127.0.0.1', () => portB);
const run: Runner = (req) => (req.site === 'B' ? runB : runA)(req);

beforeAll(async () => {
  port = await listenLocal(server);
  portB = await listenLocal(serverB);
});
afterAll(async () => {
  await closeServer(server);
  await closeServer(serverB);
});

describe('badgepress serve conforms', () => {
  it('answers the conformance table, Shape A and Shape B sites', async () => {
    expect(await conformanceFailures(run)).toEqual([]);
  });

  it('answers the conformance table again, from the answers it holds', async () => {
    // serve writes a held route's answer again while its file or index is unchanged: every
    // GET and HEAD of the table has now been asked once, so this pass takes that way.
    expect(await conformanceFailures(run)).toEqual([]);
  });

  it('serves a replaced file with its own bytes and headers, once the held copy is a second old', async () => {
    const { readFileSync, writeFileSync, renameSync } = await import('node:fs');
    const { join } = await import('node:path');
    const url = `/api/v1/repositories/${WIDGET}/badges/MAINTENANCE.svg`;
    const path = join(dir, 'api/v1/repositories', WIDGET, 'badges/MAINTENANCE.svg');
    const original = readFileSync(path);
    for (let i = 0; i < 2; i++)
      expect((await run({ method: 'GET', url })).body).toBe(original.toString());
    const replaced = original
      .toString()
      .replace(/<title>[^<]*<\/title>/, '<title>replaced, and longer than before</title>');
    writeFileSync(`${path}.new`, replaced);
    renameSync(`${path}.new`, path);
    clock += 1000;
    try {
      for (let i = 0; i < 2; i++) {
        const get = await run({ method: 'GET', url });
        expect(get.body).toBe(replaced);
        expect(get.headers['content-length']).toBe(String(Buffer.byteLength(replaced)));
        const head = await run({ method: 'HEAD', url });
        expect(head.body).toBe('');
        expect(head.headers['content-length']).toBe(String(Buffer.byteLength(replaced)));
        expect(head.headers.etag).toBe(get.headers.etag);
      }
    } finally {
      writeFileSync(`${path}.new`, original);
      renameSync(`${path}.new`, path);
      clock += 1000;
    }
    expect((await run({ method: 'GET', url })).body).toBe(original.toString());
  });

  it('answers a ?timestamp= miss the same every time: the 404 page to a browser, problem+json to an API client', async () => {
    // A route of its own (no other test asks it), so its first answer is not held yet.
    const url = `/api/v1/repositories/${WIDGET}/badges/SECURITY?timestamp=1759999998`;
    const browser = { accept: 'text/html,application/xhtml+xml' };
    // The fixture is built without pages: the site's 404 page, as a build with pages writes one.
    const { writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    writeFileSync(join(dir, '404.html'), '<!doctype html><title>Not found</title>');
    onTestFinished(() => rmSync(join(dir, '404.html')));
    for (let i = 0; i < 3; i++) {
      const page = await run({ method: 'GET', url, headers: browser });
      expect([i, page.status, page.headers['content-type']]).toEqual([
        i,
        404,
        'text/html; charset=utf-8',
      ]);
      expect(page.body).toMatch(/<!doctype html>/i);
      const api = await run({ method: 'GET', url });
      expect([i, api.status, api.headers['content-type']]).toEqual([
        i,
        404,
        'application/problem+json',
      ]);
    }
  });

  it('answers If-None-Match with 304', async () => {
    const url = `/api/v1/repositories/${WIDGET}/badges/MAINTENANCE.svg`;
    const first = await run({ method: 'GET', url });
    expect(first.headers.etag).toMatch(/^".+"$/);
    const second = await run({
      method: 'GET',
      url,
      headers: { 'if-none-match': first.headers.etag! },
    });
    expect(second.status).toBe(304);
    expect(second.body).toBe('');
    expect(second.headers['cache-control']).toBe('public, max-age=300');
  });

  it('frames a redirect with Content-Length: 0, not chunked (a chunked end waits on a delayed ACK)', async () => {
    const a = await run({
      method: 'GET',
      url: `/api/v1/repositories/${WIDGET}/sarif?timestamp=1762000001`,
    });
    expect(a.status).toBe(302);
    expect(a.headers['content-length']).toBe('0');
    expect(a.headers['transfer-encoding']).toBeUndefined();
  });

  it('picks up a rebuilt index.json without a restart, once the held copy is a second old', async () => {
    const { readFileSync, writeFileSync, renameSync } = await import('node:fs');
    const { join } = await import('node:path');
    const url = `/api/v1/repositories/${WIDGET}/sarif?timestamp=1800000000`;
    expect((await run({ method: 'GET', url })).headers.location).toMatch(/at\/1763596800\/sarif$/);
    const path = join(dir, 'api/v1/repositories', WIDGET, 'index.json');
    const index = JSON.parse(readFileSync(path, 'utf8'));
    const original = JSON.stringify(index);
    index.timestamps = index.timestamps.slice(0, 2);
    writeFileSync(`${path}.new`, JSON.stringify(index));
    renameSync(`${path}.new`, path);
    clock += 999;
    expect((await run({ method: 'GET', url })).headers.location).toMatch(/at\/1763596800\/sarif$/);
    clock += 1;
    expect((await run({ method: 'GET', url })).headers.location).toMatch(/at\/1761000000\/sarif$/);
    writeFileSync(`${path}.new`, original);
    renameSync(`${path}.new`, path);
    clock += 1000;
    expect((await run({ method: 'GET', url })).headers.location).toMatch(/at\/1763596800\/sarif$/);
  });

  it('stops serving a file a rebuild removed, once the held copy is a second old', async () => {
    const { readFileSync, writeFileSync, renameSync, unlinkSync } = await import('node:fs');
    const { join } = await import('node:path');
    const url = `/api/v1/repositories/${WIDGET}/badges/MAINTENANCE`;
    expect((await run({ method: 'GET', url })).status).toBe(200);
    const path = join(dir, 'api/v1/repositories', WIDGET, 'badges/MAINTENANCE');
    const original = readFileSync(path);
    unlinkSync(path);
    expect((await run({ method: 'GET', url })).status).toBe(200);
    clock += 1000;
    expect((await run({ method: 'GET', url })).status).toBe(404);
    writeFileSync(`${path}.new`, original);
    renameSync(`${path}.new`, path);
    expect((await run({ method: 'GET', url })).status).toBe(200);
  });
});

describe('badgepress serve on a Shape B site', () => {
  it('serves every Shape B badge id, latest and through ?timestamp=', async () => {
    const repo = `/api/v1/repositories/${WIDGET}`;
    for (const id of ['MAINTAINED', 'REUSED', 'DIN-SPEC-XXXX', 'OPEN-SOURCE']) {
      const svg = await runB({ method: 'GET', url: `${repo}/badges/${id}.svg` });
      expect(svg.status, id).toBe(200);
      expect(svg.headers['content-type']).toBe('image/svg+xml');
      const explanation = await runB({ method: 'GET', url: `${repo}/badges/${id}` });
      expect(JSON.parse(explanation.body).badgeId).toBe(id);
      const redirect = await runB({
        method: 'GET',
        url: `${repo}/badges/${id}.svg?timestamp=1900000000`,
      });
      expect(redirect.status, id).toBe(302);
      expect((await runB({ method: 'GET', url: redirect.headers.location! })).status).toBe(200);
    }
  });
});
