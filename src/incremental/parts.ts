// The configuration split by what each output file depends on, so a config change redoes only
// the files it can change. Each part is a hash of the parsed settings and thresholds that
// shape its files (normalised JSON: reformatting YAML or reordering keys changes nothing):
//
//   sarif           every scan's report: all rules and badges with their texts and bands,
//                   the decision files, tool, baseUrl, strictSarif
//   code-scanning   code-scanning.sarif: the same, and whether it is written at all
//   badge:<ID>      a badge's image, explanation, styled images and shields JSON: its
//                   definition, the rules (and decision files) it uses, colours, styles,
//                   shieldsEndpoint, baseUrl
//   index           index.json: the badge ids
//   pages           the repository page and feed: everything
//   global          anything not attributed above (shape, cache ages, expiry, URL schemes,
//                   which rules exist): a change redoes every file, as does new code.
// Beside them, `headers` (cache ages and the rules of which file gets which Cache-Control): a
// change sends every file again, unchanged bytes too (S3 keeps the header of each PUT).
import { createHash } from 'node:crypto';
import type { ResolvedConfig } from '../config/resolve.ts';
import type { DecisionFileB, Settings, ThresholdsA, ThresholdsB } from '../config/types.ts';
import { BADGE_ID_PATTERN, EXTRA_BADGE_STYLES, type Resource } from '../model/layout.ts';
import { RenderFilter } from '../render/shape.ts';
import { CACHE_RULES_VERSION } from '../render/renderer.ts';

export interface ConfigParts {
  /** A change redoes everything. */
  global: string;
  /**
   * The Cache-Control every file goes out with (cache ages, CACHE_RULES_VERSION): a change
   * sends every file again, unchanged bytes too, since S3 keeps the header of each PUT.
   */
  headers: string;
  /** Part name → hash; a repository whose records did not change redoes the parts that differ. */
  parts: Record<string, string>;
}

/** The part a repository's API file belongs to. */
export function partOfResource(r: Resource | { kind: 'index' }): string {
  if ('badgeId' in r) return `badge:${r.badgeId}`;
  return r.kind;
}

const ID = BADGE_ID_PATTERN.slice(1, -1);
// Exactly the keys renderer.ts writes: per-time files (a scan's, its expired variant's) and
// the latest ones, which add the styled badges, shields JSON, code-scanning and index.json.
const AT_KEY = new RegExp(`^at/\\d+/(?:expired/)?(?:(sarif)|badges/(${ID})(?:\\.svg)?)$`);
const LATEST_KEY = new RegExp(
  `^(?:(sarif|code-scanning\\.sarif|index\\.json)|badges/(${ID})(?:\\.svg|\\.json|\\.(?:${EXTRA_BADGE_STYLES.join('|')})\\.svg)?)$`,
);
const FILE_PART: Record<string, string> = {
  sarif: 'sarif',
  'code-scanning.sarif': 'code-scanning',
  'index.json': 'index',
};

/**
 * The part of a key below a repository's API prefix (`at/<ts>/badges/X.svg`, `index.json`, …);
 * undefined for a key no renderer writes, which --prune may then delete as a full build would.
 */
export function partOfKey(relative: string): string | undefined {
  const m = AT_KEY.exec(relative) ?? LATEST_KEY.exec(relative);
  if (!m) return undefined;
  return m[2] !== undefined ? `badge:${m[2]}` : FILE_PART[m[1]!];
}

/** One repository rebuilt for changed config parts only: what it renders, and which keys it leaves alone. */
export class PartialRebuild {
  /** Renders the files of the changed parts; counts the others (still current, left as they are). */
  readonly filter: RenderFilter;
  private readonly changed: ReadonlySet<string>;
  private readonly prefix: string;
  constructor(changed: ReadonlySet<string>, prefix: string) {
    this.changed = changed;
    this.prefix = prefix;
    this.filter = new RenderFilter((r) => changed.has(partOfResource(r)));
  }

  /** A key of an unchanged part: current although not rendered, so never stale for --prune. */
  unrendered(key: string): boolean {
    const part = key.startsWith(this.prefix) ? partOfKey(key.slice(this.prefix.length)) : undefined;
    return part !== undefined && !this.changed.has(part);
  }
}

