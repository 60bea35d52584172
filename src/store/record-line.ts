// One scan record as a store line: the published record schema checked before it is written,
// keys in a fixed order so the same measurement is always the same bytes.
import recordSchema from '../load/record.schema.json' with { type: 'json' };
import { validatorOf } from '../config/validators.ts';
import { checkRepositoryUrl } from '../model/repository-url.ts';
import type { Measurement } from '../model/stored-value.ts';

const validateRecord = validatorOf('record', recordSchema);

const sortedObject = <T>(o: Record<string, T>): Record<string, T> =>
  Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]!]),
  );

/** The NDJSON line (with its newline) of one scan, or throws saying what the schema refused. */
export function scanRecordLine(repositoryUrl: string, timestamp: number, m: Measurement): string {
  const record = { kind: 'scan', repositoryUrl, timestamp, values: sortedObject(m.values), evidence: sortedObject(m.evidence) };
  if (!validateRecord(record)) {
    const e = validateRecord.errors?.[0];
    throw new Error(`the record of ${repositoryUrl} at ${timestamp} does not match record.schema.json (${e?.instancePath || '/'} ${e?.message ?? ''}); nothing written for it`);
  }
  return `${JSON.stringify(record)}\n`;
}

/**
 * The scan records of `repositoryUrl` in a store file's text: each one's time and the rule ids
 * its `values` hold (other lines are not ours to judge).
 */
export function scanTimesIn(text: string, repositoryUrl: string): Map<number, ReadonlySet<string>> {
  const times = new Map<number, Set<string>>();
  for (const line of text.split('\n')) {
    if (!line.includes('"timestamp"')) continue;
    let r: { kind?: unknown; repositoryUrl?: unknown; timestamp?: unknown; values?: unknown };
    try {
      r = JSON.parse(line) as typeof r;
    } catch {
      continue;
    }
    if (r === null || typeof r !== 'object' || r.kind === 'grant' || typeof r.timestamp !== 'number') continue;
    const url = checkRepositoryUrl(r.repositoryUrl);
    if (!url.ok || url.url !== repositoryUrl) continue;
    const held = times.get(r.timestamp) ?? new Set<string>();
    if (r.values !== null && typeof r.values === 'object') for (const id of Object.keys(r.values)) held.add(id);
    times.set(r.timestamp, held);
  }
  return times;
}

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
