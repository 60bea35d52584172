// Build state under an S3 output prefix: a handful of objects, read and written directly
// (never through the site's listing, so an unchanged rebuild lists nothing of the site).
import { NDJSON_TYPE } from '../model/http.ts';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import { showS3, type S3Location } from '../s3/location.ts';
import { deleteKeys } from '../s3/delete-keys.ts';
import { describeS3Error } from '../s3/errors.ts';
import { mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { SET_ASIDE_SUFFIX, STATE_PREFIX } from './state.ts';
import { streamLines, writeLines } from './state-lines.ts';
import type { StateKeeper } from './state-keeper.ts';
import { LocationError } from '../errors.ts';

export class S3StateKeeper implements StateKeeper {
  private readonly client: S3Client;
  private readonly loc: S3Location;
  /** Bytes per part of a multipart state upload (S3's least is 5 MiB but for the last part). */
  private readonly partBytes: number;
  constructor(client: S3Client, loc: S3Location, partBytes = 8 * 1024 * 1024) {
    this.client = client;
    this.loc = loc;
    this.partBytes = partBytes;
  }

  async read(key: string): Promise<AsyncIterable<string> | undefined> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.loc.bucket, Key: this.loc.prefix + key }),
      );
      const body = res.Body as Readable;
      body.setEncoding('utf8');
      return streamLines(body);
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw new LocationError(
        `build state ${showS3(this.loc, key)}: cannot read (${describeS3Error(err)}); delete it to build everything, or check credentials (s3:GetObject)`,
      );
    }
  }

  async write(key: string, lines: Iterable<string>, unchanged?: string): Promise<void> {
    // Written to a local file first, then sent in parts of partBytes held one at a time: the
    // state is too large to hold whole (tens of MB at 100,000 repositories), and a body sent
    // as a stream needs chunked signing some stores refuse. A multipart upload replaces the
    // object in one step when it completes, as a single PUT does.
    const where = showS3(this.loc, key);
    const published =
      'the site is published, the next build redoes what the last state does not hold';
    let dir: string | undefined;
    let size: number;
    let digest: string;
    try {
      dir = await mkdtemp(join(tmpdir(), 'badgepress-state-'));
      digest = await writeLines(join(dir, 'state'), lines);
      ({ size } = await stat(join(dir, 'state')));
    } catch (err) {
      if (dir) await rm(dir, { recursive: true, force: true });
      // A local failure (a full or unwritable temporary folder) is no S3 problem.
      const code = (err as NodeJS.ErrnoException).code;
      const remedy = code ? `; free space in ${tmpdir()} or set TMPDIR to a writable folder` : '';
      throw new LocationError(
        `build state ${where}: cannot write its local copy (${code ?? String(err)})${remedy}; ${published}`,
      );
    }
    try {
      // The same bytes as the state read: an unchanged rebuild sends nothing.
      if (digest === unchanged) return;
      if (size <= this.partBytes)
        await this.client.send(
          new PutObjectCommand({ ...this.target(key), Body: await readFile(join(dir, 'state')) }),
        );
      else await this.putInParts(key, join(dir, 'state'), size);
    } catch (err) {
      throw new LocationError(
        `build state ${where}: cannot write (${describeS3Error(err)}); ${published}; check s3:PutObject`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  display(key: string): string {
    return showS3(this.loc, key);
  }

  async setAside(key: string): Promise<string> {
    const Bucket = this.loc.bucket;
    const Key = this.loc.prefix + key;
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket,
          Key: `${Key}${SET_ASIDE_SUFFIX}`,
          CopySource: `${Bucket}/${Key.split('/').map(encodeURIComponent).join('/')}`,
        }),
      );
      await this.client.send(new DeleteObjectCommand({ Bucket, Key }));
    } catch (err) {
      throw new LocationError(
        `build state ${showS3(this.loc, key)}: cannot set it aside (${describeS3Error(err)}); delete it (s3:DeleteObject)`,
      );
    }
    return showS3(this.loc, `${key}${SET_ASIDE_SUFFIX}`);
  }

  private target(key: string) {
    return {
      Bucket: this.loc.bucket,
      Key: this.loc.prefix + key,
      ContentType: NDJSON_TYPE,
      CacheControl: 'no-store',
    };
  }

  private async putInParts(key: string, path: string, size: number): Promise<void> {
    const { Bucket, Key } = this.target(key);
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand(this.target(key)));
    const file = await open(path);
    try {
      const parts: Array<{ ETag: string; PartNumber: number }> = [];
      for (let at = 0, n = 1; at < size; at += this.partBytes, n++) {
        const body = Buffer.allocUnsafe(Math.min(this.partBytes, size - at));
        await file.read(body, 0, body.length, at);
        const { ETag } = await this.client.send(
          new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: n, Body: body }),
        );
        parts.push({ ETag: ETag!, PartNumber: n });
      }
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key,
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (err) {
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }))
        .catch(() => {});
      throw err;
    } finally {
      await file.close();
    }
  }

  async list(): Promise<string[]> {
    const keys: string[] = [];
    try {
      for await (const page of paginateListObjectsV2(
        { client: this.client },
        { Bucket: this.loc.bucket, Prefix: this.loc.prefix + STATE_PREFIX },
      )) {
        for (const o of page.Contents ?? [])
          if (o.Key) keys.push(o.Key.slice(this.loc.prefix.length));
      }
    } catch (err) {
      throw new LocationError(
        `--out ${showS3(this.loc)}: cannot list the build state (${describeS3Error(err)}); check the bucket name, credentials and --s3-endpoint`,
      );
    }
    return keys;
  }

  async remove(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const refused = await deleteKeys(
      this.client,
      this.loc.bucket,
      keys.map((k) => this.loc.prefix + k),
    );
    if (refused.length > 0)
      throw new LocationError(
        `--out ${showS3(this.loc)}: the store refused to delete ${refused.join(', ')} of the build state; check that the credentials may delete objects`,
      );
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
