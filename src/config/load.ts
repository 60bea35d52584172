// Loads config/badgepress.yaml and the active shape's thresholds, validates both (schema plus
// the checks a schema cannot make) and resolves paths. Any problem throws a ConfigError that
// lists every problem with file:line and the path inside the file; nothing is built then.
import { dirname, isAbsolute, resolve } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import siteSchema from './schemas/site.schema.json' with { type: 'json' };
import thresholdsASchema from './schemas/thresholds-a.schema.json' with { type: 'json' };
import { readYamlFile, formatPath, type LocatedData } from './yaml-file.ts';
import { ConfigError } from '../errors.ts';
import { badgeIdProblems, ruleIdProblem, schemaProblems, throwIfAny } from './validate.ts';
import type { Band, RuleA, Settings, ThresholdsA, Shape } from './types.ts';
import { isS3, locationProblem } from '../s3/location.ts';
import {
  DEFAULT_BASE_URL,
  DEFAULT_COLORS,
  DEFAULT_S3,
  DEFAULT_SCAN,
  DEFAULT_SHAPE,
  DEFAULT_TOOL,
} from './defaults.ts';
import { DEFAULT_CACHE } from '../model/http.ts';
import { botPatternProblem } from '../model/bot-pattern.ts';
import { DEFAULT_SCHEMES } from '../model/repository-url.ts';
import { httpUrlProblem } from './http-url.ts';
import { compileUrlPattern } from './decisions.ts';
import type { SourceSetting, UrlPattern } from './types.ts';

/** The repository's own config folder: defaults when a user brings none. */
export const PACKAGE_CONFIG_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../config');

export interface SettingsOverrides {
  shape?: Shape;
  baseUrl?: string;
  store?: string;
  out?: string;
  /** --s3-endpoint, --s3-path-style. */
  s3Endpoint?: string;
  s3PathStyle?: boolean;
}

/** Which settings file a command reads, and whether it is the user's own (not the packaged one). */
export interface SettingsFile {
  path: string;
  own: boolean;
}

/** The settings a command reads: `file`, else ./config/badgepress.yaml when present, else the packaged defaults. */
export function chooseSettingsFile(file?: string): SettingsFile {
  const own = file ?? (existsSync('config/badgepress.yaml') ? 'config/badgepress.yaml' : undefined);
  return {
    path: resolve(own ?? resolve(PACKAGE_CONFIG_DIR, 'badgepress.yaml')),
    own: own !== undefined,
  };
}

export async function loadSettings(
  file?: string,
  overrides: SettingsOverrides = {},
): Promise<Settings> {
  return loadSettingsAt(chooseSettingsFile(file), overrides);
}

