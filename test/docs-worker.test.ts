// docs/guides/cloudflare-worker.md, steps 2 and 3 as written, in a copy of the checkout's
// tracked files (its node_modules linked): the bundle, the wrangler.toml, a local build and
// the local run in workerd at the guide's compatibility_date, which the pinned workerd must
// accept. Only the port is this test's own (0: the system picks one).
import { spawn } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { copyTracked } from './helpers/checkout.ts';
import { describe, expect, it } from 'vitest';
import { tomlStrings } from '../scripts/worker-local.ts';
import { childEnv, ROOT, spawnChecked } from './helpers/cli.ts';
import { freePort } from './helpers/free-port.ts';
import { startServeChild } from './helpers/serve-child.ts';
import { tempDir } from './helpers/tmp.ts';

const guide = readFileSync(join(ROOT, 'docs/guides/cloudflare-worker.md'), 'utf8');
const toml = /```toml\n([^]*?)```/.exec(guide)![1]!;
const steps = /```sh\n(# 3\. [^]*?)```/.exec(guide)![1]!;
const step2 = /^npm run build:worker\b.*$/m.exec(guide)![0].replace(/\s+#.*$/, '');
const command = (re: RegExp) => re.exec(steps)![0];

describe('docs/guides/cloudflare-worker.md', () => {
  it('names a compatibility_date the pinned workerd supports', () => {
    const supported = (createRequire(import.meta.url)('workerd') as { compatibilityDate: string })
      .compatibilityDate;
    const date = tomlStrings(toml).compatibility_date;
    expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(date! <= supported, `${date} is later than workerd's ${supported}`).toBe(true);
    expect(date! >= '2022-10-31').toBe(true);
  });

  it('runs the bundle locally as step 3 says: the badge answers 200, ?timestamp= a 302', async () => {
    const dir = tempDir('badgepress-worker-');
    copyTracked(dir);
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const sh = (line: string) => {
      const r = spawnChecked('sh', ['-c', line], { cwd: dir, env: childEnv(), timeout: 120_000 });
      expect(r.status, `${line}\n${r.stderr}`).toBe(0);
      return r;
    };
    const run = command(/^npm run worker:local .*$/m);
    expect(run).toMatch(/ --port 8788$/);
    // Before step 2, no bundle: one line saying what to run, exit 2, no stack trace.
    const early = spawnChecked('sh', ['-c', run], { cwd: dir, env: childEnv(), timeout: 60_000 });
    expect(early.status).toBe(2);
    expect(early.stderr).toMatch(
      /^worker:local: \S+dist-worker\/worker\.js \(main in the default settings\) is missing: run "npm run build:worker" first\n$/m,
    );
    expect(early.stderr).not.toMatch(/^\s+at /m);
    expect(sh(step2).stdout).toMatch(/worker bundle: dist-worker\/worker\.js \(\d+ bytes\)/);
    sh(command(/^npx badgepress build .*$/m));
    // Without a saved wrangler.toml it runs on its own defaults, and its port answers only
    // once the bucket is full: asked from the start, the badge is refused (not listening) until
    // its first answer, a 200, never a 404 for a file not yet put.
    const port = await freePort();
    const badge = command(/^curl .*$/m)
      .replace(/^curl -sI /, '')
      .replace('8788', String(port));
    const defaults = spawn('sh', ['-c', run.replace(/ --port 8788$/, ` --port ${port}`)], {
      cwd: dir,
      env: childEnv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    defaults.stdout!.on('data', (c: Buffer) => (printed += c.toString()));
    defaults.stderr!.on('data', (c: Buffer) => (printed += c.toString()));
    try {
      const answers: number[] = [];
      const deadline = Date.now() + 90_000;
      while (!answers.includes(200) && Date.now() < deadline && defaults.exitCode === null) {
        const status = await fetch(badge).then(
          (r) => r.status,
          () => 0,
        );
        if (status !== 0) answers.push(status);
        else await sleep(20);
      }
      expect(answers[0], printed).toBe(200);
      for (let i = 0; i < 500 && !printed.includes('worker: '); i++) await sleep(20);
      expect(printed).toMatch(
        /^worker: http:\/\/127\.0\.0\.1:\d+\/ \(.*no wrangler\.toml here, so main = "dist-worker\/worker\.js", compatibility_date = "\d{4}-\d{2}-\d{2}"; Ctrl\+C stops\)$/m,
      );
    } finally {
      process.kill(-defaults.pid!, 'SIGTERM');
    }
    writeFileSync(join(dir, 'wrangler.toml'), toml);
    const worker = await startServeChild(
      'sh',
      ['-c', run.replace(/ --port 8788$/, ' --port 0')],
      { cwd: dir, env: childEnv(), detached: true },
      /worker: (http:\/\/\S+?)\/ /,
    );
    try {
      const curl = command(/^curl .*$/m).replace('http://127.0.0.1:8788', worker.url);
      const head = spawnChecked('sh', ['-c', curl], { timeout: 30_000 });
      expect(head.stdout).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(head.stdout).toMatch(/\r\ncontent-type: image\/svg\+xml/i);
      const url = /'?(http:\S+?)'?$/.exec(curl)![1]!;
      const redirect = await fetch(`${url}?timestamp=1762000001`, { redirect: 'manual' });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toMatch(/\/at\/\d+\/badges\/MAINTENANCE\.svg$/);
    } finally {
      await worker.stop();
    }
  }, 120_000);
});
