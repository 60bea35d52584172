// Build state under an S3 output prefix: a handful of objects, read and written directly
// (never through the site's listing, so an unchanged rebuild lists nothing of the site).
import { GetObjectCommand, PutObjectCommand, paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import { showS3, type S3Location } from '../s3/location.ts';
import { deleteKeys } from '../s3/delete-keys.ts';
import { describeS3Error } from '../s3/errors.ts';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { STATE_PREFIX, streamLines, writeLines, type StateStore } from './state.ts';

export class S3StateStore implements StateStore {
  constructor(
    private readonly client: S3Client,
    private readonly loc: S3Location,
  ) {}

  async read(key: string): Promise<AsyncIterable<string> | undefined> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.loc.bucket, Key: this.loc.prefix + key }));
      const body = res.Body as Readable;
      body.setEncoding('utf8');
      return streamLines(body);
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw new Error(`build state ${this.loc.prefix + key}: cannot read (${describeS3Error(err)}); delete it to build everything, or check credentials (s3:GetObject)`);
    }
  }

  async write(key: string, lines: Iterable<string>): Promise<void> {
    // Written to a local file first: the object's length must be known before its first byte
    // goes out, and the state is too large to hold (tens of MB at 100,000 repositories).
    const dir = await mkdtemp(join(tmpdir(), 'badgepress-state-'));
    try {
      const path = join(dir, 'state');
      await writeLines(path, lines);
      const { size } = await stat(path);
      await this.client.send(
        new PutObjectCommand({ Bucket: this.loc.bucket, Key: this.loc.prefix + key, Body: createReadStream(path), ContentLength: size, ContentType: 'application/x-ndjson', CacheControl: 'no-store' }),
      );
    } catch (err) {
      throw new Error(`build state ${this.loc.prefix + key}: cannot write (${describeS3Error(err)}); the site is published, the next build redoes what the last state does not hold; check s3:PutObject`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async list(): Promise<string[]> {
    const keys: string[] = [];
    try {
      for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.loc.bucket, Prefix: this.loc.prefix + STATE_PREFIX })) {
        for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key.slice(this.loc.prefix.length));
      }
    } catch (err) {
      throw new Error(`--out ${showS3(this.loc)}: cannot list the build state (${describeS3Error(err)}); check the bucket name, credentials and --s3-endpoint`);
    }
    return keys;
  }

  async remove(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const refused = await deleteKeys(this.client, this.loc.bucket, keys.map((k) => this.loc.prefix + k));
    if (refused.length > 0) throw new Error(`--out ${showS3(this.loc)}: the store refused to delete ${refused.join(', ')} of the build state; check that the credentials may delete objects`);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
