// api/v1/openapi.json: the readable source (templates/openapi.yaml, parsed by
// config/templates.ts) made this deployment's: its baseUrl as the server, its badge ids and
// rendered styles as enums, and only the paths of the files its config writes.
import type { Settings } from '../config/types.ts';

export const OPENAPI_KEY = 'api/v1/openapi.json';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `template` is left as it is: the document is a copy. */
export function openapiDocument(
  settings: Pick<Settings, 'baseUrl' | 'styles' | 'shieldsEndpoint' | 'codeScanning'>,
  badgeIds: readonly string[],
  template: Json,
): Json {
  const doc = structuredClone(template);
  doc.servers = [{ url: settings.baseUrl }];
  if (badgeIds.length > 0) doc.components.schemas.BadgeId.enum = [...badgeIds];
  doc.components.schemas.BadgeStyle.enum = [...settings.styles];
  const repo = '/api/v1/repositories/{repositoryUrl}';
  if (!settings.shieldsEndpoint) delete doc.paths[`${repo}/badges/{badgeId}.json`];
  if (!settings.codeScanning) delete doc.paths[`${repo}/code-scanning.sarif`];
  return doc;
}
