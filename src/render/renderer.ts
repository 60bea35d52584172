// Every file one repository contributes to the site, in publishing order: per-time files,
// then index.json, then the latest files. A reader who follows index.json never finds a
// time whose files are missing, and the latest files only move once everything else is there.
import type { Templates } from '../config/templates.ts';
import type { Settings } from '../config/types.ts';
import type { RepositoryEvaluationOf } from '../evaluate/repository.ts';
import {
  atKey,
  contentTypeOf,
  expiredAtKey,
  indexKey,
  latestKey,
  type RepositoryIndex,
  type Resource,
} from '../model/layout.ts';
import { cacheControl, JSON_TYPE } from '../model/http.ts';
import { OPENAPI_KEY, openapiDocument } from './openapi.ts';
import { jsonBytes } from './sarif-common.ts';
import type { LatestOnlyFiles, Renderer, RenderedFile, RenderFilter, ScanFiles } from './shape.ts';

import type { FileScope, OutputFile, Phase, PublishFile } from '../model/publish-file.ts';

/**
 * The rules of which file gets which Cache-Control, numbered: a build whose rules or cache ages
 * differ from the last build's sends every file again, so S3 objects (which keep the header of
 * their PUT) get the new one. 2: per-time files lost `immutable` (issue 37).
 */
export const CACHE_RULES_VERSION = 2;

/**
 * Cache-Control of a published file: `immutable` only for content-hashed assets, whose bytes
 * never change under their key; everything else, per-time files included (a threshold change
 * rebuilds them), gets `cache.latestMaxAge`.
 */
export function cacheControlFor(settings: Settings, contentHashed: boolean): string {
  return contentHashed
    ? cacheControl(settings.cache.immutableMaxAge, true)
    : cacheControl(settings.cache.latestMaxAge, false);
}

/** The render step of a shape: `scanFiles` renders one evaluation, this places every one at its keys. */
export function shapeRenderer<S extends 'A' | 'B', E>(
  settings: Settings,
  shape: S,
  scanFiles: ScanFiles<E>,
  latestOnly: LatestOnlyFiles<E>,
): Renderer {
  return {
    render(evaluation, filter) {
      if (evaluation.shape !== shape)
        throw new Error(
          `internal: the Shape ${shape} renderer was handed a Shape ${evaluation.shape} evaluation`,
        );
      return repositoryFiles(
        settings,
        evaluation as unknown as RepositoryEvaluationOf<S, E>,
        scanFiles,
        latestOnly,
        filter,
      );
    },
  };
}

function repositoryFiles<E>(
  settings: Settings,
  evaluation: RepositoryEvaluationOf<'A' | 'B', E>,
  scanFiles: ScanFiles<E>,
  latestOnly: LatestOnlyFiles<E>,
  filter: RenderFilter | undefined,
): OutputFile[] {
  const { history } = evaluation;
  const { repositoryUrl, encoded } = history;
  const out: OutputFile[] = [];
  // One age for all of them: per-time files change on a threshold change as latest files do.
  const short = cacheControlFor(settings, false);
  const place = (
    files: RenderedFile[],
    scope: FileScope,
    scanTimestamp: number,
    key: (r: Resource) => string,
    phase: Phase,
  ) => {
    for (const f of files) {
      out.push({
        key: key(f.resource),
        body: f.body,
        contentType: contentTypeOf(f.resource),
        cacheControl: short,
        phase,
        repositoryUrl,
        resource: f.resource,
        scope,
        scanTimestamp,
      });
    }
  };
  let newest: RenderedFile[] = [];
  // How many files the filter turned away from the newest scan's: as many again if they are reused.
  let newestSkipped = 0;
  history.scans.forEach(({ timestamp }, i) => {
    const skipped = filter?.skipped ?? 0;
    newest = scanFiles(encoded, evaluation.scans[i]!, filter);
    newestSkipped = (filter?.skipped ?? 0) - skipped;
    place(newest, 'scan', timestamp, (r) => atKey(encoded, timestamp, r), 'at');
    // Shape A with expiry: each scan also gets its expired rendering, the target of
    // `?timestamp=T` when T lies more than expireAfterDays after the scan.
    const expired = evaluation.expired?.[i];
    if (expired)
      place(
        scanFiles(encoded, expired, filter),
        'expired-scan',
        timestamp,
        (r) => expiredAtKey(encoded, timestamp, r),
        'at',
      );
  });
  const last = history.scans[history.scans.length - 1];
  if (!last) return out;
  const index: RepositoryIndex = {
    repositoryUrl,
    timestamps: history.scans.map((s) => s.timestamp),
    badges: [...evaluation.badgeIds],
  };
  if (evaluation.expireAfterSeconds !== undefined)
    index.expireAfterSeconds = evaluation.expireAfterSeconds;
  if (settings.styles.length > 1) index.styles = [...settings.styles];
  if (!filter || filter.wants({ kind: 'index' })) {
    out.push({
      key: indexKey(encoded),
      body: jsonBytes(index),
      contentType: contentTypeOf({ kind: 'index' }),
      cacheControl: short,
      phase: 'index',
      repositoryUrl,
      resource: { kind: 'index' },
      scope: 'index',
    });
  }
  // The latest answer is usually the newest scan's: its files are already rendered.
  const reuse = evaluation.latest === evaluation.scans[history.scans.length - 1];
  if (reuse && filter) filter.skipped += newestSkipped;
  const latest = reuse ? newest : scanFiles(encoded, evaluation.latest, filter);
  place(
    [...latest, ...latestOnly(repositoryUrl, evaluation.latest, filter)],
    'latest',
    last.timestamp,
    (r) => latestKey(encoded, r),
    'latest',
  );
  return out;
}

/**
 * The site's own API files, beside no repository: api/v1/openapi.json (config `openapi`),
 * published like the site-wide pages once every repository is, with the short cache age.
 */
export function openapiFiles(
  settings: Settings,
  badgeIds: readonly string[],
  templates: Pick<Templates, 'openapi'>,
): PublishFile[] {
  if (!settings.openapi) return [];
  if (!templates.openapi)
    throw new Error('internal: openapi.json is on but its template was not read');
  return [
    {
      key: OPENAPI_KEY,
      body: jsonBytes(openapiDocument(settings, badgeIds, templates.openapi)),
      contentType: JSON_TYPE,
      cacheControl: cacheControlFor(settings, false),
      phase: 'page',
    },
  ];
}
