// One S3 client per build, configured from the standard AWS chain (environment, profile,
// role; AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL) plus the site's `s3:` settings and flags.
import { S3Client } from '@aws-sdk/client-s3';

/** Used when neither the settings nor the AWS chain name a region. */
const FALLBACK_REGION = 'us-east-1';

/** The `s3:` settings of the site config. */
export interface S3Settings {
  region?: string;
  endpoint?: string;
  pathStyle?: boolean;
  concurrency: number;
  maxAttempts: number;
  requestChecksumCalculation?: 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';
  /** Give up a connection attempt after this long (a dead or firewalled endpoint). */
  connectTimeoutSeconds: number;
  /** Give up a request without an answer after this long (an endpoint that accepts and stalls). */
  requestTimeoutSeconds: number;
  /**
   * Whether an output store must honour conditional writes (If-None-Match / If-Match on
   * PUT) for build to publish there: without them its lease cannot exclude a second build.
   * Absent means 'required'.
   */
  conditionalWrites?: 'required' | 'unsupported-accept-risk';
}

export function s3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region ?? once(regionFromChain),
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.pathStyle !== undefined ? { forcePathStyle: settings.pathStyle } : {}),
    maxAttempts: settings.maxAttempts,
    ...(settings.requestChecksumCalculation
      ? { requestChecksumCalculation: settings.requestChecksumCalculation }
      : {}),
    // Without these an endpoint that accepts the connection and never answers hangs the
    // build forever: the SDK's own defaults are "no timeout".
    requestHandler: {
      connectionTimeout: settings.connectTimeoutSeconds * 1000,
      requestTimeout: settings.requestTimeoutSeconds * 1000,
      throwOnRequestTimeout: true,
    },
  });
}

/**
 * The region the SDK's own loader finds (AWS_REGION, then the profile's `region` in
 * ~/.aws/config or AWS_CONFIG_FILE), else AWS_DEFAULT_REGION (what the AWS CLI reads), else
 * us-east-1: S3-compatible stores ignore the region but the SDK insists on one.
 */
async function regionFromChain(): Promise<string> {
  const probe = new S3Client({});
  try {
    return await probe.config.region();
  } catch (err) {
    if (!/region is missing/i.test((err as Error).message)) throw err;
    return process.env.AWS_DEFAULT_REGION || FALLBACK_REGION;
  } finally {
    probe.destroy();
  }
}

/** The SDK asks for the region on every request: look it up once per client. */
function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
}
