// JSON Schema validation with ajv, reported as "file:line path: what is wrong".
import type { ErrorObject } from 'ajv';
import { validatorOf } from './validators.ts';
import { formatPath, type LocatedData, type PathPart } from './yaml-file.ts';
import { ConfigError } from '../errors.ts';

/** `schema`: one of the configuration schemas (src/config/validators.ts). */
export function schemaProblems(schema: { $id: string }, located: LocatedData): string[] {
  const validate = validatorOf('config', schema);
  if (validate(located.data)) return [];
  return dedupe(validate.errors ?? []).map((e) => {
    const path = pointerToPath(e.instancePath);
    if (e.keyword === 'additionalProperties') path.push(String(e.params.additionalProperty));
    return `${located.where(path)} ${formatPath(path)}: ${describe(e)}`;
  });
}

/**
 * A rule id names its page, rules/<encoded id>/, one path segment: file systems and the
 * resolvers take at most 255 bytes there. Only MANUAL/… ids are free-form enough to exceed it.
 */
export function ruleIdProblem(id: string): string | undefined {
  const bytes = encodeURIComponent(id).length;
  return bytes > 255
    ? `rule id encodes to ${bytes} bytes; its page rules/<id>/ is one path segment of at most 255 bytes: shorten the id`
    : undefined;
}

export function throwIfAny(problems: string[]): void {
  if (problems.length > 0) throw new ConfigError(problems);
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case 'additionalProperties':
      return 'unknown key; remove it or check its spelling';
    case 'enum':
      return `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'required':
      return `missing required key "${String(e.params.missingProperty)}"`;
    case 'maxLength':
      return `longer than ${String(e.params.limit)} characters; shorten it`;
    default:
      return e.message ?? e.keyword;
  }
}

// "if/then/else" failures repeat the branch's own errors; keep the specific ones.
function dedupe(errors: ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    if (e.keyword === 'if') return false;
    const k = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function pointerToPath(pointer: string): PathPart[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/**
 * Badge ids are file and directory names (badges/<ID>.svg, badges/<ID>/index.html): two that
 * differ only in case are one name on a case-insensitive disk (macOS, Windows) and would
 * overwrite each other. Returns, per position, the message for an id that repeats an earlier
 * one exactly or but for case.
 */
export function badgeIdProblems(ids: readonly string[]): Map<number, string> {
  const problems = new Map<number, string>();
  const seen = new Map<string, number>();
  ids.forEach((id, i) => {
    const at = seen.get(id.toLowerCase());
    if (at === undefined) return void seen.set(id.toLowerCase(), i);
    problems.set(
      i,
      ids[at] === id
        ? `duplicate badge id ${JSON.stringify(id)} (also badges[${at}])`
        : `badge id ${JSON.stringify(id)} differs from ${JSON.stringify(ids[at])} (badges[${at}]) only in case: their files would be one on a case-insensitive disk (macOS, Windows); rename one`,
    );
  });
  return problems;
}
