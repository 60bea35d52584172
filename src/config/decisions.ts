// Shape B decision files: one YAML or JSON file per manual rule in the `decisions:` directory,
// listing the repositories the check is granted to (`granted` URLs, `grantedRegex` patterns).
// Every problem (unknown rule, second file for a rule, bad URL, invalid regex) is a
// ConfigError naming file:line, so a typo never silently withholds or grants a badge.
// Patterns run on RE2 (re2js): matching is linear in the URL's length whatever the pattern,
// so a pattern such as `(a+)+$` cannot hang a scheduled build the way a backtracking engine does.
import { RE2JS } from 're2js';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import decisionSchema from './schemas/decision.schema.json' with { type: 'json' };
import { readYamlFile, formatPath, type PathPart } from './yaml-file.ts';
import { ConfigError } from '../errors.ts';
import { schemaProblems, throwIfAny } from './validate.ts';
import { canonicalRepositoryUrl, DEFAULT_SCHEMES, schemeProblem } from '../model/repository-url.ts';
import type { DecisionFileB, ThresholdsB, UrlPattern } from './types.ts';

const DECISION_FILE = /\.(ya?ml|json)$/i;

/** Decision files by manual rule id; an empty map when the site names no directory. */
export async function loadDecisions(
  dir: string | undefined,
  t: ThresholdsB,
  schemes: readonly string[] = DEFAULT_SCHEMES,
): Promise<Map<string, DecisionFileB>> {
  const out = new Map<string, DecisionFileB>();
  if (dir === undefined) return out;
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => DECISION_FILE.test(n)).sort();
  } catch (err) {
    throw new ConfigError([
      `${dir}: cannot read the decisions directory (${(err as NodeJS.ErrnoException).code ?? String(err)}); check decisions: in the site config`,
    ]);
  }
  const manual = new Set(t.rules.filter((r) => r.manual).map((r) => r.id));
  const problems: string[] = [];
  const fileOf = new Map<string, string>();
  for (const name of names) {
    const located = await readYamlFile(join(dir, name));
    const schema = schemaProblems(decisionSchema, located);
    if (schema.length > 0) {
      problems.push(...schema);
      continue;
    }
    const raw = located.data as {
      ruleId: string;
      by?: string;
      granted?: string[];
      grantedRegex?: string[];
    };
    const say = (path: PathPart[], msg: string) =>
      problems.push(`${located.where(path)} ${formatPath(path)}: ${msg}`);
    if (!manual.has(raw.ruleId)) {
      say(
        ['ruleId'],
        `${JSON.stringify(raw.ruleId)} is not a manual rule of the Shape B thresholds; known: ${[...manual].map((id) => JSON.stringify(id)).join(', ')}`,
      );
    } else if (fileOf.has(raw.ruleId)) {
      say(
        ['ruleId'],
        `${JSON.stringify(raw.ruleId)} is already decided by ${fileOf.get(raw.ruleId)}; keep one file per manual rule`,
      );
    } else fileOf.set(raw.ruleId, name);
    const granted: string[] = [];
    (raw.granted ?? []).forEach((url, i) => {
      const c = canonicalRepositoryUrl(url);
      const problem = c.ok ? schemeProblem(c.url, schemes) : c.reason;
      if (problem) say(['granted', i], problem);
      else if (c.ok) granted.push(c.url);
    });
    const grantedRegex: UrlPattern[] = [];
    (raw.grantedRegex ?? []).forEach((pattern, i) => {
      const compiled = compileUrlPattern(pattern);
      if (typeof compiled === 'string') say(['grantedRegex', i], compiled);
      else grantedRegex.push(compiled);
    });
    if (fileOf.get(raw.ruleId) === name) {
      out.set(raw.ruleId, {
        ruleId: raw.ruleId,
        name,
        ...(raw.by !== undefined ? { by: raw.by } : {}),
        granted,
        grantedRegex,
      });
    }
  }
  throwIfAny(problems);
  return out;
}

/**
 * A `grantedRegex` entry compiled by RE2 (unanchored search, as RegExp#test), or why it is
 * refused: RE2 has no backreferences or lookaround, the constructs that make matching slow.
 */
export function compileUrlPattern(pattern: string): UrlPattern | string {
  try {
    const re = RE2JS.compile(pattern);
    return { source: pattern, test: (url) => re.test(url) };
  } catch (err) {
    const message = (err as Error).message.replace(/^error parsing regexp: /, '');
    return `invalid regular expression (RE2 syntax): ${message}; backreferences and lookaround are not supported`;
  }
}
