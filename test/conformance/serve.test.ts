import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteServer } from '../../src/resolver/adapter/node/server.ts';
import { conformanceFailures } from './cases.ts';
import { httpRunner } from './http-runner.ts';
import { conformanceSite, WIDGET } from './fixture.ts';

const dir = await conformanceSite();
const server = createSiteServer(dir);
let port = 0;

const run = httpRunner('127.0.0.1', () => port);

beforeAll(async () => {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

describe('badgepress serve conforms', () => {
  it('answers the conformance table', async () => {
    expect(await conformanceFailures(run)).toEqual([]);
  });

  it('answers If-None-Match with 304', async () => {
    const url = `/api/v1/repositories/${WIDGET}/badges/MAINTENANCE.svg`;
    const first = await run({ method: 'GET', url });
    expect(first.headers.etag).toMatch(/^".+"$/);
    const second = await run({ method: 'GET', url, headers: { 'if-none-match': first.headers.etag! } });
    expect(second.status).toBe(304);
    expect(second.body).toBe('');
    expect(second.headers['cache-control']).toBe('public, max-age=300');
  });

  it('picks up a rebuilt index.json without a restart', async () => {
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
    expect((await run({ method: 'GET', url })).headers.location).toMatch(/at\/1761000000\/sarif$/);
    writeFileSync(`${path}.new`, original);
    renameSync(`${path}.new`, path);
  });
});
