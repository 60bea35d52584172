// One S3 client per build, configured from the standard AWS chain (environment, profile,
// role; AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL) plus the site's `s3:` settings and flags.
import { S3Client } from '@aws-sdk/client-s3';
import type { SiteConfig } from '../config/types.ts';

export function s3Client(settings: SiteConfig['s3']): S3Client {
  return new S3Client({
    // The SDK wants a region even for S3-compatible stores that ignore it.
    region: settings.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.pathStyle !== undefined ? { forcePathStyle: settings.pathStyle } : {}),
    maxAttempts: settings.maxAttempts,
    ...(settings.requestChecksumCalculation ? { requestChecksumCalculation: settings.requestChecksumCalculation } : {}),
  });
}
