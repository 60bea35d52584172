// Issue 37: a threshold change reaches every cached answer. Through real shared caches that
// follow HTTP's rules (varnish with its default configuration, nginx's proxy cache with no
// age directives) in front of serve: after a band edit and a rebuild, every URL (latest,
// ?timestamp=, per-time; badge image, explanation, SARIF) answers the new judgement once
// cache.latestMaxAge and one stale-while-revalidate refetch (varnish's default grace) passed.
import { createServer, type Server } from 'node:http';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteServer } from '../../src/resolver/adapter/node/server.ts';
import { closeServer, listenLocal } from '../../scripts/lib/listen.ts';
import { nginxBinary, startNginxProxyCache, type RunningNginx } from '../../scripts/lib/nginx.ts';
import { startVarnish, varnishBinary, type RunningVarnish } from '../../scripts/lib/varnish.ts';
import { thresholdsVariant } from '../../scripts/lib/thresholds-variant.ts';
import { buildSite } from '../helpers/site.ts';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { WIDGET } from './fixture.ts';

// Without them this file is skipped on a workstation, and fails in CI (.ci/run installs both).
const available =
  (varnishBinary() !== undefined && nginxBinary() !== undefined) || process.env.CI === 'true';

const MAX_AGE = 2;
// REUSED counts dependents; acme/widget has 4 at 1762000000 and 19 at its last scan.
const BANDS =
  '{ min: 1, max: 4, status: bronze }\n      - { min: 5, max: 19, status: silver }\n      - { min: 20, max: null, status: gold }';
const EDITED =
  '{ min: 1, max: 3, status: bronze }\n      - { min: 4, max: 18, status: silver }\n      - { min: 19, max: null, status: gold }';

const base = `/api/v1/repositories/${WIDGET}`;
// Worked out by hand from examples/store/acme-widget.ndjson and the bands above: the latest
// scan's 19 dependents go silver → gold; 1762000000's 4 (and ?timestamp= between it and the
// next scan) go bronze → silver.
const URLS: Array<{ url: string; before: string; after: string }> = [];
for (const file of ['badges/REUSED', 'badges/REUSED.svg', 'sarif']) {
  URLS.push({ url: `${base}/${file}`, before: 'silver', after: 'gold' });
  URLS.push({ url: `${base}/${file}?timestamp=1762500000`, before: 'bronze', after: 'silver' });
  URLS.push({ url: `${base}/at/1762000000/${file}`, before: 'bronze', after: 'silver' });
}

/** REUSED's status as the answer says it: the image's label, the explanation's or the report's badge. */
function judgement(url: string, body: string): string {
  if (url.includes('.svg'))
    return /aria-label="REUSED: (\w+)"/.exec(body)?.[1] ?? `no label in ${body.slice(0, 80)}`;
  const json = JSON.parse(body);
  if (url.includes('/sarif'))
    return json.runs[0].properties.badges.find((b: { badgeId: string }) => b.badgeId === 'REUSED')
      .badgeStatus;
  return json.badgeStatus;
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe.runIf(available)('a threshold change through shared HTTP caches', () => {
  const dir = tempDir('badgepress-http-cache-');
  const site = join(dir, 'site');
  const configDir = join(dir, 'config');
  const seen: string[] = [];
  let serve: Server;
  const caches: Array<{ name: string; port: number; stop(): Promise<void> }> = [];

  /** The packaged thresholds with `bands` for REUSED, and a short latestMaxAge. */
  const config = (bands: string) => {
    const file = thresholdsVariant(configDir, BANDS, bands);
    appendFileSync(file, `cache:\n  latestMaxAge: ${MAX_AGE}\n`);
    return file;
  };
  const build = (bands: string) =>
    buildSite({
      config: config(bands),
      store: join(ROOT, 'examples/store'),
      out: site,
      include: (u) => u === 'https://github.com/acme/widget',
    });

  beforeAll(async () => {
    await build(BANDS);
    // serve behind a recorder: which requests the caches passed on.
    const upstream = createSiteServer(site, { latestMaxAge: MAX_AGE });
    serve = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      upstream.emit('request', req, res);
    });
    const port = await listenLocal(serve);
    const varnish: RunningVarnish = await startVarnish(port);
    const nginx: RunningNginx = await startNginxProxyCache(port);
    caches.push({ name: 'varnish', ...varnish }, { name: 'nginx proxy_cache', ...nginx });
  });
  afterAll(async () => {
    for (const c of caches) await c.stop();
    if (serve) await closeServer(serve);
  });

  /** Every URL's judgement through one cache, following ?timestamp= redirects through it too. */
  const judgements = async (port: number) => {
    const out: Record<string, string> = {};
    for (const { url } of URLS) {
      const res = await fetch(`http://127.0.0.1:${port}${url}`);
      expect(res.status, url).toBe(200);
      out[url] = judgement(url, await res.text());
    }
    return out;
  };
  const expected = (when: 'before' | 'after') =>
    Object.fromEntries(URLS.map((u) => [u.url, u[when]]));

  it('every URL answers the new judgement within latestMaxAge and one refetch', async () => {
    for (const c of caches) expect(await judgements(c.port), c.name).toEqual(expected('before'));
    // The caches hold what they fetched: asked twice in a row, the second ask stays in the cache.
    for (const c of caches) {
      const url = `http://127.0.0.1:${c.port}${base}/at/1762000000/badges/REUSED`;
      await fetch(url).then((r) => r.text());
      seen.length = 0;
      await fetch(url).then((r) => r.text());
      expect(seen, c.name).toEqual([]);
    }

    await build(EDITED);
    // serve itself notices a replaced file within a second; the caches within their age.
    await sleep(Math.max(MAX_AGE, 1) * 1000 + 500);
    // The first ask after the age may get the stale answer while the cache fetches anew
    // (varnish's default grace); the next gets the new judgement.
    for (const c of caches) await judgements(c.port);
    await sleep(500);
    for (const c of caches) expect(await judgements(c.port), c.name).toEqual(expected('after'));
  });

  it('no API answer is immutable or outlives latestMaxAge', async () => {
    for (const { url } of URLS) {
      const res = await fetch(
        `http://127.0.0.1:${(serve.address() as { port: number }).port}${url}`,
        {
          redirect: 'manual',
        },
      );
      await res.text();
      expect(res.headers.get('cache-control'), url).toBe(`public, max-age=${MAX_AGE}`);
      if (res.status === 200) expect(res.headers.get('etag'), url).toMatch(/^"/);
    }
  });
});
