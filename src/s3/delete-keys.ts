// Deletes keys of one bucket in batches of 1,000 (DeleteObjects). A batch the store answers
// with a server error (S3's rare InternalError; s3rver under some sequences) is deleted key
// by key instead, so one refused batch never leaves stale objects behind.
import { DeleteObjectCommand, DeleteObjectsCommand, type S3Client } from '@aws-sdk/client-s3';

const BATCH = 1000;

/** Deletes `keys` (full keys); returns the keys the store refused to delete. */
export async function deleteKeys(
  client: S3Client,
  bucket: string,
  keys: readonly string[],
): Promise<string[]> {
  const refused: string[] = [];
  for (let i = 0; i < keys.length; i += BATCH) {
    const batch = keys.slice(i, i + BATCH);
    try {
      const res = await client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      refused.push(...(res.Errors ?? []).map((e) => e.Key ?? '?'));
    } catch (err) {
      if (
        ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0) < 500
      )
        throw err;
      for (const Key of batch) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
    }
  }
  return refused;
}
