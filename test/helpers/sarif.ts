// Validates reports against the official OASIS SARIF 2.1.0 schema (JSON Schema draft-04),
// kept in the repository: test/fixtures/sarif/ (NOTICE.md there says where it comes from).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

const schemaPath = fileURLToPath(
  new URL('../fixtures/sarif/sarif-schema-2.1.0.json', import.meta.url),
);
const ajv = new Ajv04({ allErrors: true, strict: false });
// The schema's uri and date-time formats are checked too, not ignored.
addFormats.default(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));

export function sarifErrors(report: unknown): string[] {
  if (validate(report)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

/**
 * Validates every SARIF report (every file named `sarif`) under a built site directory and
 * returns how many there were; a directory without reports fails, so a wrong path cannot pass.
 */
export function expectEverySarifValid(dir: string): number {
  const reports = readdirSync(dir, { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && e.name === 'sarif',
  );
  expect(reports.length, `SARIF reports under ${dir}`).toBeGreaterThan(0);
  for (const e of reports) {
    const file = join(e.parentPath, e.name);
    expect(sarifErrors(JSON.parse(readFileSync(file, 'utf8'))), file).toEqual([]);
  }
  return reports.length;
}
