// A lease kept as one small object, written only under a condition (If-None-Match: * to
// create, If-Match on its ETag to renew): a build's output prefix, a scan's store prefix.
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { LeaseHolderKind, LeaseSlot } from '../io/lease.ts';
import { describeS3Error } from './errors.ts';
import type { S3Location } from './location.ts';
import { JSON_TYPE } from '../model/http.ts';

/** S3 answers 412 when a write's condition fails, 409 when two conditional writes race. */
export function conditionRefused(err: unknown): boolean {
  return [412, 409].includes(
    (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0,
  );
}

export function isNotFound(err: unknown): boolean {
  return (
    (err as { name?: string }).name === 'NoSuchKey' ||
    (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
  );
}

/**
 * The lease at `key` under the location's prefix, held by a build or a scan. `fail` words an
 * unexpected error ("cannot read the build lease … (cause)") for the caller's location; the store is asked whether it honours
 * conditional writes at a small object of its own (the lease itself is never touched by the
 * probe).
 */
export function s3LeaseSlot(
  client: S3Client,
  loc: S3Location,
  key: string,
  kind: LeaseHolderKind,
  fail: (problem: string) => Error,
): LeaseSlot {
  const Bucket = loc.bucket;
  const Key = loc.prefix + key;
  const probeKey = `${loc.prefix}.badgepress/conditional-writes-probe`;
  const where = `s3://${Bucket}/${Key}`;
  // NoSuchKey is S3's answer to If-Match on a key that is gone: a refused condition too.
  const put = async (
    text: string,
    condition: { IfNoneMatch: string } | { IfMatch: string },
    key = Key,
  ) => {
    try {
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: key,
          Body: text,
          ContentType: JSON_TYPE,
          CacheControl: 'no-store',
          ...condition,
        }),
      );
      return true;
    } catch (err) {
      if (conditionRefused(err) || (err as { name?: string }).name === 'NoSuchKey') return false;
      throw fail(`cannot write the ${kind} lease s3://${Bucket}/${key} (${describeS3Error(err)})`);
    }
  };
  return {
    // Once the probe object exists, both probes are one PUT each that a store honouring the
    // conditions refuses without writing.
    honoursConditions: async () => {
      const body =
        'badgepress checks here that the store refuses conditional writes whose condition fails\n';
      const absent = { IfNoneMatch: '*' };
      if ((await put(body, absent, probeKey)) && (await put(body, absent, probeKey))) return false;
      return !(await put(body, { IfMatch: '"00000000000000000000000000000000"' }, probeKey));
    },
    where,
    read: async () => {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket, Key }));
        return { text: await res.Body!.transformToString(), version: res.ETag ?? '' };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw fail(`cannot read the ${kind} lease ${where} (${describeS3Error(err)})`);
      }
    },
    create: (text) => put(text, { IfNoneMatch: '*' }),
    replace: (text, version) => put(text, { IfMatch: version }),
    remove: async () => {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key }));
      } catch (err) {
        throw fail(`cannot delete the ${kind} lease ${where} (${describeS3Error(err)})`);
      }
    },
  };
}
