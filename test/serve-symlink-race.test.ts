// A repository directory flipped between a real directory and a link to outside --dir, by
// another process, while serve answers requests for it: not one answer may hold the outside
// bytes, whether every request asks the disk (revalidateMs 0) or held copies are served
// (the default second). The check is made on the descriptor opened, so no name-to-open race.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { Agent } from 'node:http';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteServer } from '../src/resolver/adapter/node/server.ts';
import { conformanceSite, WIDGET } from './conformance/fixture.ts';
import { closeServer, listenLocal } from '../scripts/lib/listen.ts';

const dir = await conformanceSite();
const CANARY = 'CANARY-race-7c2d outside the site';
const repos = join(dir, 'api/v1/repositories');
// A repository of its own to flip, so the other tests' files stay put.
const FLIPPED = encodeURIComponent('https://github.com/acme/flipped');
const flipped = join(repos, FLIPPED);
cpSync(join(repos, WIDGET), flipped, { recursive: true });
const outside = join(dirname(dir), 'outside-race');
cpSync(flipped, outside, { recursive: true });
// The same names outside, every file holding the canary.
for (const path of ['sarif', 'badges/MAINTENANCE.svg', 'badges/MAINTENANCE'])
  writeFileSync(join(outside, path), CANARY);
mkdirSync(join(outside, 'at'), { recursive: true });

const everyRequest = createSiteServer(dir, { revalidateMs: 0 });
const cached = createSiteServer(dir);
const ports = { everyRequest: 0, cached: 0 };
beforeAll(async () => {
  ports.everyRequest = await listenLocal(everyRequest);
  ports.cached = await listenLocal(cached);
});
afterAll(async () => {
  await closeServer(everyRequest);
  await closeServer(cached);
});

/** Flips the directory in a child process for `ms`: real → link to outside → real … */
function flipFor(ms: number): Promise<number> {
  const script = `
const fs = require('node:fs');
const [real, aside, outside, ms] = process.argv.slice(1);
const end = Date.now() + Number(ms);
let flips = 0;
while (Date.now() < end) {
  fs.renameSync(real, aside);
  fs.symlinkSync(outside, real, 'dir');
  fs.unlinkSync(real);
  fs.renameSync(aside, real);
  flips++;
}
process.stdout.write(String(flips));`;
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [
      '-e',
      script,
      flipped,
      `${flipped}.aside`,
      outside,
      String(ms),
    ]);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) =>
      code === 0 ? ok(Number(out)) : fail(new Error(`flipper exited ${code}`)),
    );
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });
function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((ok, fail) => {
    request({ host: '127.0.0.1', port, path, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        ok({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
    })
      .on('error', fail)
      .end();
  });
}

async function hammer(
  port: number,
  ms: number,
): Promise<{ answers: number; outside: number; ok: number }> {
  const paths = ['sarif', 'badges/MAINTENANCE.svg', 'badges/MAINTENANCE'].map(
    (p) => `/api/v1/repositories/${FLIPPED}/${p}`,
  );
  const flipping = flipFor(ms);
  let running = true;
  void flipping.then(() => (running = false));
  const counts = { answers: 0, outside: 0, ok: 0 };
  await Promise.all(
    Array.from({ length: 16 }, async (_, worker) => {
      for (let i = worker; running; i++) {
        const a = await get(port, paths[i % paths.length]!);
        counts.answers++;
        if (a.body.includes(CANARY)) counts.outside++;
        if (a.status === 200) counts.ok++;
      }
    }),
  );
  await flipping;
  return counts;
}

describe('serve under a symbolic-link race', () => {
  it('never answers with a file outside --dir, asking the disk on every request', async () => {
    const counts = await hammer(ports.everyRequest, 2500);
    // The race was run: many answers, some of them the real file.
    expect(counts.answers).toBeGreaterThan(100);
    expect(counts.ok).toBeGreaterThan(0);
    expect(counts.outside).toBe(0);
  }, 30_000);

  it('never answers with a file outside --dir, serving held copies', async () => {
    const counts = await hammer(ports.cached, 2500);
    expect(counts.answers).toBeGreaterThan(100);
    expect(counts.ok).toBeGreaterThan(0);
    expect(counts.outside).toBe(0);
  }, 30_000);
});
