// Shape A's expireAfterDays: latest files expire exactly at the boundary, per-time files keep
// their status beside an expired variant, and serve's ?timestamp= answers the same.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSiteServer } from '../src/resolver/adapter/node/server.ts';
import { runCli } from './helpers/cli.ts';
import { buildSite } from './helpers/site.ts';
import { expectEverySarifValid } from './helpers/sarif.ts';
import { AGING_TS, agingStore } from './helpers/aging-store.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const { store: exStore, config: expiryConfig } = agingStore(dir);
const TS = AGING_TS;

describe('expiry (Shape A, expireAfterDays)', () => {
  const config = expiryConfig;
  const enc = encodeURIComponent('https://github.com/acme/aging');
  const badgeOf = (out: string, key: string) =>
    JSON.parse(readFileSync(join(out, `api/v1/repositories/${enc}/${key}`), 'utf8')).badgeStatus;

  it('latest files expire exactly after expireAfterDays at --now', async () => {
    const at = join(dir, 'exp-at');
    await buildSite({ store: exStore, out: at, config: config, now: TS + 86400 });
    expect(badgeOf(at, 'badges/MAINTENANCE')).toBe('gold');
    const after = join(dir, 'exp-after');
    await buildSite({ store: exStore, out: after, config: config, now: TS + 86401 });
    expect(badgeOf(after, 'badges/MAINTENANCE')).toBe('expired');
    expect(
      readFileSync(join(after, `api/v1/repositories/${enc}/badges/MAINTENANCE.svg`), 'utf8'),
    ).toContain('MAINTENANCE: expired');
    // A one-day limit reads in the singular.
    expect(
      JSON.parse(readFileSync(join(after, `api/v1/repositories/${enc}/badges/MAINTENANCE`), 'utf8'))
        .badgeExplanation.conclusion,
    ).toContain('is more than 1 day old.');
    // per-time files never expire; their expired variants are written beside them
    expect(badgeOf(after, `at/${TS}/badges/MAINTENANCE`)).toBe('gold');
    expect(badgeOf(after, `at/${TS}/expired/badges/MAINTENANCE`)).toBe('expired');
    expect(
      JSON.parse(readFileSync(join(after, `api/v1/repositories/${enc}/index.json`), 'utf8'))
        .expireAfterSeconds,
    ).toBe(86400);
    // expired reports (latest and per-time variants) are valid SARIF too
    expectEverySarifValid(after);
  });

  it("the pages say a one-day limit in the singular: the badge's page and the repository's", () => {
    const out = join(dir, 'exp-pages');
    const r = runCli([
      'build',
      '--config',
      config,
      '--store',
      exStore,
      '--out',
      out,
      '--now',
      String(TS + 86401),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const read = (key: string) => readFileSync(join(out, key), 'utf8');
    expect(read('badges/MAINTENANCE/index.html')).toContain(
      'last scan is more than 1 day old shows',
    );
    expect(read(`repositories/${enc}/index.html`)).toContain(
      'last scan is more than 1 day old; a new scan restores it',
    );
  });

  it('?timestamp= answers expired exactly one second past the boundary, through serve', async () => {
    const out = join(dir, 'exp-serve');
    await buildSite({ store: exStore, out, config: config, now: TS });
    const server = createSiteServer(out);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as AddressInfo).port;
    const get = (path: string) =>
      new Promise<{ status: number; location?: string; body: string }>((ok, fail) => {
        request({ host: '127.0.0.1', port, path }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () =>
            ok({
              status: res.statusCode!,
              ...(res.headers.location ? { location: res.headers.location } : {}),
              body,
            }),
          );
        })
          .on('error', fail)
          .end();
      });
    try {
      const statusAt = async (t: number) => {
        const r = await get(`/api/v1/repositories/${enc}/badges/MAINTENANCE?timestamp=${t}`);
        expect(r.status).toBe(302);
        const followed = await get(r.location!);
        expect(followed.status).toBe(200);
        return JSON.parse(followed.body).badgeStatus;
      };
      expect(await statusAt(TS + 86400)).toBe('gold');
      expect(await statusAt(TS + 86401)).toBe('expired');
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });
});
