// Requests Node's own HTTP parser refuses before the resolver core sees them still get a
// proper answer: problem+json with Cache-Control and Connection: close, over a raw socket
// (an HTTP client library would refuse to send these bytes at all).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteServer } from '../src/resolver/adapter/node/server.ts';
import { conformanceSite, WIDGET } from './conformance/fixture.ts';
import { closeServer, listenLocal } from '../scripts/lib/listen.ts';

const dir = await conformanceSite();
const server = createSiteServer(dir);
let port = 0;

beforeAll(async () => {
  port = await listenLocal(server);
});
afterAll(() => closeServer(server));

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as raw bytes and reads until the server closes the connection. */
function sendRaw(request: Buffer): Promise<RawAnswer> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', fail);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0)
        return fail(new Error(`no complete answer: ${JSON.stringify(text.slice(0, 200))}`));
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      ok({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4) });
    });
  });
}

const requestFor = (path: Buffer | string) =>
  Buffer.concat([
    Buffer.from('GET '),
    Buffer.from(path),
    Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
  ]);

function expectProblem(a: RawAnswer, status: number, detail: RegExp): void {
  expect(a.status).toBe(status);
  expect(a.headers['content-type']).toBe('application/problem+json');
  expect(a.headers['cache-control']).toBe('public, max-age=300');
  expect(a.headers.connection).toBe('close');
  expect(Number(a.headers['content-length'])).toBe(Buffer.byteLength(a.body));
  const problem = JSON.parse(a.body);
  expect(problem).toMatchObject({ type: 'about:blank', status });
  expect(problem.detail).toMatch(detail);
}

describe('requests the HTTP parser refuses', () => {
  it('a 100 KB path is 431 problem+json', async () => {
    const a = await sendRaw(requestFor(`/api/v1/repositories/${'a'.repeat(100 * 1024)}/sarif`));
    expectProblem(a, 431, /exceed the \d+ bytes this server reads/);
  });

  it('a NUL byte in the path is 400 problem+json', async () => {
    expectProblem(
      await sendRaw(requestFor(`/api/v1/repositories/${WIDGET}\u0000/sarif`)),
      400,
      /not valid HTTP\/1\.1 \(HPE_/,
    );
  });

  it('a raw non-ASCII byte in the path is 400 problem+json', async () => {
    const path = Buffer.concat([
      Buffer.from(`/api/v1/repositories/${WIDGET}/badges/`),
      Buffer.from([0xff]),
      Buffer.from('.svg'),
    ]);
    expectProblem(await sendRaw(requestFor(path)), 400, /printable ASCII/);
  });

  it('garbage instead of a request line is 400 problem+json', async () => {
    expectProblem(
      await sendRaw(Buffer.from('\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\r\n\r\n')),
      400,
      /not valid HTTP/,
    );
  });

  it('the server goes on answering well-formed requests', async () => {
    const a = await sendRaw(
      Buffer.from(
        `GET /api/v1/repositories/${WIDGET}/sarif HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      ),
    );
    expect(a.status).toBe(200);
  });
});

/** Every status line in a raw exchange, in order (several answers on one connection). */
function statusLines(request: Buffer): Promise<string[]> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', fail);
    // An answer's status line follows the previous body directly (no newline after JSON).
    socket.on('close', () =>
      ok(
        Buffer.concat(chunks)
          .toString('latin1')
          .match(/HTTP\/1\.1 \d{3}(?= )/g) ?? [],
      ),
    );
  });
}

describe('requests Node would answer itself', () => {
  it('a refused request pipelined after a valid one: the valid one is answered first', async () => {
    const valid = `GET /api/v1/repositories/${WIDGET}/sarif HTTP/1.1\r\nHost: x\r\n\r\n`;
    const lines = await statusLines(
      Buffer.concat([Buffer.from(valid), requestFor(`/api/v1/repositories/${WIDGET}\u0000/sarif`)]),
    );
    expect(lines).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
  });

  it('every valid request pipelined before a refused one is answered first, 5 or 1,000 of them', async () => {
    const valid = Buffer.from(
      `GET /api/v1/repositories/${WIDGET}/sarif HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    const refused = Buffer.from('GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n');
    for (const count of [5, 1000]) {
      const lines = await statusLines(
        Buffer.concat([...Array<Buffer>(count).fill(valid), refused]),
      );
      expect(lines, `${count} valid requests`).toEqual([
        ...Array<string>(count).fill('HTTP/1.1 200'),
        'HTTP/1.1 400',
      ]);
    }
  });

  it('an HTTP/1.1 request without Host is answered by the core', async () => {
    const a = await sendRaw(
      Buffer.from(`GET /api/v1/repositories/${WIDGET}/sarif HTTP/1.1\r\nConnection: close\r\n\r\n`),
    );
    expect(a.status).toBe(200);
    expect(a.headers['cache-control']).toBe('public, max-age=300');
    const missing = await sendRaw(
      Buffer.from('GET /nowhere HTTP/1.1\r\nConnection: close\r\n\r\n'),
    );
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/problem+json');
  });

  it('an unknown Expect header is ignored, not answered 417', async () => {
    const a = await sendRaw(
      Buffer.from(
        `GET /api/v1/repositories/${WIDGET}/sarif HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\nConnection: close\r\n\r\n`,
      ),
    );
    expect(a.status).toBe(200);
  });

  it('CONNECT is 405 problem+json with Allow, like any other method', async () => {
    const a = await sendRaw(
      Buffer.from('CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n'),
    );
    expectProblem(a, 405, /only GET and HEAD/);
    expect(a.headers.allow).toBe('GET, HEAD');
  });
});
