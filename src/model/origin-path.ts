// Object stores and CDNs decode a request path once, so a key that holds "%" literally (the
// encoded repository URL) is requested with each "%" escaped as "%25". Pure: shared by the
// Worker and the AWS adapters.

/** The request path (without leading slash) that fetches `key` from an S3-style origin. */
export function originPath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}
