// `badgepress serve` never reads outside --dir, whatever the tree holds: a symbolic link
// inside the built directory that points outside it (a file, or a whole repository
// directory) is answered 404, never with the outside bytes. Links that stay inside work.
import { listenLocal, closeServer } from '../scripts/lib/listen.ts';
import { mkdirSync, symlinkSync, writeFileSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteServer } from '../src/resolver/adapter/node/server.ts';
import { conformanceSite, WIDGET } from './conformance/fixture.ts';
import { httpRunner } from './conformance/http-runner.ts';

const dir = await conformanceSite();
const repos = join(dir, 'api/v1/repositories');
const CANARY = 'CANARY-symlink-4b1e outside the site';
const LEAK = encodeURIComponent('https://leak.example/outside/repo');

// Outside the served directory: a repository's worth of files holding the canary.
const outside = join(dirname(dir), 'outside');
mkdirSync(join(outside, 'badges'), { recursive: true });
writeFileSync(join(outside, 'sarif'), CANARY);
writeFileSync(join(outside, 'badges/MAINTENANCE.svg'), `<svg>${CANARY}</svg>`);
writeFileSync(
  join(outside, 'index.json'),
  JSON.stringify({ repositoryUrl: CANARY, timestamps: [1], badges: ['MAINTENANCE'] }),
);
// A linked repository directory, and linked files inside a real repository directory.
symlinkSync(outside, join(repos, LEAK), 'dir');
const widget = join(repos, WIDGET);
renameSync(join(widget, 'sarif'), join(widget, 'sarif.real'));
symlinkSync(join(outside, 'sarif'), join(widget, 'sarif'));
renameSync(join(widget, 'badges/SECURITY.svg'), join(widget, 'badges/SECURITY.svg.real'));
symlinkSync(
  '../../../../../../outside/badges/MAINTENANCE.svg',
  join(widget, 'badges/SECURITY.svg'),
);
// A link that stays inside the directory is an ordinary file.
symlinkSync('REUSED', join(widget, 'badges/REUSED-LINK'));
// The served directory itself reached through a link (a blue-green switch of dist/).
const linkedRoot = join(dirname(dir), 'current');
symlinkSync(dir, linkedRoot, 'dir');

const server = createSiteServer(dir);
const viaLink = createSiteServer(linkedRoot);
let port = 0;
let linkPort = 0;
const run = httpRunner('127.0.0.1', () => port);
const runViaLink = httpRunner('127.0.0.1', () => linkPort);

beforeAll(async () => {
  port = await listenLocal(server);
  linkPort = await listenLocal(viaLink);
});
afterAll(async () => {
  await closeServer(server);
  await closeServer(viaLink);
});

describe('serve never reads outside --dir through a symbolic link', () => {
  it('a linked repository directory that points outside is never served', async () => {
    for (const path of [
      'sarif',
      'index.json',
      'badges/MAINTENANCE.svg',
      'badges/MAINTENANCE.svg?timestamp=5',
    ]) {
      const a = await run({ method: 'GET', url: `/api/v1/repositories/${LEAK}/${path}` });
      expect(a.status, path).toBe(404);
      expect(a.body, path).not.toContain(CANARY);
    }
  });

  it('a linked file that points outside is never served, absolute or relative link', async () => {
    // The links do reach the canary: only serve's check keeps it out.
    expect(readFileSync(join(widget, 'badges/SECURITY.svg'), 'utf8')).toContain(CANARY);
    expect(readFileSync(join(widget, 'sarif'), 'utf8')).toContain(CANARY);
    for (const path of ['sarif', 'badges/SECURITY.svg']) {
      const a = await run({ method: 'GET', url: `/api/v1/repositories/${WIDGET}/${path}` });
      expect(a.status, path).toBe(404);
      expect(a.body, path).not.toContain(CANARY);
    }
  });

  it('links that stay inside the directory, and a linked --dir, are served as usual', async () => {
    const reused = readFileSync(join(widget, 'badges/REUSED'), 'utf8');
    const linked = await run({
      method: 'GET',
      url: `/api/v1/repositories/${WIDGET}/badges/REUSED-LINK`,
    });
    expect(linked.status).toBe(200);
    expect(linked.body).toBe(reused);
    const direct = await runViaLink({
      method: 'GET',
      url: `/api/v1/repositories/${WIDGET}/badges/REUSED`,
    });
    expect(direct.status).toBe(200);
    expect(direct.body).toBe(reused);
  });
});
