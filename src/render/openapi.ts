// api/v1/openapi.json: the readable source (templates/openapi.yaml) made this deployment's:
// its baseUrl as the server, its badge ids and rendered styles as enums, and only the paths
// of the files its config writes. Pure: the template is parsed once, when first needed, and the
// compiled CLI reads it parsed already (parsing its 16 KB of YAML costs about 100 ms).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { SiteConfig } from '../config/types.ts';
import { precompiled } from '../io/precompiled.ts';

export const OPENAPI_KEY = 'api/v1/openapi.json';
const TEMPLATE_FILE = fileURLToPath(new URL('../../templates/openapi.yaml', import.meta.url));
/** The template parsed, as scripts/compile.mjs writes it beside the compiled module. */
const PARSED_FILE = './openapi-template.json';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let template: Json | undefined;

/** The description as source, before a deployment's values are filled in: a copy to change. */
export function openapiTemplate(): Json {
  template ??= precompiled<Json>(import.meta.url, PARSED_FILE) ?? parseTemplate();
  return structuredClone(template);
}

/** For scripts/compile.mjs: the parsed template, as the file the compiled module reads. */
export function openapiTemplateSource(): { path: string; text: string } {
  return { path: fileURLToPath(new URL(PARSED_FILE, import.meta.url)), text: JSON.stringify(parseTemplate()) };
}

function parseTemplate(): Json {
  return parse(readFileSync(TEMPLATE_FILE, 'utf8')) as Json;
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
