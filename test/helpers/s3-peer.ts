// A real S3 protocol server for the tests: s3rver on 127.0.0.1 in a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, S3Client, paginateListObjectsV2 } from '@aws-sdk/client-s3';

export interface S3Peer {
  endpoint: string;
  port: number;
  /** Settings for site.s3 / the CLI that talk to this peer. */
  env: Record<string, string>;
  client(endpoint?: string): S3Client;
  /** Every object under a prefix: key (without the prefix) → body, content type, cache control. */
  objects(bucket: string, prefix?: string): Promise<Map<string, { body: Buffer; contentType?: string; cacheControl?: string }>>;
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./s3rver-process.mjs', import.meta.url));

export async function startS3Peer(buckets: string[]): Promise<S3Peer> {
  const dir = mkdtempSync(join(tmpdir(), 'badgepress-s3-'));
  const child: ChildProcess = spawn(process.execPath, ['--openssl-legacy-provider', SCRIPT, dir, ...buckets], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^(\d+)\n/.exec(out);
      if (m) ok(Number(m[1]));
    });
    child.once('exit', (code) => fail(new Error(`s3rver exited with ${code}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const env = {
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
  };
  const client = (ep = endpoint) =>
    new S3Client({ endpoint: ep, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, maxAttempts: 1 });
  return {
    endpoint,
    port,
    env,
    client,
    async objects(bucket, prefix = '') {
      const c = client();
      const out = new Map<string, { body: Buffer; contentType?: string; cacheControl?: string }>();
      for await (const page of paginateListObjectsV2({ client: c }, { Bucket: bucket, Prefix: prefix })) {
        for (const o of page.Contents ?? []) {
          const res = await c.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key! }));
          out.set(o.Key!.slice(prefix.length), {
            body: Buffer.from(await res.Body!.transformToByteArray()),
            ...(res.ContentType ? { contentType: res.ContentType } : {}),
            ...(res.CacheControl ? { cacheControl: res.CacheControl } : {}),
          });
        }
      }
      c.destroy();
      return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
    },
    async stop() {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
