// Bounded race tests of the build lease: in each trial several would-be holders start at
// the same moment, in one process (their reads and writes interleave on the event loop and
// the thread pool), on an output that holds no lease or a stale one; exactly one must win and
// the stored lease must be its. Both kinds of store: a directory, and S3 through a peer that
// honours conditional writes (s3rver behind the front of scripts/lib/s3rver-process.mjs);
// s3rver alone, which ignores them, is refused.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectorySink } from '../src/publish/dir-sink.ts';
import { S3Sink } from '../src/publish/s3-sink.ts';
import {
  acquireLease,
  ConditionalWritesError,
  leaseKey,
  LeaseHeldError,
  type Lease,
  type LeaseSlot,
} from '../src/io/lease.ts';
import { startS3Peer, type S3Peer } from '../scripts/lib/s3-peer.ts';
import { startFaultProxy } from '../scripts/lib/fault-proxy.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const CONTENDERS = 4;
const unix = () => Math.floor(Date.now() / 1000);
/** A lease its holder stopped renewing long ago. */
const staleLease = () =>
  JSON.stringify({
    host: 'gone',
    pid: 1,
    token: 'stale',
    acquiredAt: unix() - 900,
    expiresAt: unix() - 300,
  });

/**
 * A store that notes every call of one contender with its time and answer, so a trial with
 * other than one holder says what each contender read and wrote, and when.
 */
function traced(slot: LeaseSlot, name: string, log: string[], t0: number): LeaseSlot {
  const note = (what: string) =>
    log.push(`${(performance.now() - t0).toFixed(1)} ms ${name} ${what}`);
  const token = (text: string | undefined) =>
    text === undefined
      ? 'none'
      : (/"token": ?"([^"]*)"/.exec(text)?.[1] ??
        `unparsable ${JSON.stringify(text.slice(0, 40))}`);
  return {
    where: slot.where,
    read: async () => {
      const r = await slot.read();
      note(`read ${token(r?.text)} version ${r?.version ?? '-'}`);
      return r;
    },
    create: async (text) => {
      const ok = await slot.create(text);
      note(`create ${token(text)} ${ok ? 'ok' : 'refused'}`);
      return ok;
    },
    replace: async (text, version) => {
      const ok = await slot.replace(text, version);
      note(`replace ${token(text)} if ${version} ${ok ? 'ok' : 'refused'}`);
      return ok;
    },
    remove: (version) => slot.remove(version),
  };
}

/**
 * Runs `trials` trials: `prepare` lays the output's lease (none or stale), then CONTENDERS
 * stores race to acquire it. Returns the trials that had other than exactly one holder, each
 * with the holders' tokens and every contender's reads and writes with their times.
 */
async function race(
  trials: number,
  slots: () => LeaseSlot[],
  prepare: (trial: number) => Promise<void>,
  storedToken: () => Promise<string | undefined>,
): Promise<string[]> {
  const bad: string[] = [];
  for (let trial = 0; trial < trials; trial++) {
    await prepare(trial);
    const log: string[] = [];
    const t0 = performance.now();
    const results = await Promise.allSettled(
      slots().map((s, i) => acquireLease(traced(s, `#${i}`, log, t0))),
    );
    const held = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refusals = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    for (const e of refusals) if (!(e instanceof LeaseHeldError)) throw e;
    const stored = await storedToken();
    if (held.length !== 1 || stored !== held[0]!.record.token) {
      const holders = held
        .map(
          (l) =>
            `${l.record.token} (acquired ${l.record.acquiredAt}, expires ${l.record.expiresAt})`,
        )
        .join(', ');
      bad.push(
        `trial ${trial}: ${held.length} holders [${holders}], stored token ${stored}\n  ${log.join('\n  ')}`,
      );
    }
    await Promise.all(held.map((l: Lease) => l.release()));
  }
  return bad;
}

describe('the lease on a directory under racing builds', () => {
  it('exactly one of four takes a free lease, and exactly one takes over a stale one, in every trial', async () => {
    const out = join(dir, 'race');
    const slots = () =>
      Array.from({ length: CONTENDERS }, () => new DirectorySink(out).leaseSlot(leaseKey()));
    const token = async () =>
      (await slots()[0]!.read()) ? JSON.parse((await slots()[0]!.read())!.text).token : undefined;
    const free = await race(
      40,
      slots,
      async () => rmSync(join(out, '.badgepress'), { recursive: true, force: true }),
      token,
    );
    expect(free).toEqual([]);
    // 150 trials: the old read, compare and rename gave two holders in 3 of 60 such trials
    // (1 in 190 in the audit's); with 50 a run missed it about 8% of the time. No interleaving
    // forced from outside the store catches it every time: the gap is inside replace().
    const stale = await race(
      150,
      slots,
      async () => {
        rmSync(join(out, '.badgepress'), { recursive: true, force: true });
        const s = slots()[0]!;
        expect(await s.create(staleLease())).toBe(true);
      },
      token,
    );
    expect(stale).toEqual([]);
  });
});

