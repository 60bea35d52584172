// `badgepress serve`: a Node HTTP server over a built directory, answering through the core.
import { createServer, type Server } from 'node:http';
import { resolve as resolveRequest, type ResolverOptions } from '../../core.ts';
import { directoryReader, type DirectoryReaderOptions } from './directory-reader.ts';

export function createSiteServer(dir: string, opts: ResolverOptions & DirectoryReaderOptions = {}): Server {
  const read = directoryReader(dir, opts);
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    resolveRequest(
      {
        method: req.method ?? 'GET',
        path: q < 0 ? url : url.slice(0, q),
        query: q < 0 ? '' : url.slice(q + 1),
        ifNoneMatch: req.headers['if-none-match'] ?? null,
      },
      read,
      opts,
    )
      .then((answer) => {
        // Every answer carries headers of its own, so they are completed in place.
        const body = answer.body === null ? undefined : typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
        if (body !== undefined) answer.headers['content-length'] = String(body.byteLength);
        res.writeHead(answer.status, answer.headers);
        res.end(body);
      })
      .catch(() => {
        // Reached only on an unexpected store fault, never by a request string.
        res.writeHead(503, { 'content-type': 'application/problem+json', 'cache-control': 'no-store' });
        res.end(JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'the site could not be read' }));
      });
  });
  server.keepAliveTimeout = 5000;
  return server;
}
