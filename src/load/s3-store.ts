// Stored values in a bucket: the same loader, reading objects instead of files.
import { GetObjectCommand, paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import { isStoreFile } from './parse-file.ts';
import { showS3, type S3Location } from '../s3/location.ts';
import { describeS3Error } from '../s3/errors.ts';
import {
  StoreFileChangedError,
  type StoreEntry,
  type StoreSource,
  type VersionedBytes,
  type VersionedStream,
} from './store.ts';
import { LocationError } from '../errors.ts';

export class S3Store implements StoreSource {
  readonly location: string;
  // Each read is a GET: keep what fits rather than ask the bucket twice.
  readonly keepBetweenPassesBytes = 64 * 1024 * 1024;

  private readonly client: S3Client;
  private readonly loc: S3Location;
  constructor(client: S3Client, loc: S3Location) {
    this.client = client;
    this.loc = loc;
    this.location = showS3(loc);
  }

  async list(): Promise<string[]> {
    return (await this.entries()).map((e) => e.name);
  }

  async entries(): Promise<StoreEntry[]> {
    const names: StoreEntry[] = [];
    try {
      for await (const page of paginateListObjectsV2(
        { client: this.client },
        { Bucket: this.loc.bucket, Prefix: this.loc.prefix },
      )) {
        for (const o of page.Contents ?? []) {
          if (!o.Key || !isStoreFile(o.Key)) continue;
          const name = o.Key.slice(this.loc.prefix.length);
          // Like a directory store: a dot-folder (a scan's lease under .badgepress/) holds no records.
          if (name.split('/').some((segment) => segment.startsWith('.'))) continue;
          names.push({ name, version: o.ETag ?? '', size: o.Size ?? 0 });
        }
      }
    } catch (err) {
      throw new LocationError(
        `store ${this.location}: cannot list the bucket (${describeS3Error(err)}); check --store, credentials and --s3-endpoint`,
      );
    }
    return names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async read(name: string): Promise<Uint8Array> {
    return (await this.readVersioned(name)).bytes;
  }

  /** One GET is one version: S3 answers with the ETag of the bytes it sends. */
  async readVersioned(name: string): Promise<VersionedBytes> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.loc.bucket, Key: this.loc.prefix + name }),
      );
      const bytes = await res.Body!.transformToByteArray();
      if (res.ETag === undefined)
        throw new StoreFileChangedError(
          `store ${this.display(name)}: the bucket sent no ETag; cannot tell which version was read`,
        );
      return { bytes, version: res.ETag };
    } catch (err) {
      if (err instanceof StoreFileChangedError) throw err;
      throw new LocationError(
        `store ${this.display(name)}: cannot read (${describeS3Error(err)}); check that the credentials may read it (s3:GetObject), and --s3-endpoint`,
      );
    }
  }

  async readStream(name: string): Promise<VersionedStream> {
    let res;
    try {
      res = await this.client.send(
        new GetObjectCommand({ Bucket: this.loc.bucket, Key: this.loc.prefix + name }),
      );
    } catch (err) {
      throw new LocationError(
        `store ${this.display(name)}: cannot read (${describeS3Error(err)}); check that the credentials may read it (s3:GetObject), and --s3-endpoint`,
      );
    }
    const etag = res.ETag;
    return {
      chunks: res.Body as AsyncIterable<Uint8Array>,
      version: async () => {
        if (etag === undefined)
          throw new StoreFileChangedError(
            `store ${this.display(name)}: the bucket sent no ETag; cannot tell which version was read`,
          );
        return etag;
      },
    };
  }

  display(name: string): string {
    return showS3(this.loc, name);
  }
}
