// A git remote that quotes the token in its own error (issue 36 R3-3): git prints the remote's
// words ("fatal: remote error: access denied for token …"), and what the scan keeps of them
// holds no form of the token. A real git process against a loopback server that answers
// info/refs with a pkt-line ERR, as a smart-HTTP server refusing a client does.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GitError, startGit } from '../src/measure/git/run.ts';
import { gitTokenConfig } from '../src/measure/git/credentials.ts';
import { closeServer, listenLocal } from '../scripts/lib/listen.ts';

const TOKEN = 'canary-git-5e1d7b';
const pkt = (s: string) => (s.length + 4).toString(16).padStart(4, '0') + s;
const seen: string[] = [];

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(String(req.headers.authorization));
    res.writeHead(200, {
      'content-type': 'application/x-git-upload-pack-advertisement',
      'cache-control': 'no-cache',
    });
    res.end(
      `${pkt('# service=git-upload-pack\n')}0000${pkt(`ERR access denied for token ${TOKEN} (basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')})\n`)}`,
    );
  });
  port = await listenLocal(server);
});
afterAll(() => closeServer(server));

it("keeps no form of the token of git's error when the remote quotes it", async () => {
  const settings = {
    timeoutMs: 20_000,
    secretConfig: gitTokenConfig('http', `127.0.0.1:${port}`, TOKEN),
  };
  const child = startGit({ args: ['ls-remote', `http://127.0.0.1:${port}/private.git`], settings });
  child.stdout.resume();
  const error = await child.done.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GitError);
  // The token did go to its host, in the header, so the remote could quote it.
  expect(seen[0]).toBe(`Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`);
  const { message, stderr } = error as GitError;
  expect(message).toContain('remote error: access denied for token ***');
  for (const text of [message, stderr]) {
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(Buffer.from(`x-access-token:${TOKEN}`).toString('base64'));
  }
});
