// Every file one repository contributes to the site, in publishing order: per-time files,
// then index.json, then the latest files. A reader who follows index.json never finds a
// time whose files are missing, and the latest files only move once everything else is there.
import type { SiteConfig } from '../config/types.ts';
import { atKey, contentTypeOf, expiredAtKey, indexKey, latestKey, type RepositoryIndex } from '../model/layout.ts';
import type { RepositoryHistory } from '../load/types.ts';
import { jsonBytes } from './sarif-common.ts';
import { OPENAPI_KEY, openapiDocument } from './openapi.ts';
import type { ShapeSite } from './shape.ts';

export type Phase = 'at' | 'index' | 'latest';

export interface OutputFile {
  key: string;
  body: string;
  contentType: string;
  cacheControl: string;
  phase: Phase;
}

export function cacheControlFor(site: SiteConfig, phase: Phase): string {
  return phase === 'at'
    ? `public, max-age=${site.cache.immutableMaxAge}, immutable`
    : `public, max-age=${site.cache.latestMaxAge}`;
}

export function repositoryFiles(site: SiteConfig, shape: ShapeSite, h: RepositoryHistory, now: number): OutputFile[] {
  const out: OutputFile[] = [];
  const immutable = cacheControlFor(site, 'at');
  const short = cacheControlFor(site, 'latest');
  // Shape A with expiry: each scan also gets its expired rendering, the target of
  // `?timestamp=T` when T lies more than expireAfterDays after the scan.
  const expireAfter = site.shape === 'A' && site.expireAfterDays !== null ? site.expireAfterDays * 86400 : undefined;
  let latest: ReturnType<ShapeSite['renderScan']> = [];
  h.scans.forEach((scan, i) => {
    const files = shape.renderScan(h, i, scan.timestamp);
    for (const f of files) {
      out.push({ key: atKey(h.encoded, scan.timestamp, f.resource), body: f.body, contentType: contentTypeOf(f.resource), cacheControl: immutable, phase: 'at' });
    }
    if (expireAfter !== undefined) {
      for (const f of shape.renderScan(h, i, scan.timestamp + expireAfter + 1)) {
        out.push({ key: expiredAtKey(h.encoded, scan.timestamp, f.resource), body: f.body, contentType: contentTypeOf(f.resource), cacheControl: immutable, phase: 'at' });
      }
    }
    latest = files;
  });
  const last = h.scans[h.scans.length - 1];
  if (!last) return out;
  const index: RepositoryIndex = { repositoryUrl: h.repositoryUrl, timestamps: h.scans.map((s) => s.timestamp), badges: [...shape.badgeIds] };
  if (expireAfter !== undefined) index.expireAfterSeconds = expireAfter;
  out.push({ key: indexKey(h.encoded), body: jsonBytes(index), contentType: 'application/json', cacheControl: short, phase: 'index' });
  const asOf = shape.dependsOnAsOf(last.timestamp, now) ? now : last.timestamp;
  if (asOf !== last.timestamp) latest = shape.renderScan(h, h.scans.length - 1, asOf);
  for (const f of [...latest, ...shape.renderLatestOnly(h, h.scans.length - 1, asOf)]) {
    out.push({ key: latestKey(h.encoded, f.resource), body: f.body, contentType: contentTypeOf(f.resource), cacheControl: short, phase: 'latest' });
  }
  return out;
}

/** api/v1/openapi.json: this deployment's description of every answer (short cache age). */
export function openapiFile(site: SiteConfig, badgeIds: readonly string[]): OutputFile {
  return { key: OPENAPI_KEY, body: jsonBytes(openapiDocument(site, badgeIds)), contentType: 'application/json', cacheControl: cacheControlFor(site, 'latest'), phase: 'latest' };
}
