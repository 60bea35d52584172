// Object stores and CDNs decode a request path once, so a key that holds "%" literally (the
// encoded repository URL) is requested with each "%" escaped as "%25". Pure: shared by the
// Worker and the AWS adapters.

/**
 * Where the CloudFront Function sends a request it leaves to Lambda@Edge whole (one naming a
 * host beyond ASCII): this prefix, then the request's path and query as one encoded segment.
 * No page or key starts with a dot-segment, so no viewer's path is ever taken for it.
 */
export const EDGE_RESOLVE_PREFIX = '/.badgepress-resolve/';

/** The request path (without leading slash) that fetches `key` from an S3-style origin. */
export function originPath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}
