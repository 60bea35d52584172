// Validates reports against the official OASIS SARIF 2.1.0 schema (JSON Schema draft-04),
// kept in ../shared beside the checkout.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';

const schemaPath = fileURLToPath(new URL('../../../shared/sarif-schema-2.1.0.json', import.meta.url));
const ajv = new Ajv04({ allErrors: true, strict: false });
// The schema's uri and date-time formats are checked too, not ignored.
addFormats.default(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));

export function sarifErrors(report: unknown): string[] {
  if (validate(report)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}
