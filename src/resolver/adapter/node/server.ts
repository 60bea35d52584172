// `badgepress serve`: a Node HTTP server over a built directory, answering through the core.
import {
  createServer,
  maxHeaderSize,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { readFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import {
  errorAnswer,
  fileAnswer,
  lookup,
  mayAnswerWithNotFoundPage,
  parseIndex,
  resolve as resolveRequest,
  timestampAnswer,
  type Lookup,
  type ResolverOptions,
  type ResolverRequest,
  type ResolverResponse,
  type StoredObject,
} from '../../core.ts';
import { indexKey, type RepositoryIndex } from '../../../model/layout.ts';
import { directoryReader, type DirectoryReaderOptions } from './directory-reader.ts';
import { STATUS_TEXT, unavailableAnswer, withAnswerHeaders } from '../../../model/http.ts';

/** How long a refused connection may keep sending before it is cut (nginx's lingering close). */
const LINGER_MS = 2000;

/** How long serve waits for what a client sends; every one has a default (see below). */
interface ConnectionLimits {
  /**
   * Open connections at most. When a new one would pass it, the connection idle longest (no
   * answer pending: a keep-alive socket between requests, or one that has not sent a whole
   * request) is closed to make room. Default: the process's open-file limit less a reserve.
   */
  maxConnections?: number;
  /** Milliseconds from connecting (or from a request's first byte) to its last header. Default 10,000. */
  headersTimeoutMs?: number;
  /** Milliseconds from a request's first byte to its last body byte. Default 10,000. */
  requestTimeoutMs?: number;
}

export type SiteServerOptions = ResolverOptions & DirectoryReaderOptions & ConnectionLimits;

const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** What serve knows of one open connection. */
interface Connection {
  /** Requests parsed and not yet answered (pipelined ones queue behind each other). */
  pending: number;
  /** A refusal of an unparsable request, held until every request before it is answered. */
  refusal?: () => void;
  socket: Duplex;
  /** The server's open connections, idle longest first. */
  line: Map<Duplex, Connection>;
}

const CONNECTION = Symbol('badgepress connection');
type TrackedSocket = Duplex & { [CONNECTION]?: Connection };

/** A response closed (sent or cut off): one request fewer pending on its connection. */
function answered(this: ServerResponse): void {
  const conn = (this.req.socket as TrackedSocket)[CONNECTION];
  if (!conn || --conn.pending > 0 || !conn.line.has(conn.socket)) return;
  if (conn.refusal) return conn.refusal();
  // Idle again: it moves to the end of the line of sockets to close first.
  conn.line.delete(conn.socket);
  conn.line.set(conn.socket, conn);
}

/** An answer of the core as written: its body as bytes, its headers complete, in order. */
interface Written {
  status: number;
  /** Name, value, name, value…: writeHead takes the pairs as they are. */
  headers: string[];
  body: Uint8Array | undefined;
}

/** Completes an answer of the core for the wire. A HEAD answer has no body but carries its GET's length. */
function written(answer: ResolverResponse): Written {
  const body =
    answer.body === null
      ? undefined
      : typeof answer.body === 'string'
        ? Buffer.from(answer.body)
        : answer.body;
  const headers: string[] = [];
  const all = withAnswerHeaders(answer.headers);
  for (const name in all) headers.push(name, all[name]!);
  if (body !== undefined) headers.push('content-length', String(body.byteLength));
  // A redirect has no body: said outright, or Node frames it chunked and sends the closing
  // chunk in a write of its own, which waits on the client's delayed ACK (40 ms on Linux).
  else if (answer.headers['content-length'] === undefined && answer.status !== 304)
    headers.push('content-length', '0');
  return { status: answer.status, headers, body };
}

function write(
  res: ServerResponse,
  w: Written,
  body: Uint8Array | string | undefined = w.body,
): void {
  res.writeHead(w.status, w.headers);
  res.end(body);
}

const send = (res: ServerResponse, answer: ResolverResponse): void => write(res, written(answer));

// Parsed indexes by the held copy they were parsed from: a rebuilt index is a new copy.
const parsedIndexes = new WeakMap<StoredObject, RepositoryIndex | null>();
function indexOf(obj: StoredObject): RepositoryIndex | null {
  let index = parsedIndexes.get(obj);
  if (index === undefined) parsedIndexes.set(obj, (index = parseIndex(obj)));
  return index;
}

const MAX_HELD_ROUTES = 10_000;
const MAX_HELD_TARGET = 1024;

/**
 * The core's decision for one request target (a key, or a ?timestamp= lookup), held with the
 * answers last written from it, for GET and for HEAD. A held answer is reused only while it
 * is the one the core would build again: a file answer while the file's entity tag and length
 * are those it was built from (its headers say no more of the file; the bytes are always the
 * held copy's), a redirect while the index is the very copy it was read from.
 */
interface HeldRoute {
  found: Lookup;
  /** The key whose held copy answers: the file, or the index a ?timestamp= lookup reads. */
  key: string | undefined;
  get?: HeldAnswer;
  head?: HeldAnswer;
}

interface HeldAnswer extends Written {
  /** What the answer was built from: a file's entity tag and length, or an index's held copy. */
  etag: string | undefined;
  length: number;
  index: StoredObject | undefined;
  /** A GET of a file: its body is the held copy's bytes, taken at each write, not kept here. */
  fileBody: boolean;
}

/** The route of a request target, held when it names a key or a ?timestamp= lookup. */
function routeOf(
  routes: Map<string, HeldRoute>,
  url: string,
  request: ResolverRequest,
  opts: ResolverOptions,
): HeldRoute {
  const cacheable =
    (request.method === 'GET' || request.method === 'HEAD') && url.length <= MAX_HELD_TARGET;
  const known = cacheable ? routes.get(url) : undefined;
  if (known) return known;
  const found = lookup(request, opts);
  const key =
    found.kind === 'key'
      ? found.key
      : found.kind === 'timestamp'
        ? indexKey(found.target.encoded)
        : undefined;
  const route: HeldRoute = { found, key };
  // An answer is built per request (its headers are completed in place): never held.
  if (cacheable && found.kind !== 'answer') {
    if (routes.size >= MAX_HELD_ROUTES) routes.clear();
    routes.set(url, route);
  }
  return route;
}

const byteLength = (body: Uint8Array | string): number =>
  typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;

/** Keeps an answer written for a held route, to write again while what it was built from holds. */
function hold(route: HeldRoute, method: string, answer: HeldAnswer): void {
  if (method === 'GET') route.get = answer;
  else if (method === 'HEAD') route.head = answer;
}

export function createSiteServer(dir: string, opts: SiteServerOptions = {}): Server {
  const read = directoryReader(dir, opts);
  const requestTimeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const headersTimeout = Math.min(
    opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeout,
  );
  // Open connections in the order they last went idle: the first idle one is the one to close.
  const connections = new Map<Duplex, Connection>();
  const maxConnections = opts.maxConnections ?? defaultMaxConnections();
  // No Host header required: the core answers every request itself (a Host-less HTTP/1.1
  // request gets its 404 or file, not Node's bare 400 without Cache-Control).
  // Route decisions by request target, for GET and HEAD: a busy badge is asked for with the
  // same path again and again, and parsing its repository URL each time is a fifth of the
  // work serve does for it. The decision is held (a key, or a ?timestamp= lookup), and the
  // answer last written from it: building the headers again costs as much as the routing.
  const routes = new Map<string, HeldRoute>();
  // Node's defaults let a client hold a socket for minutes (headers 60 s, a slow body 300 s,
  // checked every 30 s); these are a badge server's, checked every second.
  const server = createServer(
    { requireHostHeader: false, headersTimeout, requestTimeout, connectionsCheckingInterval: 1000 },
    (req, res) => {
      const conn = (req.socket as TrackedSocket)[CONNECTION];
      if (conn) {
        conn.pending++;
        // on, not once: a response closes once, and once would wrap the listener per request.
        res.on('close', answered);
      }
      const url = req.url ?? '/';
      const method = req.method ?? 'GET';
      const ifNoneMatch = req.headers['if-none-match'];
      // The busiest case first: an answer already written for this target from the copy held
      // now, sent again as it is (a conditional request is decided afresh).
      const route = method === 'GET' || method === 'HEAD' ? routes.get(url) : undefined;
      if (route !== undefined && route.key !== undefined && ifNoneMatch === undefined) {
        const ready = method === 'GET' ? route.get : route.head;
        const obj = ready && read.held(route.key);
        if (
          obj &&
          (ready.index === undefined
            ? obj.etag === ready.etag && byteLength(obj.body) === ready.length
            : obj === ready.index)
        ) {
          return write(res, ready, ready.fileBody ? obj.body : ready.body);
        }
      }
      const q = url.indexOf('?');
      const request: ResolverRequest = {
        method,
        path: q < 0 ? url : url.slice(0, q),
        query: q < 0 ? '' : url.slice(q + 1),
        ifNoneMatch: ifNoneMatch ?? null,
        accept: req.headers.accept ?? null,
      };
      // The common case answered at once, without a promise: a file already held.
      const held = route ?? routeOf(routes, url, request, opts);
      const found = held.found;
      if (found.kind === 'key') {
        const obj = read.held(found.key);
        if (obj) {
          const w = written(fileAnswer(request, found.target, obj, opts));
          if (ifNoneMatch === undefined && obj.etag !== undefined) {
            hold(held, method, {
              ...w,
              body: undefined,
              etag: obj.etag,
              length: byteLength(obj.body),
              index: undefined,
              fileBody: w.body !== undefined,
            });
          }
          return write(res, w);
        }
      } else if (found.kind === 'timestamp') {
        const obj = read.held(held.key!);
        const answer = obj && timestampAnswer(request, found, indexOf(obj), opts);
        // A miss is answered by the core in full: a browser's gets the site's 404 page, which
        // only the core reads. Nor is it held: a held answer is reused whatever the Accept header.
        if (obj && answer && !mayAnswerWithNotFoundPage(request, answer)) {
          const w = written(answer);
          if (answer.status !== 404)
            hold(held, method, { ...w, etag: undefined, length: 0, index: obj, fileBody: false });
          return write(res, w);
        }
      }
      resolveRequest(request, read, opts).then(
        (answer) => send(res, answer),
        // Reached only on an unexpected store fault, never by a request string.
        () => send(res, unavailableAnswer()),
      );
    },
  );
  server.keepAliveTimeout = 5000;
  // A client that stops reading its answer (or sending) holds a socket no longer than this.
  server.timeout = 30_000;
  server.on('connection', (socket: Duplex) => {
    if (connections.size >= maxConnections && !closeOldestIdle(connections)) {
      // Every connection is waiting for an answer: this one is refused, the others served.
      socket.destroy();
      return;
    }
    const conn: Connection = { pending: 0, socket, line: connections };
    (socket as TrackedSocket)[CONNECTION] = conn;
    connections.set(socket, conn);
    socket.once('close', () => connections.delete(socket));
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) =>
    refuseUnparsed(err, socket, opts, connections.get(socket)),
  );
  // An Expect header other than 100-continue is ignored (Node would answer a bare 417): the
  // request is a GET like any other.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    server.emit('request', req, res),
  );
  // CONNECT never reaches the request handler: answer it as the core answers any other method.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    const answer = errorAnswer(
      { method: 'CONNECT', path: '', query: '' },
      405,
      'only GET and HEAD are served',
      opts,
    );
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
function refuseUnparsed(
  err: NodeJS.ErrnoException,
  socket: Duplex,
  opts: ResolverOptions,
  conn: Connection | undefined,
): void {
  if (refused.has(socket)) return; // the parser reports again as more bytes arrive
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  refused.add(socket);
  const [status, detail] = parserRefusal(err.code);
  const answer = errorAnswer({ method: 'GET', path: '', query: '' }, status, detail, opts);
  const refuse = () =>
    endWithAnswer(socket, status, answer.headers, Buffer.from(answer.body as string));
  // Pipelined requests before the refused one may still be answering (Node parsed them
  // before it met the bad bytes): their answers go out first, all of them, then the refusal,
  // or the client would lose valid answers or take the refusal for one of them.
  if (conn && conn.pending > 0) conn.refusal = refuse;
  else refuse();
}

/** Closes the connection idle longest; false when every connection has an answer pending. */
function closeOldestIdle(connections: Map<Duplex, Connection>): boolean {
  for (const [socket, conn] of connections) {
    if (conn.pending > 0) continue;
    connections.delete(socket);
    socket.destroy();
    return true;
  }
  return false;
}

/** Open files the process keeps for itself beyond its connections: the files it reads, logs, Node. */
const RESERVED_FILES = 64;

/**
 * The connection cap when none is given: the process's soft open-file limit (Linux
 * /proc/self/limits; elsewhere 256, macOS's default) less a reserve, so the sockets can
 * never take the descriptors a file read or a new connection needs.
 */
export function defaultMaxConnections(limits = readLimits()): number {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(limits ?? '');
  const soft = m ? (m[1] === 'unlimited' ? 65536 : Number(m[1])) : 256;
  return Math.max(16, soft - Math.max(RESERVED_FILES, Math.floor(soft / 8)));
}

function readLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

/** Writes a whole answer on a raw socket and closes it, as nginx's lingering close does. */
function endWithAnswer(
  socket: Duplex,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): void {
  if (!socket.writable) return void socket.destroy();
  const all = {
    ...withAnswerHeaders(headers),
    'content-length': String(body.byteLength),
    connection: 'close',
  };
  const head = Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    Buffer.concat([Buffer.from(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n${head}\r\n`), body]),
  );
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
      return [
        431,
        `the request line and headers exceed the ${maxHeaderSize} bytes this server reads; shorten the path`,
      ];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'the request did not arrive in time; send it again'];
    default:
      return [
        400,
        `the request is not valid HTTP/1.1 (${code ?? 'unparsable'}); send the path percent-encoded, in printable ASCII, without control characters`,
      ];
  }
}
