// A real S3 protocol server for the tests and the bench: s3rver on 127.0.0.1 in a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';

/** The part of s3rver's own storage layer (lib/stores/filesystem.js) `objects` reads with. */
interface S3rverStore {
  listObjects(
    bucket: string,
    options: { prefix: string },
  ): Promise<{ objects: Array<{ key: string; metadata: Record<string, string> }> }>;
  getResourcePath(bucket: string, key: string, resource: 'object'): string;
}
const FilesystemStore = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js') as new (
  dir: string,
) => S3rverStore;

export interface S3Peer {
  /** Honours If-None-Match and If-Match on PUT, as AWS S3 does (see s3rver-process.mjs). */
  endpoint: string;
  port: number;
  /** s3rver itself, which accepts a conditional PUT whatever its condition, as some S3-compatible stores do. */
  rawEndpoint: string;
  /** Settings for site.s3 / the CLI that talk to this peer. */
  env: Record<string, string>;
  client(endpoint?: string): S3Client;
  /**
   * Every object under a prefix: key (without the prefix) → body, content type, cache control.
   * Read through s3rver's own storage layer from its directory, not over HTTP: a GetObject per
   * key through the SDK cost more CPU than the builds under test.
   */
  objects(
    bucket: string,
    prefix?: string,
  ): Promise<Map<string, { body: Buffer; contentType?: string; cacheControl?: string }>>;
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./s3rver-process.mjs', import.meta.url));

export async function startS3Peer(buckets: string[]): Promise<S3Peer> {
  const dir = mkdtempSync(join(tmpdir(), 'badgepress-s3-'));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--openssl-legacy-provider', SCRIPT, dir, ...buckets],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [port, rawPort] = await new Promise<[number, number]>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^(\d+) (\d+)\n/.exec(out);
      if (m) ok([Number(m[1]), Number(m[2])]);
    });
    child.once('exit', (code) => fail(new Error(`s3rver exited with ${code}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const store = new FilesystemStore(dir);
  /** s3rver writes an object's metadata file in place: a listing while a PUT is in flight can read it half-written. */
  const listing = async (bucket: string, prefix: string) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await store.listObjects(bucket, { prefix })).objects;
      } catch (err) {
        if (!(err instanceof SyntaxError) || attempt === 20) throw err;
        await new Promise((ok) => setTimeout(ok, 25));
      }
    }
  };
  const env = {
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
  };
  const client = (ep = endpoint) =>
    new S3Client({
      endpoint: ep,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      maxAttempts: 1,
    });
  return {
    endpoint,
    port,
    rawEndpoint: `http://127.0.0.1:${rawPort}`,
    env,
    client,
    async objects(bucket, prefix = '') {
      const out = new Map<string, { body: Buffer; contentType?: string; cacheControl?: string }>();
      for (const o of await listing(bucket, prefix)) {
        out.set(o.key.slice(prefix.length), {
          body: await readFile(store.getResourcePath(bucket, o.key, 'object')),
          ...(o.metadata['content-type'] ? { contentType: o.metadata['content-type'] } : {}),
          ...(o.metadata['cache-control'] ? { cacheControl: o.metadata['cache-control'] } : {}),
        });
      }
      return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
    },
    async stop() {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
