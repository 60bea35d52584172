// One build at a time per output: a second build into an output another build is writing
// exits 5 with the holder named (or waits with --wait), a crashed holder's lease is taken
// over once it stopped renewing it (never because of its pid), on a directory and on a real
// S3 peer.
// And a final --prune leaves no empty per-time directory that a killed build made.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { DirectorySink } from '../src/publish/dir-sink.ts';
import { acquireLease, leaseKey, LeaseHeldError, type LeaseRecord } from '../src/io/lease.ts';
import { leasedSink } from '../src/publish/lease.ts';
import { runCli } from './helpers/cli.ts';
import { runCliAsync } from './helpers/cli-async.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { readTree } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';
import { startFaultProxy, type FaultProxy } from '../scripts/lib/fault-proxy.ts';

const dir = tempDir();
const NOW = '1763600000';
const small = join(dir, 'small');
generateStore({ repos: 4, scans: 3, out: small, seed: 7 });
const unix = () => Math.floor(Date.now() / 1000);

function lease(over: Partial<LeaseRecord>): string {
  return JSON.stringify({
    host: hostname(),
    pid: process.pid,
    token: 'other',
    acquiredAt: unix() - 60,
    expiresAt: unix() + 600,
    ...over,
  });
}

/** Lays a lease as another build's would be: the first generation of the lease's chain. */
function writeLease(out: string, text: string, key = leaseKey()) {
  mkdirSync(join(out, key.replace(/\.json$/, '')), { recursive: true });
  writeFileSync(join(out, key.replace(/\.json$/, ''), '0.json'), text);
}

/** The lease a directory holds now (its chain's highest generation), read by hand; undefined when none or released. */
function storedLease(out: string, key = leaseKey()): LeaseRecord | undefined {
  const chain = join(out, key.replace(/\.json$/, ''));
  const top = existsSync(chain)
    ? readdirSync(chain)
        .filter((n) => /^\d+\.json$/.test(n))
        .map((n) => Number.parseInt(n, 10))
        .sort((a, b) => b - a)[0]
    : undefined;
  const text = top === undefined ? '' : readFileSync(join(chain, `${top}.json`), 'utf8');
  return text === '' ? undefined : (JSON.parse(text) as LeaseRecord);
}

/** Waits until `done` holds, checking every 50 ms; fails after 10 s (a hang guard, not a timing check). */
async function until(done: () => boolean): Promise<void> {
  for (const started = Date.now(); !done(); await new Promise((ok) => setTimeout(ok, 50))) {
    if (Date.now() - started > 10_000)
      throw new Error('timed out waiting for the lease to be renewed');
  }
}

