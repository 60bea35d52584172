// Git's own smart HTTP server (Debian's git-http-backend, a CGI program) behind a Node HTTP
// server on 127.0.0.1: what a scan fetches from in the transport tests. Paths under /stall/
// never answer; a path listed in `tokens` answers 401 unless its Authorization header is right.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

export interface GitHttpServer {
  url: string;
  port: number;
  /** Every Authorization header the server received, by repository path. */
  authorizations: Map<string, string[]>;
  /** Every request the server received: `METHOD /path`, in order. */
  requests: string[];
  /** Bytes sent in answers to git-upload-pack POSTs, in order. */
  uploadPackBytes: number[];
  /** TCP connections accepted, whatever was sent on them. */
  connections(): number;
  close(): Promise<void>;
}

/** `failFirst`: repository paths whose first that many requests get a 503 (a transient failure). */
export async function startGitHttp(
  projectRoot: string,
  required: Record<string, string> = {},
  failFirst: Record<string, number> = {},
): Promise<GitHttpServer> {
  const authorizations = new Map<string, string[]>();
  const failures = new Map(Object.entries(failFirst));
  const uploadPackBytes: number[] = [];
  const requests: string[] = [];
  const stalled = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://x');
    requests.push(`${req.method} ${url.pathname}`);
    if (url.pathname.startsWith('/stall/')) {
      stalled.add(res);
      return;
    }
    const repo = url.pathname.split('/')[1] ?? '';
    const left = failures.get(repo) ?? 0;
    if (left > 0) {
      failures.set(repo, left - 1);
      res.writeHead(503).end('try again later\n');
      return;
    }
    const auth = req.headers.authorization;
    if (auth) authorizations.set(repo, [...(authorizations.get(repo) ?? []), auth]);
    const need = required[repo];
    if (need !== undefined && auth !== need) {
      res
        .writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' })
        .end('authorization required\n');
      return;
    }
    const cgi = spawn(HTTP_BACKEND, [], {
      env: {
        PATH: process.env.PATH!,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        // Partial clone: the server must accept filters, and wants of any object (lazy fetches).
        GIT_CONFIG_COUNT: '2',
        GIT_CONFIG_KEY_0: 'uploadpack.allowFilter',
        GIT_CONFIG_VALUE_0: 'true',
        GIT_CONFIG_KEY_1: 'uploadpack.allowAnySHA1InWant',
        GIT_CONFIG_VALUE_1: 'true',
        REQUEST_METHOD: req.method!,
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
        ...(req.headers['content-encoding']
          ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) }
          : {}),
        ...(req.headers['git-protocol']
          ? { GIT_PROTOCOL: String(req.headers['git-protocol']) }
          : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let started = false;
    let sent = 0;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (started) {
        sent += chunk.length;
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      started = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      const body = head.subarray(end + 4);
      sent += body.length;
      res.write(body);
    });
    cgi.on('close', () => {
      if (url.pathname.endsWith('/git-upload-pack')) uploadPackBytes.push(sent);
      res.end();
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    authorizations,
    requests,
    uploadPackBytes,
    connections: () => connections,
    close: async () => {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
