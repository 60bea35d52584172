// docs/guides/cloudflare-worker.md, steps 2 and 3 as written, in a copy of the checkout's
// tracked files (its node_modules linked): the bundle, the wrangler.toml, a local build and
// the local run in workerd at the guide's compatibility_date, which the pinned workerd must
// accept. Only the port is this test's own (0: the system picks one).
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { copyTracked } from './helpers/checkout.ts';
import { describe, expect, it } from 'vitest';
import { tomlStrings } from '../scripts/worker-local.ts';
import { childEnv, ROOT, spawnChecked } from './helpers/cli.ts';
import { startServeChild } from './helpers/serve-child.ts';
import { tempDir } from './helpers/tmp.ts';

const guide = readFileSync(join(ROOT, 'docs/guides/cloudflare-worker.md'), 'utf8');
const toml = /```toml\n([^]*?)```/.exec(guide)![1]!;
const steps = /```sh\n(# 3\. [^]*?)```/.exec(guide)![1]!;
const step2 = /^npm run build:worker\b.*$/m.exec(guide)![0].replace(/\s+#.*$/, '');
const command = (re: RegExp) => re.exec(steps)![0];

describe('docs/guides/cloudflare-worker.md', () => {
  it('names a compatibility_date the pinned workerd supports', () => {
    const supported = (createRequire(import.meta.url)('workerd') as { compatibilityDate: string }).compatibilityDate;
    const date = tomlStrings(toml).compatibility_date;
    expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(date! <= supported, `${date} is later than workerd's ${supported}`).toBe(true);
    expect(date! >= '2022-10-31').toBe(true);
  });

  it('runs the bundle locally as step 3 says: the badge answers 200, ?timestamp= a 302', async () => {
    const dir = tempDir('badgepress-worker-');
    copyTracked(dir);
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'wrangler.toml'), toml);
    const sh = (line: string) => {
      const r = spawnChecked('sh', ['-c', line], { cwd: dir, env: childEnv(), timeout: 120_000 });
      expect(r.status, `${line}\n${r.stderr}`).toBe(0);
      return r;
    };
    expect(sh(step2).stdout).toMatch(/worker bundle: dist-worker\/worker\.js \(\d+ bytes\)/);
    sh(command(/^npx badgepress build .*$/m));
    const run = command(/^npm run worker:local .*$/m);
    expect(run).toMatch(/ --port 8788$/);
    const worker = await startServeChild('sh', ['-c', run.replace(/ --port 8788$/, ' --port 0')], { cwd: dir, env: childEnv(), detached: true }, /worker: (http:\/\/\S+?)\/ /);
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
