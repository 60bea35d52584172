// `serve` cannot be starved of file handles or held by a slow client: a flood of idle
// connections past the process's open-file limit leaves a well-behaved client answered (the
// oldest idle sockets are closed to make room), and a request whose body trickles in is cut
// after requestTimeout. Bounded: 127.0.0.1 only, a few hundred sockets, a few seconds.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { createSiteServer, defaultMaxConnections } from '../src/resolver/adapter/node/server.ts';
import { conformanceSite, WIDGET } from './conformance/fixture.ts';
import { NODE_TSX, ROOT } from './helpers/cli.ts';
import { closeServer, listenLocal } from '../scripts/lib/listen.ts';

const dir = await conformanceSite();
const children: ChildProcess[] = [];
const sockets: Socket[] = [];
afterAll(() => {
  for (const s of sockets) s.destroy();
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
});

/** serve as users run it, in a shell whose open-file limit is `files`; resolves with its port. */
function serveWithFileLimit(files: number): Promise<number> {
  const cli = [...NODE_TSX, `${ROOT}src/cli.ts`, 'serve', '--dir', dir, '--port', '0']
    .map((a) => `'${a}'`)
    .join(' ');
  return new Promise((ok, fail) => {
    const child = spawn('sh', ['-c', `ulimit -n ${files} && exec ${cli}`], {
      cwd: ROOT,
      env: { ...process.env, CI: 'true' },
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /at http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) ok(Number(m[1]));
    });
    child.on('exit', (code) => fail(new Error(`serve exited ${code}: ${out}`)));
  });
}

/** Opens `count` connections that never send a byte. */
async function flood(port: number, count: number): Promise<{ open: () => number }> {
  let closed = 0;
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((ok) => {
          const s = connect(port, '127.0.0.1', () => ok());
          sockets.push(s);
          s.on('error', () => ok());
          s.on('close', () => {
            closed++;
            ok();
          });
        }),
    ),
  );
  return { open: () => count - closed };
}

function get(port: number, path: string): Promise<number> {
  return new Promise((ok, fail) => {
    request({ host: '127.0.0.1', port, path, agent: false, timeout: 3000 }, (res) => {
      res.resume();
      res.on('end', () => ok(res.statusCode ?? 0));
    })
      .on('timeout', function (this: { destroy(e: Error): void }) {
        this.destroy(new Error('no answer within 3 s'));
      })
      .on('error', fail)
      .end();
  });
}

describe('serve under a flood of idle connections', () => {
  it('derives its cap from the open-file limit', () => {
    expect(
      defaultMaxConnections(
        'Max open files            256                  4096                 files\n',
      ),
    ).toBe(192);
    expect(
      defaultMaxConnections(
        'Max open files            1048576              1048576              files\n',
      ),
    ).toBe(917504);
    expect(defaultMaxConnections('')).toBe(192);
  });

  it('answers a well-behaved client while 600 idle connections exceed a 256-file limit', async () => {
    const port = await serveWithFileLimit(256);
    const held = await flood(port, 600);
    // Let the server accept (and close) what it will.
    await new Promise((ok) => setTimeout(ok, 500));
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++)
      statuses.push(await get(port, `/api/v1/repositories/${WIDGET}/badges/MAINTENANCE.svg`));
    expect(statuses).toEqual(Array<number>(20).fill(200));
    // The flood was real: the server held as many idle sockets as its cap allows, not fewer.
    expect(held.open()).toBeGreaterThanOrEqual(150);
  }, 30_000);
});

/** A keep-alive connection that has sent one GET and read its whole answer: idle now. */
async function idleKeepAlive(
  port: number,
): Promise<{ socket: Socket; closed: () => boolean; again: () => Promise<string> }> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let closed = false;
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  const again = () =>
    new Promise<string>((ok) => {
      let got = '';
      const onData = (c: Buffer) => {
        got += c.toString('latin1');
        const head = got.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(got);
        if (head >= 0 && length && got.length >= head + 4 + Number(length[1])) {
          socket.off('data', onData);
          ok(got.slice(0, got.indexOf('\r\n')));
        }
      };
      socket.on('data', onData);
      socket.write(
        `GET /api/v1/repositories/${WIDGET}/badges/MAINTENANCE.svg HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
    });
  await new Promise((ok) => socket.once('connect', ok));
  expect(await again()).toBe('HTTP/1.1 200 OK');
  return { socket, closed: () => closed, again };
}

describe('serve makes room by closing the connection idle longest', () => {
  it('a new connection past --max-connections closes the keep-alive socket idle longest, not a newer one', async () => {
    const server = createSiteServer(dir, { maxConnections: 3 });
    const port = await listenLocal(server);
    try {
      const a = await idleKeepAlive(port);
      const b = await idleKeepAlive(port);
      const c = await idleKeepAlive(port);
      // a asks again: now b has been idle longest, then c, then a.
      expect(await a.again()).toBe('HTTP/1.1 200 OK');
      const d = await idleKeepAlive(port);
      await new Promise((ok) => setTimeout(ok, 100));
      expect([a, b, c, d].map((x) => x.closed())).toEqual([false, true, false, false]);
      const e = await idleKeepAlive(port);
      await new Promise((ok) => setTimeout(ok, 100));
      expect([a, c, d, e].map((x) => x.closed())).toEqual([false, true, false, false]);
      // The survivors are still served on their kept-alive sockets.
      for (const x of [a, d, e]) expect(await x.again()).toBe('HTTP/1.1 200 OK');
    } finally {
      await closeServer(server);
    }
  });
});

describe('serve bounds the time a request may take', () => {
  it('cuts a request whose body trickles in, 1 byte at a time, after requestTimeout', async () => {
    const server = createSiteServer(dir, { requestTimeoutMs: 1500, headersTimeoutMs: 1000 });
    const port = await listenLocal(server);
    try {
      const started = Date.now();
      const s = connect(port, '127.0.0.1');
      sockets.push(s);
      s.on('error', () => undefined);
      s.write(
        `POST /api/v1/repositories/${WIDGET}/sarif HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n`,
      );
      const drip = setInterval(() => s.writable && s.write('x'), 300);
      const got: Buffer[] = [];
      s.on('data', (c: Buffer) => got.push(c));
      await new Promise((ok) => s.once('close', ok));
      clearInterval(drip);
      const heldMs = Date.now() - started;
      // requestTimeout, checked every second, plus the lingering close.
      expect(heldMs).toBeLessThan(6000);
      expect(Buffer.concat(got).toString()).toMatch(/^HTTP\/1\.1 405 /);
    } finally {
      await closeServer(server);
    }
  }, 20_000);

  it('cuts a connection that sends no whole request line within headersTimeout', async () => {
    const server = createSiteServer(dir, { requestTimeoutMs: 1500, headersTimeoutMs: 1000 });
    const port = await listenLocal(server);
    try {
      const started = Date.now();
      const s = connect(port, '127.0.0.1');
      sockets.push(s);
      s.on('error', () => undefined);
      s.write('GET /api/v1/repo');
      const drip = setInterval(() => s.writable && s.write('x'), 300);
      const got: Buffer[] = [];
      s.on('data', (c: Buffer) => got.push(c));
      await new Promise((ok) => s.once('close', ok));
      clearInterval(drip);
      expect(Date.now() - started).toBeLessThan(6000);
      // Cut with an answer, as the serving guide says: 408 problem+json.
      expect(Buffer.concat(got).toString()).toMatch(
        /^HTTP\/1\.1 408 [^]*content-type: application\/problem\+json/i,
      );
    } finally {
      await closeServer(server);
    }
  }, 20_000);
});
