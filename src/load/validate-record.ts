// Checks one parsed item against the published record schema and the active rules.
import type { ErrorObject } from 'ajv';
import recordSchema from './record.schema.json' with { type: 'json' };
import { validatorOf } from '../config/validators.ts';
import {
  canonicalRepositoryUrl,
  DEFAULT_SCHEMES,
  schemeProblem,
  type CanonicalResult,
} from '../model/repository-url.ts';
import {
  MAX_UNIX_SECONDS,
  type GrantRecord,
  type RuleCatalog,
  type ScanRecord,
  type ValueKind,
} from './types.ts';
import type { Revision, StoredValue } from '../model/stored-value.ts';

// Verbose: errors carry the offending value, so a message can quote it (validators.ts).
const validateShape = validatorOf('record', recordSchema);

type RecordCheck =
  | { ok: true; record: ScanRecord | GrantRecord; unknownRules: string[] }
  | { ok: false; reason: string };

/**
 * `url`: the record's repositoryUrl made canonical, when the caller has done so already;
 * `schemes`: the repository URL schemes the site accepts (default http and https).
 */
export function checkRecord(
  value: unknown,
  source: string,
  catalog: RuleCatalog,
  url?: CanonicalResult,
  schemes: readonly string[] = DEFAULT_SCHEMES,
): RecordCheck {
  if (!isPlainObject(value)) return { ok: false, reason: 'a record must be a JSON object' };
  const obj = value;
  const canonical = url ?? canonicalRepositoryUrl(obj.repositoryUrl);
  // The URL first: it is the most common fault and the most useful message.
  if ('repositoryUrl' in obj) {
    if (!canonical.ok) return { ok: false, reason: canonical.reason };
    const scheme = schemeProblem(canonical.url, schemes);
    if (scheme) return { ok: false, reason: scheme };
  }
  const unknownRules: string[] = [];
  let shaped: Record<string, unknown> = obj;
  if (obj.kind !== 'grant' && isPlainObject(obj.values)) {
    // Rules the thresholds define are checked by their own kind first, so a message says what
    // that rule accepts; values of other rule ids are ignored whatever they hold (scanners may
    // measure more than a deployment judges), so they never reach the schema either.
    const known: Record<string, unknown> = {};
    for (const [ruleId, v] of Object.entries(obj.values)) {
      const kind = catalog(ruleId);
      if (kind === undefined) {
        unknownRules.push(ruleId);
        continue;
      }
      const problem = valueProblem(kind, v);
      if (problem)
        return { ok: false, reason: `values.${ruleId}${problem.at ?? ''}: ${problem.message}` };
      known[ruleId] = v;
    }
    shaped = { ...obj, values: known };
    if (isPlainObject(obj.evidence)) {
      shaped.evidence = Object.fromEntries(
        Object.entries(obj.evidence).filter(([ruleId]) => catalog(ruleId) !== undefined),
      );
    }
  }
  if (!validateShape(shaped)) {
    const errors = validateShape.errors ?? [];
    // anyOf failures list each branch first; the anyOf error itself says what was expected.
    return { ok: false, reason: describe(errors.find((e) => e.keyword === 'anyOf') ?? errors[0]) };
  }
  const repositoryUrl = (canonical as { url: string }).url;
  const timestamp = obj.timestamp as number;
  if (obj.kind === 'grant') {
    const g: GrantRecord = {
      kind: 'grant',
      repositoryUrl,
      ruleId: obj.ruleId as string,
      granted: obj.granted as boolean,
      timestamp,
      source,
    };
    if (typeof obj.by === 'string') g.by = obj.by;
    if (typeof obj.note === 'string') g.note = obj.note;
    return { ok: true, record: g, unknownRules: catalog(g.ruleId) === 'manual' ? [] : [g.ruleId] };
  }
  const values = shaped.values as Record<string, StoredValue>;
  const evidence = (shaped.evidence ?? {}) as Record<string, string>;
  const scan: ScanRecord = { kind: 'scan', repositoryUrl, timestamp, values, evidence, source };
  if (isPlainObject(obj.revision)) scan.revision = obj.revision as unknown as Revision;
  if (Array.isArray(obj.failed) && obj.failed.length > 0) scan.failed = obj.failed as string[];
  return { ok: true, record: scan, unknownRules };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A value quoted in a message, cut to one readable line. A value nested too deeply for
 * JSON.stringify (a hostile record can be) is named by its kind rather than overflowing.
 */
function show(v: unknown): string {
  // JSON.stringify writes Infinity and NaN as null: say what they are.
  if (typeof v === 'number' && !Number.isFinite(v)) return NOT_FINITE(v);
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = Array.isArray(v) ? 'a deeply nested array' : 'a deeply nested object';
  }
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

const NOT_FINITE = (v: number) =>
  Number.isNaN(v) ? 'NaN (.nan)' : `${v} (out of range, as 1e400 or .inf is)`;

const TIME_LIMIT = `whole Unix seconds from 0 to ${MAX_UNIX_SECONDS} (the end of year 9999)`;

/** What is wrong with a stored value for a rule of this kind; `at` extends the path. */
export function valueProblem(
  kind: ValueKind,
  v: unknown,
): { at?: string; message: string } | undefined {
  if (v === null) return undefined;
  switch (kind) {
    case 'boolean':
      return typeof v === 'boolean'
        ? undefined
        : { message: `expected true, false or null for a yes/no rule, got ${show(v)}` };
    case 'manual':
      return {
        message: 'manual checks are decided by grant records or decision files, not by scan values',
      };
    case 'numeric': {
      // Built only when the value is wrong: quoting every valid events array costs time.
      const expected = () => ({
        message: `expected a number ≥ 0, null or {"events":[unix seconds…]} for a measured rule, got ${show(v)}`,
      });
      if (typeof v === 'number' && !Number.isFinite(v))
        return { message: `not a finite number: got ${show(v)}; write a number ≥ 0 or null` };
      if (typeof v === 'number') return v >= 0 ? undefined : expected();
      if (!isPlainObject(v) || !Array.isArray(v.events)) return expected();
      const extra = Object.keys(v).find((k) => k !== 'events');
      if (extra !== undefined)
        return { message: `unknown key ${JSON.stringify(extra)}; a count holds only "events"` };
      const i = v.events.findIndex(
        (t) => !Number.isInteger(t) || (t as number) < 0 || (t as number) > MAX_UNIX_SECONDS,
      );
      return i < 0
        ? undefined
        : {
            at: `.events[${i}]`,
            message: `an event time must be ${TIME_LIMIT}, got ${show(v.events[i])}`,
          };
    }
  }
}

function describe(e: ErrorObject | undefined): string {
  if (!e) return 'invalid record';
  const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'record';
  switch (e.keyword) {
    case 'required':
      return `${at}: missing required key "${String(e.params.missingProperty)}"`;
    case 'additionalProperties':
      return `${at}: unknown key "${String(e.params.additionalProperty)}"`;
    case 'type':
      if (at === 'timestamp') return 'timestamp must be an integer number of Unix seconds';
      return `${at}: must be ${String(e.params.type)}`;
    case 'minimum':
      return `${at}: must not be negative`;
    case 'maximum':
      return at === 'timestamp'
        ? `timestamp must be ${TIME_LIMIT}, got ${show(e.data)}`
        : `${at}: must be at most ${String(e.params.limit)}`;
    case 'anyOf':
      return `${at}: expected a number ≥ 0, true/false, null or {"events":[unix seconds…]}`;
    case 'enum':
      return `${at}: must be one of ${(e.params.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`;
    case 'pattern':
      return at === 'ruleId'
        ? 'ruleId of a grant must start with MANUAL/'
        : `${at}: has the wrong form`;
    default:
      return `${at}: ${e.message ?? e.keyword}`;
  }
}
