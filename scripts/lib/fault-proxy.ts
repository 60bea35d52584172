// An HTTP proxy between the SDK and the S3 peer: counts requests by method and can answer
// 500/503 or reset the connection for a share of them, refuse chosen requests with 403
// AccessDenied, flip a byte of chosen request bodies on the way, or answer chosen uploads as
// S3 does under SSE-KMS (an ETag that is not the MD5), or lose the answer to a request the
// store carried out. Deterministic (a seeded
// sequence), and it counts what it injected so a test can tell a fault really happened.
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';

type Choose = (method: string, path: string) => boolean;

export interface FaultProxy {
  endpoint: string;
  counts: Record<string, number>;
  /** Faults injected since the last reset: 'reset', '500', '503', '403', 'corrupt'. */
  injected: Record<string, number>;
  /** Share of requests (0..1) answered with a fault instead of being forwarded. */
  faultRate: number;
  /** Requests answered 403 AccessDenied, as a bucket policy refusing them would. */
  deny?: Choose | undefined;
  /** Requests whose body reaches the store with one byte flipped. */
  corrupt?: Choose | undefined;
  onRequest?: ((method: string, path: string, headers: IncomingHttpHeaders) => void) | undefined;
  /** Requests answered as S3 does under SSE-KMS: encrypted, with an ETag that is no MD5. */
  kms?: Choose | undefined;
  /** Requests the store carries out but whose answer is lost: the connection is reset instead. */
  loseAnswer?: Choose | undefined;
  reset(): void;
  close(): Promise<void>;
}

const ACCESS_DENIED =
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';

export async function startFaultProxy(targetPort: number, seed = 1): Promise<FaultProxy> {
  let state = seed;
  const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % 1000) / 1000;
  const proxy: FaultProxy = {
    endpoint: '',
    counts: {},
    injected: {},
    faultRate: 0,
    reset() {
      this.counts = {};
      this.injected = {};
    },
    close: () => new Promise((ok) => server.close(() => ok())),
  };
  const inject = (kind: string) => (proxy.injected[kind] = (proxy.injected[kind] ?? 0) + 1);
  const server: Server = createServer(async (req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '';
    proxy.counts[method] = (proxy.counts[method] ?? 0) + 1;
    proxy.onRequest?.(method, path, req.headers);
    if (proxy.deny?.(method, path)) {
      inject('403');
      req.resume();
      res.writeHead(403, { 'content-type': 'application/xml' });
      return res.end(ACCESS_DENIED);
    }
    if (proxy.faultRate > 0 && next() < proxy.faultRate) {
      const kind = next();
      req.resume();
      if (kind < 0.34) {
        inject('reset');
        return req.socket.destroy();
      }
      const status = kind < 0.67 ? 500 : 503;
      inject(String(status));
      res.writeHead(status, { 'content-type': 'application/xml' });
      return res.end(
        '<?xml version="1.0"?><Error><Code>InternalError</Code><Message>injected</Message></Error>',
      );
    }
    const kms = proxy.kms?.(method, path) ?? false;
    const loseAnswer = proxy.loseAnswer?.(method, path) ?? false;
    // A fresh connection per request: a kept-alive socket the peer has just closed would fail
    // the forward and make the client retry, a request no test asked for.
    const upstream = request(
      { host: '127.0.0.1', port: targetPort, method, path, headers: req.headers, agent: false },
      (up) => {
        if (loseAnswer) {
          inject('lost-answer');
          up.resume();
          return void up.on('end', () => req.socket.destroy());
        }
        const headers = { ...up.headers };
        if (kms && up.statusCode === 200) {
          inject('kms');
          headers['x-amz-server-side-encryption'] = 'aws:kms';
          headers.etag = `"${createHash('md5')
            .update(`kms:${headers.etag ?? ''}`)
            .digest('hex')}"`;
        }
        res.writeHead(up.statusCode ?? 502, headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    if (!proxy.corrupt?.(method, path)) return void req.pipe(upstream);
    const body = await readAll(req);
    if (body.length > 0) {
      body[body.length >> 1]! ^= 0x01;
      inject('corrupt');
    }
    upstream.end(body);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  proxy.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
