// api/v1/openapi.json: the readable source (templates/openapi.yaml) made this deployment's:
// its baseUrl as the server, its badge ids and rendered styles as enums, and only the paths
// of the files its config writes. Pure: the template is read once at import.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { SiteConfig } from '../config/types.ts';

export const OPENAPI_KEY = 'api/v1/openapi.json';
const TEMPLATE_TEXT = readFileSync(fileURLToPath(new URL('../../templates/openapi.yaml', import.meta.url)), 'utf8');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The description as source, before a deployment's values are filled in. */
export function openapiTemplate(): Json {
  return parse(TEMPLATE_TEXT) as Json;
}

export function openapiDocument(site: Pick<SiteConfig, 'baseUrl' | 'styles' | 'shieldsEndpoint' | 'codeScanning'>, badgeIds: readonly string[]): Json {
  const doc = openapiTemplate();
  doc.servers = [{ url: site.baseUrl }];
  if (badgeIds.length > 0) doc.components.schemas.BadgeId.enum = [...badgeIds];
  doc.components.schemas.BadgeStyle.enum = [...site.styles];
  const repo = '/api/v1/repositories/{repositoryUrl}';
  if (!site.shieldsEndpoint) delete doc.paths[`${repo}/badges/{badgeId}.json`];
  if (!site.codeScanning) delete doc.paths[`${repo}/code-scanning.sarif`];
  return doc;
}