/** JSON with object keys sorted: the same value gives the same text however it was written. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

const hash = (value: unknown) => createHash('sha256').update(canonicalJson(value)).digest('hex');

type Thresholds = ThresholdsA | ThresholdsB;

function decisionJson(d: DecisionFileB): {
  ruleId: string;
  name: string;
  by: string | null;
  granted: string[];
  grantedRegex: string[];
} {
  return {
    ruleId: d.ruleId,
    name: d.name,
    by: d.by ?? null,
    granted: d.granted,
    grantedRegex: d.grantedRegex.map((p) => p.source),
  };
}

/** The rule ids a badge's files show. */
function badgeRules(t: Thresholds, badgeId: string): Set<string> {
  if (t.shape === 'A') return new Set(t.badges.find((b) => b.id === badgeId)?.criteria ?? []);
  return new Set(t.badges.find((b) => b.id === badgeId)?.levels.flatMap((l) => l.checks) ?? []);
}

/** The parts of a parsed configuration (exported for tests; builds use configParts). */
function partsOf(
  settings: Settings,
  t: Thresholds,
  decisions: ReadonlyMap<string, DecisionFileB>,
): ConfigParts {
  // Where things are read from and written to does not shape a file; what is read does. How
  // a scan measures (scan:, hosts:, dependents:) shapes the store, never a file built from it.
  const {
    store: _store,
    out: _out,
    s3: _s3,
    thresholds: _thresholds,
    decisions: _decisions,
    scan: _scan,
    hosts: _hosts,
    dependents: _dependents,
    ...shaping
  } = settings;
  const {
    baseUrl,
    tool,
    strictSarif,
    codeScanning,
    colors,
    styles,
    shieldsEndpoint,
    pages: _pages,
    openapi: _openapi,
    site: _site,
    ...rest
  } = shaping;
  const allDecisions = [...decisions.values()]
    .map(decisionJson)
    .sort((a, b) => (a.ruleId < b.ruleId ? -1 : 1));
  // Which rules exist and of what kind decides how records load (unknown values are warnings).
  const kinds = t.rules
    .map((r) => [r.id, 'type' in r ? r.type : r.manual ? 'manual' : 'numeric'])
    .sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
  const parts: Record<string, string> = {
    sarif: hash({ baseUrl, tool, strictSarif, t, decisions: allDecisions }),
    'code-scanning': hash({ baseUrl, tool, codeScanning, t, decisions: allDecisions }),
    // Styles only when there are more than flat: a default site's index (and its hash) stay as they were.
    index: hash({ badges: t.badges.map((b) => b.id), ...(styles.length > 1 ? { styles } : {}) }),
    // Every setting and the whole thresholds: any change re-renders pages (and summaries).
    pages: hash({ shaping, t, decisions: allDecisions }),
  };
  for (const b of t.badges) {
    const used = badgeRules(t, b.id);
    const rules = (t.rules as Array<{ id: string }>).filter((r) => used.has(r.id));
    parts[`badge:${b.id}`] = hash({
      baseUrl,
      colors,
      styles,
      shieldsEndpoint,
      badge: b,
      rules,
      decisions: allDecisions.filter((d) => used.has(d.ruleId)),
    });
  }
  return {
    global: hash({ rest, kinds }),
    headers: hash({ cache: settings.cache, rules: CACHE_RULES_VERSION }),
    parts,
  };
}

/** The parts of the resolved configuration. */
export function configParts({ settings, thresholds }: ResolvedConfig): ConfigParts {
  return partsOf(
    settings,
    thresholds.t,
    thresholds.shape === 'B' ? thresholds.decisions : new Map(),
  );
}

/** The parts whose hash differs (present in one and not the other counts as changed). */
export function changedParts(
  prev: Record<string, string>,
  next: Record<string, string>,
): Set<string> {
  const changed = new Set<string>();
  for (const k of new Set([...Object.keys(prev), ...Object.keys(next)]))
    if (prev[k] !== next[k]) changed.add(k);
  return changed;
}
