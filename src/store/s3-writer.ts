// A store in S3: an object cannot be appended to, so each record is a conditional rewrite of
// its repository's object (If-Match on the ETag read, If-None-Match: * for a new one). A
// server that ignores the condition (s3rver does) is still caught: the object is read again
// just before and just after each write, and anything but the bytes we read, then ours, is a
// concurrent writer, reported, never hidden.
import { NDJSON_TYPE } from '../model/http.ts';
import {
  GetObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { LeaseSlot } from '../io/lease.ts';
import { describeS3Error } from '../s3/errors.ts';
import { conditionRefused, isNotFound, s3LeaseSlot } from '../s3/lease-slot.ts';
import { showS3, type S3Location } from '../s3/location.ts';
import { scanTimesIn, type StoredScan } from './record-line.ts';
import {
  shardOfLeaseKey,
  StoreConflictError,
  StoreWriteError,
  type StoreWriter,
} from './writer.ts';

interface Stored {
  body: string;
  /** undefined: no object yet. */
  etag: string | undefined;
}

export class S3StoreWriter implements StoreWriter {
  readonly location: string;
  /** What was read of each file being written, until its repository is done. */
  private readonly known = new Map<string, Stored>();
  /** Per file, the write in flight: two repositories sharing a file take turns. */
  private readonly turns = new Map<string, Promise<unknown>>();

  private readonly client: S3Client;
  private readonly loc: S3Location;
  constructor(client: S3Client, loc: S3Location) {
    this.client = client;
    this.loc = loc;
    this.location = showS3(loc);
  }

  private failure(file: string, what: string, err: unknown): StoreWriteError {
    return new StoreWriteError(
      `store ${this.location}${file}: cannot ${what} (${describeS3Error(err)}); check the bucket, credentials (s3:GetObject, s3:PutObject) and --s3-endpoint`,
    );
  }

  private async get(file: string): Promise<Stored> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.loc.bucket, Key: this.loc.prefix + file }),
      );
      return { body: await res.Body!.transformToString(), etag: res.ETag };
    } catch (err) {
      if (isNotFound(err)) return { body: '', etag: undefined };
      throw this.failure(file, 'read', err);
    }
  }

  async storedTimes(file: string, repositoryUrl: string): Promise<Map<number, StoredScan>> {
    const stored = await this.get(file);
    this.known.set(file, stored);
    return scanTimesIn(stored.body, repositoryUrl);
  }

  append(file: string, lines: readonly string[]): Promise<void> {
    const turn = (this.turns.get(file) ?? Promise.resolve()).then(() =>
      this.appendNow(file, lines),
    );
    const settled = turn.catch(() => {});
    this.turns.set(file, settled);
    void settled.then(() => {
      if (this.turns.get(file) === settled) this.turns.delete(file);
    });
    return turn;
  }

  private async appendNow(file: string, lines: readonly string[]): Promise<void> {
    let stored = this.known.get(file) ?? (await this.get(file));
    this.known.delete(file);
    const Key = this.loc.prefix + file;
    for (const line of lines) {
      // Where a server ignores the condition, a writer that came between our read and our write
      // is still seen here (the window left is the one request's time).
      const current = await this.get(file);
      if (current.etag !== stored.etag || current.body !== stored.body) throw this.conflict(file);
      const body =
        stored.body + (stored.body === '' || stored.body.endsWith('\n') ? '' : '\n') + line;
      let etag: string | undefined;
      try {
        const condition =
          stored.etag === undefined ? { IfNoneMatch: '*' } : { IfMatch: stored.etag };
        etag = (
          await this.client.send(
            new PutObjectCommand({
              Bucket: this.loc.bucket,
              Key,
              Body: body,
              ContentType: NDJSON_TYPE,
              ...condition,
            }),
          )
        ).ETag;
      } catch (err) {
        if (conditionRefused(err)) throw this.conflict(file);
        throw this.failure(file, 'write', err);
      }
      const after = await this.get(file);
      if (after.body !== body || (etag !== undefined && after.etag !== etag))
        throw this.conflict(file);
      stored = after;
    }
  }

  private conflict(file: string): StoreConflictError {
    return new StoreConflictError(
      `store ${this.location}${file}: another writer changed it while this scan was appending; nothing of theirs was overwritten knowingly. ` +
        'Run one scan at a time per store (the scan lease in .badgepress/ does that for scans), then scan again: records already stored are not written twice',
    );
  }

  leaseSlot(key: string): LeaseSlot {
    return s3LeaseSlot(
      this.client,
      this.loc,
      key,
      'scan',
      (problem) =>
        new StoreWriteError(
          `store ${this.location}: ${problem}; check the bucket name, credentials and --s3-endpoint`,
        ),
    );
  }

  async scanLeaseKeys(): Promise<string[]> {
    const keys: string[] = [];
    const Prefix = `${this.loc.prefix}.badgepress/scan-lease`;
    try {
      for await (const page of paginateListObjectsV2(
        { client: this.client },
        { Bucket: this.loc.bucket, Prefix },
      )) {
        for (const o of page.Contents ?? [])
          if (o.Key) keys.push(o.Key.slice(this.loc.prefix.length));
      }
    } catch (err) {
      throw this.failure('.badgepress/', 'list', err);
    }
    return keys.filter((key) => shardOfLeaseKey(key) !== undefined);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
