// Checks one parsed item against the published record schema and the active rules.
import { Ajv, type ErrorObject } from 'ajv';
import recordSchema from './record.schema.json' with { type: 'json' };
import { canonicalRepositoryUrl } from '../model/repository-url.ts';
import type { GrantRecord, RuleCatalog, ScanRecord, StoredValue } from './types.ts';

const validateShape = new Ajv({ allErrors: false, strict: false }).compile(recordSchema);

export type RecordCheck =
  | { ok: true; record: ScanRecord | GrantRecord; unknownRules: string[] }
  | { ok: false; reason: string };

export function checkRecord(value: unknown, source: string, catalog: RuleCatalog): RecordCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'a record must be a JSON object' };
  }
  const obj = value as Record<string, unknown>;
  // The URL first: it is the most common fault and the most useful message.
  if ('repositoryUrl' in obj) {
    const url = canonicalRepositoryUrl(obj.repositoryUrl);
    if (!url.ok) return { ok: false, reason: url.reason };
  }
  if (!validateShape(value)) {
    const errors = validateShape.errors ?? [];
    // anyOf failures list each branch first; the anyOf error itself says what was expected.
    return { ok: false, reason: describe(errors.find((e) => e.keyword === 'anyOf') ?? errors[0]) };
  }
  const repositoryUrl = (canonicalRepositoryUrl(obj.repositoryUrl) as { url: string }).url;
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
  const values: Record<string, StoredValue> = {};
  const unknownRules: string[] = [];
  for (const [ruleId, v] of Object.entries(obj.values as Record<string, StoredValue>)) {
    const kind = catalog(ruleId);
    if (kind === undefined) {
      unknownRules.push(ruleId);
      continue;
    }
    const problem = valueProblem(kind, v);
    if (problem) return { ok: false, reason: `values.${ruleId}: ${problem}` };
    values[ruleId] = v;
  }
  const evidence: Record<string, string> = {};
  for (const [ruleId, text] of Object.entries((obj.evidence ?? {}) as Record<string, string>)) {
    if (catalog(ruleId) !== undefined) evidence[ruleId] = text;
  }
  return { ok: true, record: { kind: 'scan', repositoryUrl, timestamp, values, evidence, source }, unknownRules };
}

function valueProblem(kind: 'numeric' | 'boolean' | 'manual', v: StoredValue): string | undefined {
  if (v === null) return undefined;
  switch (kind) {
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `expected true, false or null for a yes/no rule, got ${JSON.stringify(v)}`;
    case 'numeric':
      return typeof v === 'boolean' ? `expected a number, null or {"events":[…]}, got ${v}` : undefined;
    case 'manual':
      return 'manual checks are decided by grant records or decision files, not by scan values';
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
      return `${at}: is too large`;
    case 'anyOf':
      return `${at}: expected a number ≥ 0, true/false, null or {"events":[unix seconds…]}`;
    case 'enum':
      return `${at}: must be one of ${(e.params.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`;
    case 'pattern':
      return at === 'ruleId' ? 'ruleId of a grant must start with MANUAL/' : `${at}: has the wrong form`;
    default:
      return `${at}: ${e.message ?? e.keyword}`;
  }
}