describe('the lease on a directory under builds racing in processes of their own', () => {
  it('three processes take over a stale lease: exactly one holds it, in every trial', async () => {
    const out = join(dir, 'processes');
    const control = join(dir, 'control');
    mkdirSync(control);
    const TRIALS = 20;
    const contenders = Array.from({ length: 3 }, () =>
      spawn(
        process.execPath,
        [
          fileURLToPath(new URL('./helpers/lease-contender.mjs', import.meta.url)),
          out,
          control,
          String(TRIALS),
        ],
        {
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      ),
    );
    const exited = contenders.map((c) => new Promise((ok) => c.once('exit', ok)));
    const slot = new DirectorySink(out).leaseSlot(leaseKey());
    const files = (suffix: string) => readdirSync(control).filter((n) => n.endsWith(suffix));
    const waitFor = async (done: () => boolean) => {
      for (const started = Date.now(); !done(); await new Promise((ok) => setTimeout(ok, 2))) {
        if (Date.now() - started > 20_000)
          throw new Error('the contender processes stopped answering');
      }
    };
    const bad: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      rmSync(join(out, '.badgepress'), { recursive: true, force: true });
      expect(await slot.create(staleLease())).toBe(true);
      writeFileSync(join(control, `go-${trial}`), '');
      await waitFor(
        () =>
          files('').filter((n) => n.startsWith(`${trial}-`) && !n.endsWith('.done')).length === 3,
      );
      const tokens = readdirSync(control)
        .filter((n) => n.startsWith(`${trial}-`) && !n.endsWith('.done'))
        .map((n) => readFileSync(join(control, n), 'utf8'))
        .filter((t) => t !== 'refused');
      const stored = JSON.parse((await slot.read())!.text).token;
      if (tokens.length !== 1 || tokens[0] !== stored)
        bad.push(`trial ${trial}: ${tokens.length} holders`);
      writeFileSync(join(control, `release-${trial}`), '');
      await waitFor(() => files('.done').filter((n) => n.startsWith(`${trial}-`)).length === 3);
    }
    await Promise.all(exited);
    expect(bad).toEqual([]);
  }, 60_000);
});

describe('the lease on S3 under racing builds', () => {
  let peer: S3Peer;
  let client: S3Client;
  beforeAll(async () => {
    peer = await startS3Peer(['race']);
    client = peer.client();
  }, 60_000);
  afterAll(async () => {
    client?.destroy();
    await peer?.stop();
  });
  const sinkOn = (endpoint: string, prefix: string) =>
    new S3Sink(peer.client(endpoint), { bucket: 'race', prefix });
  const Key = `r/${leaseKey()}`;

  it('a peer that honours If-None-Match and If-Match: exactly one of four takes a free lease or a stale one, in every trial', async () => {
    const sinks = Array.from({ length: CONTENDERS }, () => sinkOn(peer.endpoint, 'r/'));
    const slots = () => sinks.map((s) => s.leaseSlot(leaseKey()));
    const token = async () => {
      try {
        return JSON.parse(
          await (
            await client.send(new GetObjectCommand({ Bucket: 'race', Key }))
          ).Body!.transformToString(),
        ).token as string;
      } catch {
        return undefined;
      }
    };
    const free = await race(
      30,
      slots,
      async () => void (await client.send(new DeleteObjectCommand({ Bucket: 'race', Key }))),
      token,
    );
    expect(free).toEqual([]);
    const stale = await race(
      30,
      slots,
      async () =>
        void (await client.send(new PutObjectCommand({ Bucket: 'race', Key, Body: staleLease() }))),
      token,
    );
    expect(stale).toEqual([]);
    await Promise.all(sinks.map((s) => s.close()));
  }, 120_000);

  it('a lost answer to the conditional PUT: the retry is refused with 412, and the lease read back is ours', async () => {
    const proxy = await startFaultProxy(peer.port);
    let first = true;
    proxy.loseAnswer = (method, path) =>
      method === 'PUT' &&
      path.includes('lossy/.badgepress/lease.json') &&
      first &&
      !(first = false);
    const retrying = new S3Client({
      endpoint: proxy.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      maxAttempts: 3,
    });
    const sink = new S3Sink(retrying, { bucket: 'race', prefix: 'lossy/' });
    const held = await acquireLease(sink.leaseSlot(leaseKey()));
    expect(proxy.injected['lost-answer']).toBe(1);
    const stored = JSON.parse(
      (await peer.objects('race', 'lossy/')).get(leaseKey())!.body.toString(),
    );
    expect(stored.token).toBe(held.record.token);
    await held.release();
    expect((await peer.objects('race', 'lossy/')).has(leaseKey())).toBe(false);
    await sink.close();
    await proxy.close();
  });

  it('a store that ignores conditional writes: refused, naming the setting, unless the config accepts the risk', async () => {
    const sink = sinkOn(peer.rawEndpoint, 'raw/');
    const err = await acquireLease(sink.leaseSlot(leaseKey())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConditionalWritesError);
    expect((err as Error).message).toMatch(
      /^s3:\/\/race\/raw\/\.badgepress\/lease\.json: the store ignores conditional writes .*s3\.conditionalWrites: unsupported-accept-risk/,
    );
    expect((await peer.objects('race', 'raw/')).has(leaseKey())).toBe(false);
    const warnings: string[] = [];
    const held = await acquireLease(sink.leaseSlot(leaseKey()), {
      conditionalWrites: 'unsupported-accept-risk',
      onWarning: (m) => warnings.push(m),
    });
    expect(warnings).toEqual([
      expect.stringMatching(/ignores conditional writes: the lease cannot keep a second build/),
    ]);
    await held.release();
    await sink.close();
  });
});
