// The conformance table through nginx in front of serve, with config/nginx/badgepress.conf:
// nginx answers the built files itself and sends serve only what needs the resolver. A
// counting proxy between them shows which requests reached serve.
import { createServer as createHttpServer, request, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteServer } from '../../src/resolver/adapter/node/server.ts';
import { closeServer, listenLocal } from '../../scripts/lib/listen.ts';
import { nginxBinary, startNginx, type RunningNginx } from '../../scripts/lib/nginx.ts';
import { CASES, conformanceFailures, type Runner } from './cases.ts';
import { httpRunner } from './http-runner.ts';
import { conformanceSites, WIDGET } from './fixture.ts';

// Without nginx this file is skipped on a workstation, and fails in CI (.ci/run installs it).
const available = nginxBinary() !== undefined || process.env.CI === 'true';

/** serve behind a recorder: every request line that reached it. */
function recordingServe(dir: string): { server: Server; seen: string[]; upstream: Server } {
  const upstream = createSiteServer(dir);
  const seen: string[] = [];
  const server = createHttpServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    upstream.emit('request', req, res);
  });
  return { server, seen, upstream };
}

describe.runIf(available)('nginx in front of serve conforms', () => {
  const front: Partial<
    Record<'A' | 'B', { nginx: RunningNginx; serve: ReturnType<typeof recordingServe> }>
  > = {};
  beforeAll(async () => {
    const sites = await conformanceSites();
    for (const name of ['A', 'B'] as const) {
      const serve = recordingServe(sites[name]);
      const port = await listenLocal(serve.server);
      front[name] = { nginx: await startNginx(sites[name], port), serve };
    }
  });
  afterAll(async () => {
    for (const f of Object.values(front)) {
      await f.nginx.stop();
      await closeServer(f.serve.server);
    }
  });
  const runner = (name: 'A' | 'B') => httpRunner('127.0.0.1', () => front[name]!.nginx.port);
  const run: Runner = (req) => runner(req.site ?? 'A')(req);

  it('answers the conformance table, Shape A and Shape B sites', async () => {
    expect(await conformanceFailures(run)).toEqual([]);
  });

  it('serves built files itself and passes ?timestamp= requests to serve', async () => {
    const seen = front.A!.serve.seen;
    seen.length = 0;
    const base = `/api/v1/repositories/${WIDGET}`;
    const direct = [
      `${base}/sarif`,
      `${base}/badges/MAINTENANCE.svg`,
      `${base}/badges/SECURITY`,
      `${base}/index.json`,
      `${base}/at/1761000000/badges/MAINTENANCE.svg`,
      `${base}/sarif?utm_source=readme`,
    ];
    for (const url of direct) expect((await run({ method: 'GET', url })).status, url).toBe(200);
    expect((await run({ method: 'HEAD', url: `${base}/sarif` })).status).toBe(200);
    expect(seen).toEqual([]);
    const dynamic = [
      `${base}/sarif?timestamp=1762000000`,
      `${base}/sarif?%74imestamp=1762000000`,
      `${base}/badges/MAINTENANCE.svg?utm=x&timestamp=1900000000`,
    ];
    for (const url of dynamic) expect((await run({ method: 'GET', url })).status, url).toBe(302);
    expect(seen).toEqual(dynamic.map((url) => `GET ${url}`));
  });

  // ?style= goes to serve, which picks the styled file or answers 400 (badgepress.conf).
  it('every conformance answer that is a built file came from nginx', async () => {
    const seen = front.A!.serve.seen;
    seen.length = 0;
    const fileCases = CASES.filter(
      (c) =>
        !c.request.site &&
        c.status === 200 &&
        c.request.method === 'GET' &&
        c.request.url.startsWith(`/api/v1/repositories/${WIDGET}/`) &&
        !c.request.url.includes('timestamp') &&
        !c.request.url.includes('style='),
    );
    expect(fileCases.length).toBeGreaterThan(4);
    for (const c of fileCases) await run(c.request);
    expect(seen).toEqual([]);
  });

  it('the human site outside /api/ is passed to serve, which answers it as it does alone', async () => {
    const seen = front.A!.serve.seen;
    seen.length = 0;
    const pages = [
      '/',
      '/index.html',
      `/repositories/${WIDGET}/`,
      '/badges/MAINTENANCE/',
      '/nothing-here',
    ];
    for (const url of pages) {
      const viaNginx = await run({ method: 'GET', url, headers: { accept: 'text/html' } });
      const alone = await httpRunner(
        '127.0.0.1',
        () => (front.A!.serve.server.address() as { port: number }).port,
      )({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect([viaNginx.status, viaNginx.headers['content-type']], url).toEqual([
        alone.status,
        alone.headers['content-type'],
      ]);
    }
    expect(seen.filter((l) => pages.some((p) => l === `GET ${p}`)).length).toBe(pages.length * 2);
  });

  it('a path that climbs out of the tree is not served by nginx', async () => {
    for (const url of [
      `/api/v1/repositories/${WIDGET}/../../../../../../etc/passwd`,
      `/api/v1/repositories/${WIDGET}/at/1/../../../../../../../etc/passwd`,
    ]) {
      const a = await new Promise<{ status: number; body: string }>((ok, fail) => {
        request({ host: '127.0.0.1', port: front.A!.nginx.port, path: url }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => ok({ status: res.statusCode ?? 0, body }));
        })
          .on('error', fail)
          .end();
      });
      expect(a.body, url).not.toContain('root:');
      expect(a.status, url).toBeLessThan(500);
    }
  });
});