/** The pid of a process that has ended. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(r.stdout);
}

describe('the build lease on a directory', () => {
  it('a live lease of another build: exit 5, the holder named, nothing written', () => {
    const out = join(dir, 'held');
    writeLease(out, lease({ host: 'builder-7', pid: 4242 }));
    const r = runCli(['build', '--store', small, '--out', out, '--now', NOW, '--json']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      /being built by another badgepress build \(host builder-7, pid 4242, since .*lapses at .*\).*--wait SECONDS.*\.badgepress\/lease /,
    );
    expect(JSON.parse(r.stdout)).toMatchObject({
      exitCode: 5,
      holder: { host: 'builder-7', pid: 4242 },
    });
    expect(existsSync(join(out, 'api'))).toBe(false);
    expect(storedLease(out)?.token).toBe('other'); // left alone
  });

  it('a lease its holder stopped renewing, whatever its pid, or a torn one, is taken over; released at the end', async () => {
    for (const [name, text] of [
      ['expired', lease({ host: 'elsewhere', pid: 1, expiresAt: unix() - 1 })],
      // A build of this host with our own pid (pid 1 in one container after another).
      ['own-pid', lease({ expiresAt: unix() - 1 })],
      ['torn', '{"host": "half'],
    ] as const) {
      const out = join(dir, name);
      writeLease(out, text);
      const r = await runCommand(['build', '--store', small, '--out', out, '--now', NOW]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(storedLease(out), name).toBeUndefined();
      expect(existsSync(join(out, 'api')), name).toBe(true);
    }
  });

  it('a lease that is renewed holds whatever its pid says: a pid gone here (another PID namespace, same host name), or our own', async () => {
    for (const [name, text] of [
      ['other-namespace', lease({ pid: deadPid() })],
      ['same-pid', lease({ pid: process.pid })],
    ] as const) {
      const out = join(dir, name);
      writeLease(out, text);
      const r = await runCommand(['build', '--store', small, '--out', out, '--now', NOW]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(5);
      expect(r.stderr, name).toMatch(
        /it renews its lease while it runs, and the lease lapses at \S+ if it stops/,
      );
      expect(existsSync(join(out, 'api')), name).toBe(false);
    }
  });

  it('shards hold their own leases: a held shard 0 does not stop shard 1', async () => {
    const out = join(dir, 'shards');
    writeLease(out, lease({ host: 'builder-7' }), leaseKey({ index: 0, count: 2 }));
    expect(
      (await runCommand(['build', '--store', small, '--out', out, '--now', NOW, '--shard', '0/2']))
        .code,
    ).toBe(5);
    expect(
      (await runCommand(['build', '--store', small, '--out', out, '--now', NOW, '--shard', '1/2']))
        .code,
    ).toBe(0);
  });

  it('two builds at once: the second exits 5 while the first runs, or waits with --wait; the tree equals one build', async () => {
    const store = join(dir, 'big');
    // Large enough that the first build still holds its lease when the second looks (1,000+ files).
    generateStore({ repos: 40, scans: 4, out: store, seed: 9 });
    const clean = join(dir, 'clean');
    expect((await runCommand(['build', '--store', store, '--out', clean, '--now', NOW])).code).toBe(
      0,
    );
    const out = join(dir, 'race');
    let firstDone = false;
    const first = runCliAsync(['build', '--store', store, '--out', out, '--now', NOW]).then(
      (r) => ((firstDone = true), r),
    );
    while (!storedLease(out) && !firstDone) await new Promise((ok) => setTimeout(ok, 10));
    expect(firstDone, 'the first build ended before its lease was seen').toBe(false);
    const second = await runCommand(['build', '--store', small, '--out', out, '--now', NOW]);
    expect(second.code).toBe(5);
    expect(second.stderr).toContain(`pid ${storedLease(out)!.pid}`);
    const waiting = runCliAsync([
      'build',
      '--store',
      store,
      '--out',
      out,
      '--now',
      NOW,
      '--wait',
      '120',
      '--json',
    ]);
    expect((await first).code).toBe(0);
    const waited = await waiting;
    expect(waited.code, waited.stderr).toBe(0);
    expect(JSON.parse(waited.stdout).written).toBe(0); // it ran after the first, not beside it
    expect(readTree(out)).toEqual(readTree(clean));
  });

  it('renews while held, and says so when another took it over; it never writes over the taker', async () => {
    const out = join(dir, 'renew');
    const slot = new DirectorySink(out).leaseSlot(leaseKey());
    const lost: string[] = [];
    const held = await acquireLease(slot, { seconds: 1, onLost: (m) => lost.push(m) });
    const file = {
      key: 'api/v1/openapi.json',
      body: '{}',
      contentType: 'application/json',
      cacheControl: 'no-store',
      phase: 'latest',
    } as const;
    // While held, the leased sink writes.
    expect(await leasedSink(new DirectorySink(join(dir, 'renew-held')), held).put(file)).toBe(
      'written',
    );
    const first = held.record.expiresAt;
    const storedExpiry = () => storedLease(out)!.expiresAt;
    // Renewals run every quarter of a second; a loaded machine may delay them, so wait (bounded).
    await until(() => storedExpiry() > first);
    await expect(acquireLease(slot)).rejects.toBeInstanceOf(LeaseHeldError);
    // A thief takes the lease over as a build would, on the generation it read; a renewal of the
    // holder that moved the chain on first makes it try again. Once taken, no renewal writes over it.
    const thief = new DirectorySink(out).leaseSlot(leaseKey());
    for (let taken = false; !taken; ) {
      taken = await thief.replace(
        lease({ host: 'thief', token: 'stolen' }),
        (await thief.read())!.version,
      );
    }
    await until(() => held.lost);
    expect(lost[0]).toMatch(/could not be renewed/);
    // From then on the build publishes nothing more: its next file is refused.
    await expect(leasedSink(new DirectorySink(out), held).put(file)).rejects.toThrow(
      /build lease at \S+ was lost .*stopped publishing/,
    );
    expect(existsSync(join(out, 'api/v1/openapi.json'))).toBe(false);
    await held.release();
    expect(storedLease(out)?.token).toBe('stolen'); // not ours to end
  });
});

describe('the renewal window, on a clock of the test’s own', () => {
  it('a holder that stopped renewing is taken over once 60 s pass unrenewed, though its host and pid are ours (pid 1 in the next container); one that renews is not', async () => {
    // Only the renewal timer is faked (the file system and the test's own waits run for real).
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      let clock = 1_800_000_000;
      const now = () => clock;
      const out = join(dir, 'window');
      const slot = () => new DirectorySink(out).leaseSlot(leaseKey());
      const holder = await acquireLease(slot(), { now });
      // Two minutes of renewals, a quarter of the window at a time: never taken over.
      for (let quarter = 1; quarter <= 8; quarter++) {
        clock += 15;
        await vi.advanceTimersByTimeAsync(15_000);
        await until(() => storedLease(out)?.expiresAt === clock + 60);
        await expect(acquireLease(slot(), { now })).rejects.toBeInstanceOf(LeaseHeldError);
      }
      // The holder crashes: no more renewals; its lease stays, naming this host and our own pid.
      vi.clearAllTimers();
      const renewedAt = clock;
      expect(storedLease(out)).toMatchObject({
        host: hostname(),
        pid: process.pid,
        token: holder.record.token,
      });
      clock = renewedAt + 59;
      await expect(acquireLease(slot(), { now })).rejects.toBeInstanceOf(LeaseHeldError);
      clock = renewedAt + 60;
      const next = await acquireLease(slot(), { now });
      expect(storedLease(out)?.token).toBe(next.record.token);
      await next.release();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the build lease on S3', () => {
  let peer: S3Peer;
  let proxy: FaultProxy;
  const seen: { method: string; path: string; ifNoneMatch?: string; ifMatch?: string }[] = [];
  beforeAll(async () => {
    peer = await startS3Peer(['leased']);
    proxy = await startFaultProxy(peer.port);
    proxy.onRequest = (method, path, headers) => {
      if (path.includes('.badgepress'))
        seen.push({
          method,
          path,
          ifNoneMatch: headers['if-none-match'] as string,
          ifMatch: headers['if-match'] as string,
        });
    };
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await peer?.stop();
  });
  const args = (prefix: string) => [
    'build',
    '--store',
    small,
    '--out',
    `s3://leased/${prefix}`,
    '--s3-endpoint',
    proxy.endpoint,
    '--s3-path-style',
    '--now',
    NOW,
  ];

  it('creates the lease with If-None-Match: *, deletes it at the end; a live lease means exit 5', async () => {
    const r = await runCliAsync(args('a'), { env: peer.env });
    expect(r.code, r.stderr).toBe(0);
    const puts = seen.filter((s) => s.method === 'PUT');
    // First the probe that the store refuses a failing condition (two on a first build: the
    // probe object is made, then refused), then the lease.
    expect(puts.slice(0, 3)).toEqual([
      expect.objectContaining({
        path: expect.stringContaining('a/.badgepress/conditional-writes-probe'),
        ifNoneMatch: '*',
      }),
      expect.objectContaining({
        path: expect.stringContaining('a/.badgepress/conditional-writes-probe'),
        ifNoneMatch: '*',
      }),
      expect.objectContaining({
        path: expect.stringContaining('a/.badgepress/conditional-writes-probe'),
        ifMatch: expect.stringMatching(/^"0+"$/),
      }),
    ]);
    expect(puts[3]).toMatchObject({
      path: expect.stringContaining('a/.badgepress/lease.json'),
      ifNoneMatch: '*',
    });
    expect(seen.some((s) => s.method === 'DELETE')).toBe(true);
    expect((await peer.objects('leased', 'a/')).has(leaseKey())).toBe(false);

    const client = peer.client();
    await client.send(
      new PutObjectCommand({
        Bucket: 'leased',
        Key: 'b/.badgepress/lease.json',
        Body: lease({ host: 'builder-9', pid: 99 }),
      }),
    );
    const held = await runCommand(args('b'), { env: peer.env });
    expect(held.code).toBe(5);
    expect(held.stderr).toMatch(
      /host builder-9, pid 99.*s3:\/\/leased\/b\/\.badgepress\/lease\.json/s,
    );
    expect([...(await peer.objects('leased', 'b/')).keys()]).toEqual([
      '.badgepress/conditional-writes-probe',
      leaseKey(),
    ]);

    // Expired: taken over with If-Match on the stale lease's ETag.
    await client.send(
      new PutObjectCommand({
        Bucket: 'leased',
        Key: 'b/.badgepress/lease.json',
        Body: lease({ host: 'builder-9', expiresAt: unix() - 5 }),
      }),
    );
    const stale = await client.send(
      new GetObjectCommand({ Bucket: 'leased', Key: 'b/.badgepress/lease.json' }),
    );
    seen.length = 0;
    const taken = await runCommand(args('b'), { env: peer.env });
    expect(taken.code, taken.stderr).toBe(0);
    expect(seen.find((s) => s.method === 'PUT' && s.path.includes('lease.json'))).toMatchObject({
      ifMatch: stale.ETag,
    });
    client.destroy();
  });

  it('a publish failure is reported with the keys not published; a failure to release the lease is added to it, not put in its place', async () => {
    // From the first PUT of the site on, the bucket refuses everything: the lease's release too.
    let refusing = false;
    proxy.deny = (method, path) => (refusing ||= method === 'PUT' && path.includes('/api/'));
    const r = await runCommand([...args('c'), '--json'], { env: peer.env });
    proxy.deny = undefined;
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/^badgepress: [\d,]+ keys not published: AccessDenied/m);
    expect(r.stderr).toMatch(/^ {2}not published: api\/v1\/repositories\/\S+ \(AccessDenied/m);
    expect(r.stderr).toMatch(
      /^ {2}also: --out s3:\/\/leased\/c\/: cannot read the build lease s3:\/\/leased\/c\/\.badgepress\/lease\.json \(AccessDenied/m,
    );
    const json = JSON.parse(r.stdout);
    expect(json.notPublished.length).toBeGreaterThan(0);
    expect(json.also).toEqual([expect.stringMatching(/cannot read the build lease/)]);
  });
});

describe('the build lease on an S3 store that ignores conditional writes', () => {
  let peer: S3Peer;
  beforeAll(async () => {
    peer = await startS3Peer(['lax']);
  }, 60_000);
  afterAll(async () => peer?.stop());

  it('build refuses with exit 2, naming s3.conditionalWrites, and writes no site; the setting publishes with a warning', async () => {
    // s3rver itself, without the front that honours If-None-Match and If-Match.
    const args = [
      'build',
      '--store',
      small,
      '--out',
      's3://lax/site',
      '--s3-endpoint',
      peer.rawEndpoint,
      '--s3-path-style',
      '--now',
      NOW,
    ];
    const refused = await runCommand(args, { env: peer.env });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /s3:\/\/lax\/site\/\.badgepress\/lease\.json: the store ignores conditional writes .*cannot keep two builds .*apart.*s3\.conditionalWrites: unsupported-accept-risk/,
    );
    expect([...(await peer.objects('lax', 'site/')).keys()]).toEqual([
      '.badgepress/conditional-writes-probe',
    ]);

    const config = join(dir, 'lax.yaml');
    writeFileSync(config, 's3:\n  conditionalWrites: unsupported-accept-risk\n');
    const accepted = await runCommand([...args, '--config', config], { env: peer.env });
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toMatch(
      /warning: the store at s3:\/\/lax\/site\/\.badgepress\/lease\.json ignores conditional writes: the lease cannot keep a second build started at the same moment/,
    );
    expect((await peer.objects('lax', 'site/')).has('api/v1/openapi.json')).toBe(true);
  });
});

describe('--prune after builds killed with changed input', () => {
  it('removes the empty per-time directories a killed build made', async () => {
    const out = join(dir, 'prune');
    expect((await runCommand(['build', '--store', small, '--out', out, '--now', NOW])).code).toBe(
      0,
    );
    const repos = join(out, 'api/v1/repositories');
    const repo = join(repos, readdirSync(repos)[0]!);
    // What a build killed between mkdir and its first write leaves for a time no store holds now.
    mkdirSync(join(repo, 'at/1700000000/badges'), { recursive: true });
    mkdirSync(join(repo, 'at/1700000001/expired/badges'), { recursive: true });
    expect((await runCommand(['build', '--store', small, '--out', out, '--now', NOW])).code).toBe(
      0,
    );
    expect(existsSync(join(repo, 'at/1700000000'))).toBe(true); // only --prune removes
    expect(
      (await runCommand(['build', '--store', small, '--out', out, '--now', NOW, '--prune'])).code,
    ).toBe(0);
    expect(readdirSync(join(repo, 'at')).filter((t) => t.startsWith('17000000'))).toEqual([]);
    expect(readTree(out).size).toBeGreaterThan(0);
  });
});
