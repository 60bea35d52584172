// `npm start` (badgepress demo): builds the example, serves it, prints a README badge line
// whose URLs answer. Spawned as a user runs it, on a port the OS picks, and stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { get } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, ROOT, runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
});

/** Starts the demo and resolves with its stdout once the README badge line is printed. */
function startDemo(args: string[]): Promise<{ child: ChildProcess; stdout: string }> {
  return new Promise((ok, fail) => {
    const child = spawn(CLI[0], [...CLI.slice(1), 'demo', ...args], {
      cwd: ROOT,
      env: { ...process.env, CI: 'true' },
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (/README badge line:\n {2}\[!\[.*\]\(.*\)\]\(.*\)\n/.test(stdout)) ok({ child, stdout });
    });
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) =>
      fail(new Error(`demo exited ${code} before printing the badge line:\n${stdout}\n${stderr}`)),
    );
  });
}

function fetchOverSocket(
  url: string,
): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((ok, fail) => {
    get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        ok({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    }).on('error', fail);
  });
}

describe('badgepress demo (npm start)', () => {
  it('serves the example on the port asked for, and the printed badge line renders', async () => {
    const out = join(tempDir(), 'dist');
    const { child, stdout } = await startDemo([
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--out',
      out,
      '--now',
      '1763600000',
    ]);
    const [, alt, image, link] =
      /README badge line:\n {2}\[!\[([^\]]+)\]\(([^)]+)\)\]\(([^)]+)\)/.exec(stdout)!;
    expect(image).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/repositories\/[^/]+%3A[^/]+\/badges\/[A-Z-]+\.svg$/,
    );
    expect(image).not.toContain(':0/');
    const badge = await fetchOverSocket(image!);
    expect(badge.status).toBe(200);
    expect(badge.type).toBe('image/svg+xml');
    expect(badge.body).toContain(`aria-label="${alt}:`);
    // The badge links to the repository's page, which shows that same badge image.
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/repositories\/[^/]+%3A[^/]+\/$/);
    const page = await fetchOverSocket(link!);
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.body).toContain(`src="${new URL(image!).pathname}"`);
    // The site is built with the address it is served at: the explanation links back to it.
    const explanation = await fetchOverSocket(image!.replace(/\.svg$/, ''));
    expect(explanation.status).toBe(200);
    expect(JSON.parse(explanation.body).badgeUrl.startsWith(image!)).toBe(true);
    expect(stdout).toMatch(/served at http:\/\/127\.0\.0\.1:\d+\/ \(open it in a browser/);
    child.kill('SIGTERM');
    expect(await new Promise((ok) => child.on('exit', ok))).toBe(0);
  }, 60_000);

  it('a second start, with nothing to redo, shows the same example: the first repository of the site and its first badge', async () => {
    const out = join(tempDir(), 'dist');
    const start = async () => {
      const { child, stdout } = await startDemo([
        '--port',
        '0',
        '--out',
        out,
        '--now',
        '1763600000',
        '--base-url',
        'https://badges.example.org',
      ]);
      child.kill('SIGTERM');
      await new Promise((ok) => child.on('exit', ok));
      // Served on a port the OS picks: another each time.
      const line = /README badge line:\n(.*)\n/
        .exec(stdout)![1]!
        .replace(/127\.0\.0\.1:\d+/g, 'demo');
      return {
        line,
        stdout,
        reused: /\((\d+) unchanged since the last build, not read\)/.exec(stdout)?.[1],
      };
    };
    const first = await start();
    const again = await start();
    // Every repository carried over from the build state, none loaded again.
    expect(first.reused).toBeUndefined();
    expect(again.reused).toBe(/^badgepress: (\d+) repositories/m.exec(again.stdout)?.[1]);
    expect(again.line).toBe(first.line);
    const repository = readdirSync(join(out, 'api/v1/repositories')).sort()[0]!;
    const index = JSON.parse(
      readFileSync(join(out, 'api/v1/repositories', repository, 'index.json'), 'utf8'),
    ) as {
      badges: string[];
    };
    expect(first.line).toContain(
      `/api/v1/repositories/${repository}/badges/${index.badges[0]}.svg)`,
    );
  }, 60_000);

  it('a busy port is a usage error that says how to pick another', async () => {
    const blocker = createServer();
    await new Promise<void>((ok) => blocker.listen(0, '127.0.0.1', ok));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = runCli(['demo', '--port', String(port), '--out', join(tempDir(), 'dist')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `--port ${port}: already in use; pick another, e.g. npm start -- --port 9000`,
      );
    } finally {
      await new Promise<void>((ok) => blocker.close(() => ok()));
    }
  }, 60_000);

  it('--port without a number, or out of range, is a usage error', () => {
    const missing = runCli(['demo', '--port']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--port needs a value');
    const range = runCli(['demo', '--port=70000']);
    expect(range.code).toBe(2);
    expect(range.stderr).toContain('--port "70000": expected a whole number from 0 to 65535');
  });
});
