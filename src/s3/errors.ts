// How S3 failures and answers are turned into words and decisions, shared by the sink (--out)
// and the store (--store).

/** "<name>: <message>" of an SDK error, with what a timeout means in badgepress terms. */
export function describeS3Error(err: unknown): string {
  const e = err as Error & { code?: string };
  const name = e.name && e.name !== 'Error' ? e.name : (e.code ?? 'Error');
  const text = `${name}: ${e.message || '(no message)'}`;
  // The SDK names a reset connection a TimeoutError too: say what happened, not "too slow".
  if (/ECONNRESET|socket hang up|EPIPE/i.test(e.message ?? '') || e.code === 'ECONNRESET') {
    return `${text}; the endpoint closed the connection (a restarting or overloaded store, or a proxy in between); run again`;
  }
  if (name === 'TimeoutError' || /timed? ?out/i.test(e.message ?? '')) {
    return `${text}; the endpoint did not answer in time (s3.connectTimeoutSeconds / s3.requestTimeoutSeconds in the config)`;
  }
  return text;
}

/** What a PutObject answer says about the object's encryption. */
interface PutAnswer {
  ETag?: string | undefined;
  ServerSideEncryption?: string | undefined;
  SSECustomerAlgorithm?: string | undefined;
}

/**
 * Whether the ETag S3 answered is the MD5 of the body. It is for unencrypted and SSE-S3
 * (AES256) objects; under SSE-KMS (aws:kms, aws:kms:dsse) and SSE-C it is not, so comparing it
 * would fail every upload. There the Content-MD5 we send is the check: S3 verifies it and
 * refuses a body that does not match (BadDigest).
 */
export function etagIsMd5(answer: PutAnswer): boolean {
  if (answer.SSECustomerAlgorithm) return false;
  return !answer.ServerSideEncryption?.startsWith('aws:kms');
}
