// Turns the site flags shared by `build`, `plan` and `site` into the resolved configuration.
import { resolveConfig, type ResolvedConfig } from '../config/resolve.ts';
import type { Shape } from '../config/types.ts';
import { UsageError } from '../errors.ts';

export const SITE_FLAGS = {
  config: { type: 'string' },
  store: { type: 'string' },
  out: { type: 'string' },
  shape: { type: 'string' },
  'base-url': { type: 'string' },
  now: { type: 'string' },
  's3-endpoint': { type: 'string' },
  's3-path-style': { type: 'boolean' },
} as const;

export interface SiteFlags {
  config?: string | undefined;
  store?: string | undefined;
  out?: string | undefined;
  shape?: string | undefined;
  'base-url'?: string | undefined;
  's3-endpoint'?: string | undefined;
  's3-path-style'?: boolean | undefined;
}

export async function loadSite(flags: SiteFlags): Promise<ResolvedConfig> {
  if (flags.shape !== undefined && flags.shape !== 'A' && flags.shape !== 'B') {
    throw new UsageError(`--shape ${JSON.stringify(flags.shape)}: expected A or B`);
  }
  if (flags['s3-endpoint'] !== undefined && !/^https?:\/\/[^\s]+$/.test(flags['s3-endpoint'])) {
    throw new UsageError(`--s3-endpoint ${JSON.stringify(flags['s3-endpoint'])}: expected an http(s) URL, e.g. http://127.0.0.1:9000`);
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
