// One scan record as a store line: the published record schema checked before it is written,
// keys in a fixed order so the same measurement is always the same bytes.
import recordSchema from '../load/record.schema.json' with { type: 'json' };
import { validatorOf } from '../config/validators.ts';
import { checkRepositoryUrl } from '../model/repository-url.ts';
import type { Measurement, Revision } from '../model/stored-value.ts';

const validateRecord = validatorOf('record', recordSchema);

const sortedObject = <T>(o: Record<string, T>): Record<string, T> =>
  Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]!]),
  );

/** The NDJSON line (with its newline) of one scan, or throws saying what the schema refused. */
export function scanRecordLine(repositoryUrl: string, timestamp: number, m: Measurement): string {
  const record = {
    kind: 'scan',
    repositoryUrl,
    timestamp,
    ...(m.revision
      ? {
          revision: {
            commit: m.revision.commit,
            committedAt: m.revision.committedAt,
            ...(m.revision.branch !== undefined ? { branch: m.revision.branch } : {}),
          },
        }
      : {}),
    values: sortedObject(m.values),
    evidence: sortedObject(m.evidence),
    ...(m.failed && m.failed.length > 0 ? { failed: [...new Set(m.failed)].sort() } : {}),
  };
  if (!validateRecord(record)) {
    const e = validateRecord.errors?.[0];
    throw new Error(
      `the record of ${repositoryUrl} at ${timestamp} does not match record.schema.json (${e?.instancePath || '/'} ${e?.message ?? ''}); nothing written for it`,
    );
  }
  return `${JSON.stringify(record)}\n`;
}

/** What the store holds of one repository at one scan time. */
export interface StoredScan {
  /** The rule ids the values of every record at this time hold. */
  rules: ReadonlySet<string>;
  /**
   * The record a build uses at this time (the one with the fewest failed rules, the first in
   * the file of those: the loader's choice): what a completing record starts from.
   */
  used: Measurement;
}

/** The rule ids a parsed record lists as failed (anything else in `failed` is not ours to judge). */
function failedRules(failed: unknown): string[] {
  return Array.isArray(failed) ? failed.filter((r): r is string => typeof r === 'string') : [];
}

/**
 * The scan records of `repositoryUrl` in a store file's text: each time with the rule ids its
 * records' `values` hold and the record a build uses there (other lines are not ours to judge).
 */
export function scanTimesIn(text: string, repositoryUrl: string): Map<number, StoredScan> {
  const times = new Map<number, { rules: Set<string>; used: Measurement }>();
  for (const line of text.split('\n')) {
    if (!line.includes('"timestamp"')) continue;
    let r: {
      kind?: unknown;
      repositoryUrl?: unknown;
      timestamp?: unknown;
      values?: unknown;
      evidence?: unknown;
      revision?: unknown;
      failed?: unknown;
    };
    try {
      r = JSON.parse(line) as typeof r;
    } catch {
      continue;
    }
    if (
      r === null ||
      typeof r !== 'object' ||
      r.kind === 'grant' ||
      typeof r.timestamp !== 'number'
    )
      continue;
    const url = checkRepositoryUrl(r.repositoryUrl);
    if (!url.ok || url.url !== repositoryUrl) continue;
    const values = isObject(r.values) ? (r.values as Measurement['values']) : {};
    const record: Measurement = {
      values,
      evidence: isObject(r.evidence) ? (r.evidence as Measurement['evidence']) : {},
      ...(isObject(r.revision) ? { revision: r.revision as unknown as Revision } : {}),
      failed: failedRules(r.failed),
    };
    const held = times.get(r.timestamp);
    if (!held) times.set(r.timestamp, { rules: new Set(Object.keys(values)), used: record });
    else {
      for (const id of Object.keys(values)) held.rules.add(id);
      if (record.failed!.length < held.used.failed!.length) held.used = record;
    }
  }
  return times;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The store file of a repository: `<host>/<path>.ndjson`, each segment reduced to characters
 * every file system and S3 key takes. URLs that reduce alike share a file, which the loader reads
 * by each record's own repositoryUrl.
 */
export function storeFileName(host: string, path: string): string {
  const segment = (s: string) => {
    const safe = s
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\./, '_')
      .slice(0, 120);
    return safe === '' ? '_' : safe;
  };
  return `${[host, ...path.split('/').filter((s) => s !== '')].map(segment).join('/')}.ndjson`;
}
