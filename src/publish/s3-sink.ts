// An S3 prefix as the site. The prefix is listed once; a PUT is skipped when the stored
// ETag already equals the body's MD5, so a rebuild sends only changed bytes. Each upload's
// ETag is checked against our MD5 rather than trusting the peer (except where S3's ETag is
// not an MD5, SSE-KMS and SSE-C: there S3's own check of our Content-MD5 stands in).
import { createHash } from 'node:crypto';
import {
  GetObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { PublishFile } from '../model/publish-file.ts';
import { showS3, type S3Location } from '../s3/location.ts';
import { API_PREFIX, PAGES_PREFIX } from '../model/layout.ts';
import { describeS3Error, etagIsMd5 } from '../s3/errors.ts';
import { deleteKeys } from '../s3/delete-keys.ts';
import { PublishError, type Comparison, type PutOutcome, type Sink } from './sink.ts';
import type { LeaseSlot } from '../io/lease.ts';
import { LocationError } from '../errors.ts';
import { s3LeaseSlot } from '../s3/lease-slot.ts';

export class S3Sink implements Sink {
  readonly location: string;
  /** Full key → ETag (quoted MD5 hex), as listed at start and kept up to date. */
  private etags: Promise<Map<string, string>> | undefined;

  private readonly client: S3Client;
  private readonly loc: S3Location;
  constructor(client: S3Client, loc: S3Location) {
    this.client = client;
    this.loc = loc;
    this.location = showS3(loc);
  }

  /** Repository prefix → its keys' ETags, once narrowListing was called. */
  private byRepository: Map<string, Promise<Map<string, string>>> | undefined;

  narrowListing(): void {
    this.byRepository ??= new Map();
  }

  /** Set by resendUnchanged: an object with the same bytes is sent again for its headers. */
  private resend = false;

  resendUnchanged(): void {
    this.resend = true;
  }

  /** The listing that holds `key` (relative): its repository's alone once narrowed, else the site's. */
  private listingFor(key: string): Promise<Map<string, string>> {
    const repo = this.byRepository && repositoryPrefixOf(key);
    if (!repo) return this.listing();
    let listing = this.byRepository!.get(repo);
    if (!listing) this.byRepository!.set(repo, (listing = this.listPrefix(this.loc.prefix + repo)));
    return listing;
  }

  private listing(): Promise<Map<string, string>> {
    this.etags ??= this.listPrefix(this.loc.prefix);
    return this.etags;
  }

  private listPrefix(prefix: string): Promise<Map<string, string>> {
    return (async () => {
      const map = new Map<string, string>();
      try {
        for await (const page of paginateListObjectsV2(
          { client: this.client },
          { Bucket: this.loc.bucket, Prefix: prefix },
        )) {
          for (const o of page.Contents ?? []) if (o.Key) map.set(o.Key, o.ETag ?? '');
        }
      } catch (err) {
        throw new LocationError(
          `--out ${this.location}: cannot list the bucket (${describeS3Error(err)}); check the bucket name, credentials and --s3-endpoint`,
        );
      }
      return map;
    })();
  }

  async put(file: PublishFile): Promise<PutOutcome> {
    const etags = await this.listingFor(file.key);
    const key = this.loc.prefix + file.key;
    const body = Buffer.from(file.body, 'utf8');
    const md5 = createHash('md5').update(body).digest();
    const etag = `"${md5.toString('hex')}"`;
    if (!this.resend && compareEtag(etags.get(key), etag) === 'same') return 'unchanged';
    let res;
    try {
      res = await this.client.send(
        new PutObjectCommand({
          Bucket: this.loc.bucket,
          Key: key,
          Body: body,
          ContentType: file.contentType,
          CacheControl: file.cacheControl,
          ContentMD5: md5.toString('base64'),
        }),
      );
    } catch (err) {
      throw new PublishError([file.key], describeS3Error(err));
    }
    if (etagIsMd5(res) && res.ETag !== etag) {
      // The reason names no ETag: it must be the same for every key so they group into one line.
      throw new PublishError(
        [file.key],
        'ETag mismatch: the stored object is not the bytes sent (altered on the way or by the store)',
      );
    }
    etags.set(key, res.ETag ?? etag);
    return 'written';
  }

  /** From the listing alone: no request per object. */
  async compare(file: PublishFile): Promise<Comparison> {
    const md5 = createHash('md5').update(Buffer.from(file.body, 'utf8')).digest('hex');
    return compareEtag(
      (await this.listingFor(file.key)).get(this.loc.prefix + file.key),
      `"${md5}"`,
    );
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    const full = this.loc.prefix + key;
    if (!(await this.listingFor(key)).has(full)) return undefined;
    const res = await this.client.send(
      new GetObjectCommand({ Bucket: this.loc.bucket, Key: full }),
    );
    return res.Body!.transformToByteArray();
  }

  async list(prefix: string): Promise<string[]> {
    const full = this.loc.prefix + prefix;
    return [...(await this.listingFor(prefix)).keys()]
      .filter((k) => k.startsWith(full))
      .map((k) => k.slice(this.loc.prefix.length))
      .sort();
  }

  async remove(keys: string[]): Promise<void> {
    const full = keys.map((k) => this.loc.prefix + k);
    const refused = new Set(await deleteKeys(this.client, this.loc.bucket, full));
    // Each key leaves the listing that holds it (its repository's alone, once narrowed).
    for (const k of keys)
      if (!refused.has(this.loc.prefix + k)) (await this.listingFor(k)).delete(this.loc.prefix + k);
    if (refused.size > 0)
      throw new PublishError(
        [...refused].map((k) => k.slice(this.loc.prefix.length)),
        'DeleteObjects refused them',
      );
  }

  leaseSlot(key: string): LeaseSlot {
    return s3LeaseSlot(
      this.client,
      this.loc,
      key,
      'build',
      (problem) =>
        new LocationError(
          `--out ${this.location}: ${problem}; check the bucket name, credentials and --s3-endpoint`,
        ),
    );
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

/**
 * `api/v1/repositories/<enc>/` or a repository's page directory `repositories/<enc>/` for a
 * key below one (a listing of its own), else undefined.
 */
function repositoryPrefixOf(key: string): string | undefined {
  const top = key.startsWith(API_PREFIX)
    ? API_PREFIX
    : key.startsWith(PAGES_PREFIX)
      ? PAGES_PREFIX
      : undefined;
  if (!top) return undefined;
  const end = key.indexOf('/', top.length);
  return end < 0 ? undefined : key.slice(0, end + 1);
}

/** A listed ETag against the quoted MD5 of a body (an ETag that is not an MD5 never matches). */
function compareEtag(listed: string | undefined, etag: string): Comparison {
  if (listed === undefined) return 'absent';
  return listed === etag ? 'same' : 'different';
}
