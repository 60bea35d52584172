// An HTTP proxy between the SDK and the S3 peer: counts requests by method and can answer
// 500/503 or reset the connection for a share of them. Deterministic (a seeded sequence).
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultProxy {
  endpoint: string;
  counts: Record<string, number>;
  /** Share of requests (0..1) answered with a fault instead of being forwarded. */
  faultRate: number;
  onRequest?: (method: string, path: string) => void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFaultProxy(targetPort: number, seed = 1): Promise<FaultProxy> {
  let state = seed;
  const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % 1000) / 1000;
  const proxy: FaultProxy = {
    endpoint: '',
    counts: {},
    faultRate: 0,
    reset() {
      this.counts = {};
    },
    close: () => new Promise((ok) => server.close(() => ok())),
  };
  const server: Server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    proxy.counts[method] = (proxy.counts[method] ?? 0) + 1;
    proxy.onRequest?.(method, req.url ?? '');
    if (proxy.faultRate > 0 && next() < proxy.faultRate) {
      const kind = next();
      req.resume();
      if (kind < 0.34) return req.socket.destroy();
      res.writeHead(kind < 0.67 ? 500 : 503, { 'content-type': 'application/xml' });
      return res.end('<?xml version="1.0"?><Error><Code>InternalError</Code><Message>injected</Message></Error>');
    }
    const upstream = request({ host: '127.0.0.1', port: targetPort, method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  proxy.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
