// `badgepress serve`: a Node HTTP server over a built directory, answering through the core.
import { createServer, maxHeaderSize, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorAnswer, resolve as resolveRequest, type ResolverOptions } from '../../core.ts';
import { directoryReader, type DirectoryReaderOptions } from './directory-reader.ts';

/** How long a refused connection may keep sending before it is cut (nginx's lingering close). */
const LINGER_MS = 2000;

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
        // Every answer carries headers of its own, so they are completed in place. A HEAD
        // answer has no body but already carries the length a GET would send.
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
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => refuseUnparsed(err, socket, opts));
  return server;
}

const refused = new WeakSet<Duplex>();

/**
 * Node's HTTP parser refuses some requests before the core sees them (an oversized request
 * line, a raw control or non-ASCII byte in the path). Answer those as the core answers any
 * bad request, problem+json with Cache-Control, rather than with Node's bare status line.
 */
function refuseUnparsed(err: NodeJS.ErrnoException, socket: Duplex, opts: ResolverOptions): void {
  if (refused.has(socket)) return; // the parser reports again as more bytes arrive
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  refused.add(socket);
  const [status, detail] = parserRefusal(err.code);
  const answer = errorAnswer({ method: 'GET', path: '', query: '' }, status, STATUS_CODES[status] ?? 'Bad Request', detail, opts);
  const body = Buffer.from(answer.body as string);
  const headers = { ...answer.headers, 'content-length': String(body.byteLength), connection: 'close' };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n`), body]));
  // Keep reading (and dropping) what the client still sends for a moment, so closing with
  // unread bytes does not reset the connection before the client has read the answer.
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
  socket.resume();
}

function parserRefusal(code: string | undefined): [number, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, `the request line and headers exceed the ${maxHeaderSize} bytes this server reads; shorten the path`];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'the request did not arrive in time; send it again'];
    default:
      return [400, `the request is not valid HTTP/1.1 (${code ?? 'unparsable'}); send the path percent-encoded, in printable ASCII, without control characters`];
  }
}
