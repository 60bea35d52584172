// A lease kept as one small object, written only under a condition (If-None-Match: * to
// create, If-Match on its ETag to renew): a build's output prefix, a scan's store prefix.
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { LeaseStore } from '../io/lease.ts';

/** S3 answers 412 when a write's condition fails, 409 when two conditional writes race. */
export function conditionRefused(err: unknown): boolean {
  return [412, 409].includes((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0);
}

export function isNotFound(err: unknown): boolean {
  return (err as { name?: string }).name === 'NoSuchKey' || (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
}

/** `fail` words an unexpected error ("read", "write", "delete") for the caller's location. */
export function s3LeaseStore(client: S3Client, Bucket: string, Key: string, fail: (what: string, err: unknown) => Error): LeaseStore {
  const put = async (text: string, condition: { IfNoneMatch: string } | { IfMatch: string }) => {
    try {
      await client.send(new PutObjectCommand({ Bucket, Key, Body: text, ContentType: 'application/json', CacheControl: 'no-store', ...condition }));
      return true;
    } catch (err) {
      if (conditionRefused(err)) return false;
      throw fail('write', err);
    }
  };
  return {
    where: `s3://${Bucket}/${Key}`,
    read: async () => {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket, Key }));
        return { text: await res.Body!.transformToString(), version: res.ETag ?? '' };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw fail('read', err);
      }
    },
    create: (text) => put(text, { IfNoneMatch: '*' }),
    replace: (text, version) => put(text, { IfMatch: version }),
    remove: async () => {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key }));
      } catch (err) {
        throw fail('delete', err);
      }
    },
  };
}
