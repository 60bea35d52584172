// The public paths of the API and the keys that hold them, one place for the build, the
// publishers and the resolver. `<enc>` is the encoded repository URL held literally in one
// segment (docs/reference/api.md).

import { JSON_TYPE, SVG_TYPE } from './http.ts';

export const API_PREFIX = 'api/v1/repositories/';
/** Where a repository's human pages live: `repositories/<enc>/` (index.html, feed.atom). */
export const PAGES_PREFIX = 'repositories/';

/** The site's page of a rule: `rules/<rule-enc>/` (its index.html). */
export function rulePagePath(ruleId: string): string {
  return `rules/${encodeURIComponent(ruleId)}/`;
}

/** Badge styles besides flat, each a pre-rendered latest file chosen with `?style=`. */
export const EXTRA_BADGE_STYLES = ['flat-square', 'plastic', 'for-the-badge', 'social'] as const;
export type ExtraBadgeStyle = (typeof EXTRA_BADGE_STYLES)[number];
/** The `?style=` values a deployment may render: flat, the plain .svg, and the others. */
export type BadgeStyleName = 'flat' | ExtraBadgeStyle;

/**
 * What a repository's files are: the report, a badge image, or a badge explanation; and, for
 * the latest scan only, a badge in another style, shields.io endpoint JSON, and the report for
 * GitHub code scanning.
 */
export type Resource =
  | { kind: 'sarif' }
  | { kind: 'svg'; badgeId: string }
  | { kind: 'explanation'; badgeId: string }
  | { kind: 'styled'; badgeId: string; style: ExtraBadgeStyle }
  | { kind: 'shields'; badgeId: string }
  | { kind: 'code-scanning' };

/** Files that exist for the latest result only: `?timestamp=` on them is a 400. */
export function isLatestOnly(r: Resource): boolean {
  return r.kind === 'styled' || r.kind === 'shields' || r.kind === 'code-scanning';
}

// Badge ids hold no dot, so no two of a badge's names meet; a styled file is reached
// through `?style=` (or named directly, as a static front end does).
function resourcePath(r: Resource): string {
  if (!('badgeId' in r)) return r.kind === 'sarif' ? 'sarif' : 'code-scanning.sarif';
  return `badges/${r.badgeId}${r.kind === 'styled' ? `.${r.style}.svg` : r.kind === 'svg' ? '.svg' : r.kind === 'shields' ? '.json' : ''}`;
}

/**
 * The key of any file of a repository: the latest one, or with `at` a per-time file (Shape A
 * with `expireAfterDays`: `expired`, the file a `?timestamp=T` query is sent to when T lies
 * more than `expireAfterSeconds` after the scan it resolves to).
 */
export function fileKey(
  encoded: string,
  r: Resource | { kind: 'index' },
  at?: { timestamp: number; expired: boolean },
): string {
  return `${API_PREFIX}${encoded}/${at ? `at/${at.timestamp}/${at.expired ? 'expired/' : ''}` : ''}${r.kind === 'index' ? 'index.json' : resourcePath(r)}`;
}

export function repositoryPrefix(encoded: string): string {
  return `${API_PREFIX}${encoded}/`;
}

/** Where a repository's pages live (its index.html and feed.atom). */
export function repositoryPagesPrefix(encoded: string): string {
  return `${PAGES_PREFIX}${encoded}/`;
}

export function latestKey(encoded: string, r: Resource): string {
  return fileKey(encoded, r);
}

export function atKey(encoded: string, timestamp: number, r: Resource): string {
  return fileKey(encoded, r, { timestamp, expired: false });
}

export function expiredAtKey(encoded: string, timestamp: number, r: Resource): string {
  return fileKey(encoded, r, { timestamp, expired: true });
}

export function indexKey(encoded: string): string {
  return fileKey(encoded, { kind: 'index' });
}

export function contentTypeOf(r: Resource | { kind: 'index' }): string {
  return r.kind === 'svg' || r.kind === 'styled' ? SVG_TYPE : JSON_TYPE;
}

/** Badge ids become one path segment: keep them to safe characters. */
export const BADGE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]*$';

/** The JSON a repository's index.json holds: enough for the resolver to answer `?timestamp=`. */
export interface RepositoryIndex {
  repositoryUrl: string;
  timestamps: number[];
  /** The badge ids the site serves for this repository (unknown ids answer 404 at once). */
  badges: string[];
  /** Present when badges expire (Shape A `expireAfterDays`): a `?timestamp=T` with T - ts > this
   *  resolves to the `at/<ts>/expired/` files instead of `at/<ts>/`. */
  expireAfterSeconds?: number;
  /** Present when the site renders badge styles besides flat: all it renders, flat first. A
   *  `?style=` of another is answered as not rendered, not as a missing file. */
  styles?: string[];
}
