// What both report shapes share: the SARIF envelope, public badge URLs and stable JSON bytes.
import { API_PREFIX } from '../model/layout.ts';

const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';

export function sarifEnvelope(run: object): object {
  return { $schema: SARIF_SCHEMA_URI, version: '2.1.0', runs: [run] };
}

/** The public, dynamic badge address a report points to. */
export function publicBadgeUrl(baseUrl: string, encoded: string, badgeId: string, timestamp: number): string {
  return `${baseUrl}/${API_PREFIX}${encoded}/badges/${badgeId}.svg?timestamp=${timestamp}`;
}

/** Objects are built in a fixed key order, so stringify alone gives deterministic bytes. */
export function jsonBytes(value: unknown): string {
  return JSON.stringify(value);
}
