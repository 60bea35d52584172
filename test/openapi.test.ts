// api/v1/openapi.json: the source and a deployment's document pass `redocly lint` (recommended
// rules) with no error and no warning, offline; the build fills in server, ids and styles.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openapiTemplate } from '../src/config/templates.ts';
import { openapiDocument } from '../src/render/openapi.ts';
import { ROOT, spawnChecked } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

function redoclyLint(file: string): { code: number; output: string } {
  const r = spawnChecked(
    join(ROOT, 'node_modules/.bin/redocly'),
    ['lint', file, '--format', 'stylish'],
    {
      timeout: 120_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  return { code: r.status ?? -1, output: `${r.stdout}${r.stderr}` };
}

const site = {
  baseUrl: 'https://badges.example',
  styles: ['flat', 'social'] as const,
  shieldsEndpoint: true,
  codeScanning: false,
};

describe('OpenAPI description', () => {
  it('the source passes redocly lint with no error or warning', { timeout: 120_000 }, () => {
    const r = redoclyLint(join(ROOT, 'templates/openapi.yaml'));
    expect(r.output).toMatch(/Your API description is valid/);
    expect(r.output).not.toMatch(/^\s*\d+:\d+\s+(error|warning)\b/m);
    expect(r.code).toBe(0);
  });

  it("a deployment's document passes too, with its server, badge ids, styles and files", {
    timeout: 120_000,
  }, () => {
    const doc = openapiDocument(
      { ...site, styles: [...site.styles] },
      ['MAINTENANCE', 'SECURITY'],
      openapiTemplate(),
    );
    expect(doc.servers).toEqual([{ url: 'https://badges.example' }]);
    expect(doc.components.schemas.BadgeId.enum).toEqual(['MAINTENANCE', 'SECURITY']);
    expect(doc.components.schemas.BadgeStyle.enum).toEqual(['flat', 'social']);
    expect(Object.keys(doc.paths).some((p) => p.endsWith('code-scanning.sarif'))).toBe(false);
    expect(Object.keys(doc.paths).some((p) => p.endsWith('{badgeId}.json'))).toBe(true);
    const file = join(tempDir('openapi-'), 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = redoclyLint(file);
    expect(r.code, r.output).toBe(0);
  });

  it('lint can fail: a broken reference is an error', { timeout: 120_000 }, () => {
    const doc = openapiDocument({ ...site, styles: ['flat'] }, ['X'], openapiTemplate());
    doc.paths['/api/v1/repositories/{repositoryUrl}/sarif'].get.responses['200'].content[
      'application/json'
    ].schema = {
      $ref: '#/components/schemas/Missing',
    };
    const file = join(tempDir('openapi-bad-'), 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    expect(redoclyLint(file).code).not.toBe(0);
  });
});
