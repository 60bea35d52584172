// Sends conformance requests over a real socket (redirects are not followed).
import { request } from 'node:http';
import type { Runner } from './cases.ts';

export function httpRunner(host: string, getPort: () => number): Runner {
  return (req) =>
    new Promise((ok, fail) => {
      const r = request(
        { host, port: getPort(), method: req.method, path: req.url, headers: req.headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            ok({
              status: res.statusCode ?? 0,
              headers: res.headers as Record<string, string>,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      r.on('error', fail);
      r.end();
    });
}
