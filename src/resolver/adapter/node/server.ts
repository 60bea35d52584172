// `badgepress serve`: a Node HTTP server over a built directory, answering through the core.
import { createServer, maxHeaderSize, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorAnswer, resolve as resolveRequest, type ResolverOptions } from '../../core.ts';
import { directoryReader, type DirectoryReaderOptions } from './directory-reader.ts';
import { STATUS_TEXT, unavailableAnswer } from '../../../model/http.ts';

/** How long a refused connection may keep sending before it is cut (nginx's lingering close). */
const LINGER_MS = 2000;

export function createSiteServer(dir: string, opts: ResolverOptions & DirectoryReaderOptions = {}): Server {
  const read = directoryReader(dir, opts);
  // No Host header required: the core answers every request itself (a Host-less HTTP/1.1
  // request gets its 404 or file, not Node's bare 400 without Cache-Control).
  const server = createServer({ requireHostHeader: false }, (req, res) => {
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
        const { status, headers, body } = unavailableAnswer();
        res.writeHead(status, headers);
        res.end(body);
      });
  });
  server.keepAliveTimeout = 5000;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => refuseUnparsed(err, socket, opts));
  // An Expect header other than 100-continue is ignored (Node would answer a bare 417): the
  // request is a GET like any other.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
  // CONNECT never reaches the request handler: answer it as the core answers any other method.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    const answer = errorAnswer({ method: 'CONNECT', path: '', query: '' }, 405, STATUS_TEXT[405], 'only GET and HEAD are served', opts);
    answer.headers['allow'] = 'GET, HEAD';
    endWithAnswer(socket, 405, answer.headers, Buffer.from(answer.body as string));
  });
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
  const refuse = () => endWithAnswer(socket, status, answer.headers, Buffer.from(answer.body as string));
  // A pipelined request before the refused one may still be answering: its answer goes out
  // first, or the client would take the refusal for the answer to its valid request.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (inFlight && !inFlight.writableFinished) inFlight.once('finish', refuse);
  else refuse();
}

/** Writes a whole answer on a raw socket and closes it, as nginx's lingering close does. */
function endWithAnswer(socket: Duplex, status: number, headers: Record<string, string>, body: Buffer): void {
  if (!socket.writable) return void socket.destroy();
  const all = { ...headers, 'content-length': String(body.byteLength), connection: 'close' };
  const head = Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`).join('');
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
