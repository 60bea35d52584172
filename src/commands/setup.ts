// Turns flags and config into the pieces a build needs: the site settings, the active shape,
// the store to read and the sink to write. Shared by `build` and `plan`.
import { isS3, loadSiteConfig, loadThresholdsA } from '../config/load.ts';
import type { Shape, SiteConfig } from '../config/types.ts';
import { DirectoryStore, type StoreSource } from '../load/store.ts';
import { DirectorySink } from '../publish/dir-sink.ts';
import type { Sink } from '../publish/sink.ts';
import { shapeASite } from '../render/site-a.ts';
import { shapeBSite } from '../render/site-b.ts';
import { loadThresholdsB } from '../config/thresholds-b.ts';
import { loadDecisions } from '../config/decisions.ts';
import type { ShapeSite } from '../render/shape.ts';
import { BadgeRenderer } from '../render/svg.ts';
import { UsageError } from './args.ts';
import { statSync } from 'node:fs';
import { parseS3Location, type S3Location } from '../s3/location.ts';

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

export async function loadSite(flags: SiteFlags): Promise<SiteConfig> {
  if (flags.shape !== undefined && flags.shape !== 'A' && flags.shape !== 'B') {
    throw new UsageError(`--shape ${JSON.stringify(flags.shape)}: expected A or B`);
  }
  if (flags['s3-endpoint'] !== undefined && !/^https?:\/\/[^\s]+$/.test(flags['s3-endpoint'])) {
    throw new UsageError(`--s3-endpoint ${JSON.stringify(flags['s3-endpoint'])}: expected an http(s) URL, e.g. http://127.0.0.1:9000`);
  }
  const site = await loadSiteConfig(flags.config, {
    ...(flags.shape ? { shape: flags.shape as Shape } : {}),
    ...(flags['base-url'] !== undefined ? { baseUrl: flags['base-url'] } : {}),
    ...(flags.store !== undefined ? { store: flags.store } : {}),
    ...(flags.out !== undefined ? { out: flags.out } : {}),
  });
  if (flags['s3-endpoint'] !== undefined) site.s3.endpoint = flags['s3-endpoint'];
  if (flags['s3-path-style']) site.s3.pathStyle = true;
  return site;
}

export async function loadShape(site: SiteConfig): Promise<ShapeSite> {
  const badges = new BadgeRenderer();
  if (site.shape === 'A') return shapeASite(site, await loadThresholdsA(site.thresholds.A), badges);
  const thresholdsB = await loadThresholdsB(site.thresholds.B);
  return shapeBSite(site, thresholdsB, await loadDecisions(site.decisions, thresholdsB, site.repositoryUrlSchemes), badges);
}

function s3Location(flag: string, location: string): S3Location {
  const loc = parseS3Location(location);
  if (!loc) throw new UsageError(`--${flag} ${JSON.stringify(location)}: expected s3://bucket/prefix with a valid bucket name`);
  return loc;
}

// The AWS SDK is loaded only when a location is in S3: a directory build stays lean.
export async function openStore(location: string, site: SiteConfig): Promise<StoreSource> {
  if (!isS3(location)) {
    // A store that is not there is a wrong argument (exit 2), not a store that failed (4).
    if (!isDirectory(location)) {
      throw new UsageError(`store ${location}: no such directory; give the directory of stored values with --store or store: in the config`);
    }
    return new DirectoryStore(location);
  }
  const loc = s3Location('store', location);
  const [{ S3Store }, { s3Client }] = await Promise.all([import('../load/s3-store.ts'), import('../s3/client.ts')]);
  return new S3Store(s3Client(site.s3), loc);
}

export async function openSink(location: string, site: SiteConfig): Promise<Sink> {
  if (!isS3(location)) return new DirectorySink(location);
  const loc = s3Location('out', location);
  const [{ S3Sink }, { s3Client }] = await Promise.all([import('../publish/s3-sink.ts'), import('../s3/client.ts')]);
  return new S3Sink(s3Client(site.s3), loc);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