/** The site settings in the file chooseSettingsFile chose. */
export async function loadSettingsAt(
  { path, own: ownConfig }: SettingsFile,
  overrides: SettingsOverrides = {},
): Promise<Settings> {
  const located = await readYamlFile(path);
  throwIfAny(schemaProblems(siteSchema, located));
  throwIfAny(locationProblems(located, overrides));
  throwIfAny(addressProblems(located));
  throwIfAny(botPatternProblems(located));
  const logo = siteLogo(located, dirname(path));
  const sources = sourceSettings(located);
  throwIfAny(sources.problems);
  const raw = located.data as Partial<Settings> & {
    thresholds?: Partial<Settings['thresholds']>;
    s3?: Partial<Settings['s3']>;
    scan?: Partial<Settings['scan']>;
  };
  const base = dirname(path);
  const rel = (p: string) => (isS3(p) || isAbsolute(p) ? p : resolve(base, p));
  const config: Settings = {
    shape: overrides.shape ?? raw.shape ?? DEFAULT_SHAPE,
    baseUrl: (overrides.baseUrl ?? raw.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    // The packaged config points at the bundled example; a user without a config of their
    // own names the store, and the site goes to ./dist.
    store: overrides.store ?? (ownConfig ? rel(raw.store ?? 'store') : missingStore()),
    out: overrides.out ?? (ownConfig ? rel(raw.out ?? 'dist') : resolve('dist')),
    thresholds: {
      A: raw.thresholds?.A
        ? rel(raw.thresholds.A)
        : resolve(PACKAGE_CONFIG_DIR, 'thresholds-a.yaml'),
      B: raw.thresholds?.B
        ? rel(raw.thresholds.B)
        : resolve(PACKAGE_CONFIG_DIR, 'thresholds-b.yaml'),
    },
    ...(raw.decisions ? { decisions: rel(raw.decisions) } : {}),
    tool: {
      name: raw.tool?.name ?? DEFAULT_TOOL.name,
      version: raw.tool?.version ?? DEFAULT_TOOL.version,
      // The site itself, never a domain we do not own (the human site's home page).
      informationUri:
        raw.tool?.informationUri ??
        `${(overrides.baseUrl ?? raw.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '')}/`,
    },
    site: {
      title: raw.site?.title ?? raw.tool?.name ?? DEFAULT_TOOL.name,
      ...(logo ? { logo } : {}),
    },
    cache: {
      latestMaxAge: raw.cache?.latestMaxAge ?? DEFAULT_CACHE.latestMaxAge,
      immutableMaxAge: raw.cache?.immutableMaxAge ?? DEFAULT_CACHE.immutableMaxAge,
    },
    expireAfterDays: raw.expireAfterDays ?? null,
    unknownAs: raw.unknownAs ?? null,
    strictSarif: raw.strictSarif ?? false,
    openapi: raw.openapi ?? true,
    shieldsEndpoint: raw.shieldsEndpoint ?? true,
    codeScanning: raw.codeScanning ?? false,
    // flat is the plain .svg every site serves; listing it or not changes nothing.
    styles: ['flat', ...(raw.styles ?? []).filter((s) => s !== 'flat')],
    repositoryUrlSchemes: raw.repositoryUrlSchemes ?? [...DEFAULT_SCHEMES],
    colors: { ...DEFAULT_COLORS, ...(raw.colors ?? {}) },
    s3: {
      ...DEFAULT_S3,
      ...(raw.s3 ?? {}),
      ...(overrides.s3Endpoint !== undefined ? { endpoint: overrides.s3Endpoint } : {}),
      ...(overrides.s3PathStyle ? { pathStyle: true } : {}),
    },
    pages: raw.pages ?? true,
    hosts: Object.fromEntries(
      Object.entries(raw.hosts ?? {}).map(([host, h]) => [
        host,
        h.apiUrl === undefined ? h : { ...h, apiUrl: h.apiUrl.replace(/\/+$/, '') },
      ]),
    ),
    ...(raw.dependents ? { dependents: raw.dependents } : {}),
    sources: sources.sources,
    scan: {
      ...DEFAULT_SCAN,
      ...(raw.scan ?? {}),
      // Like out: the packaged config keeps nothing of a user's in the package's folder.
      mirrors: ownConfig
        ? rel(raw.scan?.mirrors ?? '.badgepress/mirrors')
        : resolve('.badgepress/mirrors'),
    },
  };
  const flagProblem =
    overrides.baseUrl === undefined
      ? undefined
      : httpUrlProblem(overrides.baseUrl, { queryAllowed: false });
  if (flagProblem)
    throw new ConfigError([`--base-url ${JSON.stringify(overrides.baseUrl)}: ${flagProblem}`]);
  return config;
}

function missingStore(): never {
  throw new ConfigError([
    `no store given: no --config and no ./config/badgepress.yaml, so the packaged settings (${resolve(PACKAGE_CONFIG_DIR, 'badgepress.yaml')}) are used, and they name no store. ` +
      'Pass --store DIR (or s3://bucket/prefix), or run "badgepress init" to write config/badgepress.yaml here and edit its store:',
  ]);
}

/** The LOGO_MAX_BYTES an SVG logo may hold: it is inlined nowhere, but read into every build's settings. */
const LOGO_MAX_BYTES = 64 * 1024;

/** site.logo: an SVG file (relative to the settings file), read here so rendering reads no file. */
function siteLogo(located: LocatedData, base: string): Settings['site']['logo'] {
  const given = (located.data as { site?: { logo?: unknown } }).site?.logo;
  if (typeof given !== 'string') return undefined;
  const path = ['site', 'logo'];
  const file = isAbsolute(given) ? given : resolve(base, given);
  let svg: string;
  try {
    svg = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError([
      `${located.where(path)} ${formatPath(path)}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? String(e)}); name an SVG file, relative to this file`,
    ]);
  }
  if (Buffer.byteLength(svg) > LOGO_MAX_BYTES || !/<svg[\s>]/.test(svg)) {
    throw new ConfigError([
      `${located.where(path)} ${formatPath(path)}: ${file} is not an SVG image of at most ${LOGO_MAX_BYTES / 1024} KB`,
    ]);
  }
  return { file, svg };
}

/** Public repositories only, neither archived, forks nor mirrors, unless an entry says so. */
export const SOURCE_DEFAULTS = {
  archived: false,
  forks: false,
  mirrors: false,
  visibility: ['public'],
  topics: [],
} as const;

interface RawSource {
  url: string;
  archived?: boolean;
  forks?: boolean;
  mirrors?: boolean;
  visibility?: SourceSetting['visibility'];
  topics?: string[];
  include?: string[];
  exclude?: string[];
}

/** `sources:` with their defaults and compiled patterns; a pattern RE2 refuses is named with file:line. */
function sourceSettings(located: LocatedData): { sources: SourceSetting[]; problems: string[] } {
  const raw = (located.data as { sources?: RawSource[] }).sources ?? [];
  const problems: string[] = [];
  const sources = raw.map((entry, i): SourceSetting => {
    const compiled = (key: 'include' | 'exclude') =>
      (entry[key] ?? []).flatMap((pattern, j): UrlPattern[] => {
        const p = compileUrlPattern(pattern);
        if (typeof p !== 'string') return [p];
        const path = ['sources', i, key, j];
        problems.push(
          `${located.where(path)} ${formatPath(path)}: ${JSON.stringify(pattern)} is an ${p}`,
        );
        return [];
      });
    return {
      ...SOURCE_DEFAULTS,
      ...entry,
      url: entry.url.replace(/\/+$/, ''),
      include: compiled('include'),
      exclude: compiled('exclude'),
      where: located.where(['sources', i]),
    };
  });
  return { sources, problems };
}

function botPatternProblems(located: LocatedData): string[] {
  const patterns = (located.data as { scan?: { botPatterns?: unknown } }).scan?.botPatterns;
  if (!Array.isArray(patterns)) return [];
  return patterns.flatMap((p, i) => {
    const problem = typeof p === 'string' ? botPatternProblem(p) : undefined;
    const path = ['scan', 'botPatterns', i];
    return problem
      ? [`${located.where(path)} ${formatPath(path)}: ${JSON.stringify(p)} is ${problem}`]
      : [];
  });
}

/** The prefixes of GitHub and GitLab tokens (ghp_, github_pat_, glpat-, …). */
const TOKEN_SHAPE = /^(gh[pousr]_|github_pat_|glpat|gldt|glptt)/;

/** baseUrl: and tool.informationUri: are written into every report, a host's apiUrl: gets its token: real http(s) URLs only. */
function addressProblems(located: LocatedData): string[] {
  const data = located.data as { baseUrl?: unknown; tool?: { informationUri?: unknown } };
  const problems: string[] = [];
  const check = (path: string[], value: unknown, queryAllowed: boolean, credentials = '') => {
    if (typeof value !== 'string') return;
    const problem = httpUrlProblem(value, { queryAllowed });
    // A URL's user information may be a password or token: never echoed.
    const shown = value.replace(/^([^:/?#]*:\/\/)[^/?#]*@/, '$1***@');
    const advice = shown !== value ? credentials : '';
    if (problem)
      problems.push(
        `${located.where(path)} ${formatPath(path)}: ${JSON.stringify(shown)} ${problem}${advice}`,
      );
  };
  check(['baseUrl'], data.baseUrl, false);
  check(['tool', 'informationUri'], data.tool?.informationUri, true);
  const hosts =
    (located.data as { hosts?: Record<string, { apiUrl?: unknown; tokenEnv?: unknown }> }).hosts ??
    {};
  for (const [host, h] of Object.entries(hosts)) {
    check(
      ['hosts', host, 'apiUrl'],
      h?.apiUrl,
      false,
      '; give the token through tokenEnv (the name of an environment variable holding it), and revoke the one in this file',
    );
    // A token pasted where its variable's name belongs must never be echoed, only named.
    if (typeof h?.tokenEnv === 'string' && TOKEN_SHAPE.test(h.tokenEnv)) {
      const path = ['hosts', host, 'tokenEnv'];
      problems.push(
        `${located.where(path)} ${formatPath(path)}: looks like a token, not the name of an environment variable; put the token in a variable and name the variable here (and revoke the token shown in this file)`,
      );
    }
  }
  const tokens =
    (located.data as { scan?: { tokens?: Record<string, unknown> } }).scan?.tokens ?? {};
  for (const [host, name] of Object.entries(tokens)) {
    if (typeof name === 'string' && TOKEN_SHAPE.test(name)) {
      const path = ['scan', 'tokens', host];
      problems.push(
        `${located.where(path)} ${formatPath(path)}: looks like a token, not the name of an environment variable; put the token in a variable and name the variable here (and revoke the token shown in this file)`,
      );
    }
  }
  const dependents = (located.data as { dependents?: { apiUrl?: unknown } }).dependents;
  check(['dependents', 'apiUrl'], dependents?.apiUrl, false);
  return problems;
}

/** --store/--out and store:/out: must be s3://bucket/prefix or a path, never a look-alike. */
function locationProblems(located: LocatedData, overrides: SettingsOverrides): string[] {
  const data = located.data as { store?: unknown; out?: unknown };
  const problems: string[] = [];
  for (const key of ['store', 'out'] as const) {
    const flag = overrides[key];
    const value = flag ?? data[key];
    if (typeof value !== 'string') continue;
    const problem = locationProblem(value);
    if (!problem) continue;
    const where = flag !== undefined ? `--${key}` : `${located.where([key])} ${key}:`;
    problems.push(`${where} ${JSON.stringify(value)}: ${problem}`);
  }
  return problems;
}

export async function loadThresholdsA(file: string): Promise<ThresholdsA> {
  const located = await readYamlFile(file);
  throwIfAny(schemaProblems(thresholdsASchema, located));
  const raw = located.data as {
    rules: Array<Record<string, unknown>>;
    badges: ThresholdsA['badges'];
  };
  const rules = raw.rules.map((r) => ({ ...r, type: r.type ?? 'numeric' }) as RuleA);
  throwIfAny(thresholdsAProblems(located, rules, raw.badges));
  return { shape: 'A', rules, badges: raw.badges };
}

function thresholdsAProblems(
  located: LocatedData,
  rules: RuleA[],
  badges: ThresholdsA['badges'],
): string[] {
  const problems: string[] = [];
  const say = (path: (string | number)[], msg: string) =>
    problems.push(`${located.where(path)} ${formatPath(path)}: ${msg}`);
  const ids = new Map<string, number>();
  rules.forEach((rule, i) => {
    if (ids.has(rule.id))
      say(['rules', i, 'id'], `duplicate rule id ${rule.id} (also rules[${ids.get(rule.id)}])`);
    ids.set(rule.id, i);
    const tooLong = ruleIdProblem(rule.id);
    if (tooLong) say(['rules', i, 'id'], tooLong);
    if (rule.type === 'numeric')
      for (const p of bandProblems(rule.thresholds))
        say(['rules', i, 'thresholds', ...p.path], p.message);
  });
  const badgeIds = badgeIdProblems(badges.map((b) => b.id));
  badges.forEach((badge, i) => {
    const repeated = badgeIds.get(i);
    if (repeated) say(['badges', i, 'id'], repeated);
    badge.criteria.forEach((ruleId, j) => {
      if (!ids.has(ruleId))
        say(
          ['badges', i, 'criteria', j],
          `unknown rule ${JSON.stringify(ruleId)}; define it under rules or remove it`,
        );
    });
  });
  return problems;
}

/** Bands must cover 0..unbounded in integer steps, with neither overlap nor gap. */
function bandProblems(bands: Band[]): Array<{ path: (string | number)[]; message: string }> {
  const out: Array<{ path: (string | number)[]; message: string }> = [];
  const show = (b: Band) => `${b.min}..${b.max ?? 'unbounded'}`;
  bands.forEach((b, j) => {
    if (b.max !== null && b.max < b.min)
      out.push({ path: [j], message: `band ${show(b)} has max below min` });
  });
  if (out.length) return out;
  const order = bands.map((b, j) => ({ b, j })).sort((x, y) => x.b.min - y.b.min);
  const first = order[0];
  if (first && first.b.min !== 0)
    out.push({
      path: [first.j, 'min'],
      message: `bands leave a gap: nothing covers 0..${first.b.min - 1}`,
    });
  for (let k = 1; k < order.length; k++) {
    const prev = order[k - 1]!;
    const cur = order[k]!;
    if (prev.b.max === null || prev.b.max >= cur.b.min) {
      out.push({
        path: [cur.j],
        message: `band ${show(cur.b)} overlaps band ${show(prev.b)} (thresholds[${prev.j}])`,
      });
    } else if (prev.b.max + 1 < cur.b.min) {
      out.push({
        path: [cur.j, 'min'],
        message: `bands leave a gap: nothing covers ${prev.b.max + 1}..${cur.b.min - 1}`,
      });
    }
  }
  const last = order[order.length - 1];
  if (last && last.b.max !== null)
    out.push({
      path: [last.j, 'max'],
      message: `bands leave a gap: nothing covers ${last.b.max + 1}..unbounded; end with max: null`,
    });
  return out;
}
