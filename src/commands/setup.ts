// Turns the config flags shared by `build`, `plan`, `site` and `scan` into the resolved configuration.
import { resolveConfig, type ResolvedConfig } from '../config/resolve.ts';
import type { Shape, Settings } from '../config/types.ts';
import { isS3 } from '../s3/location.ts';
import { UsageError } from '../errors.ts';

export const CONFIG_FLAGS = {
  config: { type: 'string' },
  store: { type: 'string' },
  out: { type: 'string' },
  shape: { type: 'string' },
  'base-url': { type: 'string' },
  now: { type: 'string' },
  's3-endpoint': { type: 'string' },
  's3-path-style': { type: 'boolean' },
} as const;

export interface ConfigFlags {
  config?: string | undefined;
  store?: string | undefined;
  out?: string | undefined;
  shape?: string | undefined;
  'base-url'?: string | undefined;
  's3-endpoint'?: string | undefined;
  's3-path-style'?: boolean | undefined;
}

export async function resolveFlags(flags: ConfigFlags): Promise<ResolvedConfig> {
  if (flags.shape !== undefined && flags.shape !== 'A' && flags.shape !== 'B') {
    throw new UsageError(`--shape ${JSON.stringify(flags.shape)}: expected A or B`);
  }
  if (flags['s3-endpoint'] !== undefined && !/^https?:\/\/[^\s]+$/.test(flags['s3-endpoint'])) {
    throw new UsageError(
      `--s3-endpoint ${JSON.stringify(flags['s3-endpoint'])}: expected an http(s) URL, e.g. http://127.0.0.1:9000`,
    );
  }
  return resolveConfig(flags.config, {
    ...(flags.shape ? { shape: flags.shape as Shape } : {}),
    ...(flags['base-url'] !== undefined ? { baseUrl: flags['base-url'] } : {}),
    ...(flags.store !== undefined ? { store: flags.store } : {}),
    ...(flags.out !== undefined ? { out: flags.out } : {}),
    ...(flags['s3-endpoint'] !== undefined ? { s3Endpoint: flags['s3-endpoint'] } : {}),
    ...(flags['s3-path-style'] ? { s3PathStyle: true } : {}),
  });
}

/** Host names that mean this machine. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;
const isLoopback = (url: string) => {
  try {
    return LOOPBACK.test(new URL(url).hostname);
  } catch {
    return false;
  }
};

/**
 * Why a site bound for a bucket would point its readers at this machine: a baseUrl of
 * localhost (the packaged default is http://127.0.0.1:8787) while the output is an S3 bucket
 * elsewhere. Every badge URL, embed snippet and feed in it would then be wrong, silently. A
 * bucket on this machine (MinIO, a test server on loopback) may be meant to be read here.
 */
export function localBaseUrlWarning(
  settings: Settings,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (!isS3(settings.out) || !isLoopback(settings.baseUrl)) return undefined;
  const endpoint = settings.s3.endpoint ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  if (endpoint !== undefined && isLoopback(endpoint)) return undefined;
  return (
    `warning: baseUrl is ${settings.baseUrl}, an address of this machine, but the site goes to ${settings.out}: every badge URL, ` +
    'embed snippet and feed link in it will point here. Set baseUrl in the config (or --base-url) to the address the site is served at'
  );
}

/** Says the warning above on stderr, once for the run, when it applies. */
export function warnOfLocalBaseUrl(settings: Settings): void {
  const warning = localBaseUrlWarning(settings);
  if (warning) process.stderr.write(`badgepress: ${warning}\n`);
}
