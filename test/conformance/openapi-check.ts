// Every conformance answer checked against the deployment's OpenAPI description: the status is
// one the operation documents, the content type one that response documents, the headers it
// requires are there, and a JSON body validates against the response's schema (ajv, JSON
// Schema 2020-12, which OpenAPI 3.1 schemas are).
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openapiTemplate } from '../../src/config/templates.ts';
import { openapiDocument } from '../../src/render/openapi.ts';
import type { ConformanceAnswer, ConformanceRequest } from './cases.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface OpenapiChecker {
  /** What about this answer the description does not allow; empty when it conforms. */
  check(req: ConformanceRequest, answer: ConformanceAnswer): string[];
}

export function openapiChecker(
  badgeIds: readonly string[],
  site: { baseUrl: string; styles: string[]; shieldsEndpoint: boolean; codeScanning: boolean },
): OpenapiChecker {
  const doc = openapiDocument(
    site as Parameters<typeof openapiDocument>[0],
    badgeIds,
    openapiTemplate(),
  );
  // A CommonJS module: under Node's ESM loader its class is the default export's `default`.
  const Ajv = (Ajv2020 as unknown as { default?: typeof Ajv2020 }).default ?? Ajv2020;
  const ajv = new Ajv({ strict: false, allErrors: true });
  // The description's formats (the report's `$schema` is a uri) are checked, not ignored.
  addFormats.default(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi' });
  const deref = (o: Json): Json =>
    o.$ref
      ? deref(
          o.$ref
            .slice(2)
            .split('/')
            .reduce((x: Json, k: string) => x[k.replace(/~1/g, '/')], doc),
        )
      : o;
  // Path templates as regexes; the literal endings decide (the repository segment may hold slashes when decoded).
  const templates = Object.keys(doc.paths).map((p) => ({
    p,
    re: new RegExp(
      `^${p
        .replace(/[.]/g, '\\.')
        .replace('{repositoryUrl}', '.+')
        .replace(/\{[^}]+\}/g, '[^/]+')}$`,
    ),
  }));
  return {
    check(req, a) {
      const problems: string[] = [];
      const path = req.url.split('?')[0]!.replace(/\/at\/\d+(\/expired)?\//, '/');
      // The human site (outside /api/) is no part of the API description.
      if (!path.startsWith('/api/')) return problems;
      const tpl = templates
        .filter((t) => t.re.test(path))
        .sort((x, y) => y.p.length - x.p.length)[0];
      if (!tpl) {
        if (a.status !== 404 && a.status !== 400 && a.status !== 405)
          problems.push(`no documented path for ${path}, yet status ${a.status}`);
        return problems;
      }
      const item = doc.paths[tpl.p] as Json;
      const op = item[req.method.toLowerCase()] ?? item.get;
      const response = op.responses[String(a.status)];
      if (!response) return [`${tpl.p} ${req.method}: status ${a.status} is not documented`];
      const r = deref(response);
      for (const [name, h] of Object.entries((r.headers ?? {}) as Json)) {
        const header = deref(h as Json);
        const value = a.headers[name.toLowerCase()];
        if (value === undefined) {
          if (header.required) problems.push(`required header ${name} missing`);
          continue;
        }
        if (header.schema && !ajv.validate(header.schema, value))
          problems.push(`header ${name}: ${value} ${ajv.errorsText()}`);
      }
      if (a.status === 302 || a.status === 304 || req.method === 'HEAD') return problems;
      const type = (a.headers['content-type'] ?? '').split(';')[0]!;
      const media = r.content?.[type];
      if (!media) return [...problems, `content type ${type} not documented for ${a.status}`];
      if (
        type.endsWith('json') &&
        !ajv.validate(withAbsoluteRefs(media.schema), JSON.parse(a.body))
      )
        problems.push(`body: ${ajv.errorsText()}`);
      return problems;
    },
  };

  /** A response schema whose references point into the registered document. */
  function withAbsoluteRefs(s: Json): Json {
    return JSON.parse(JSON.stringify(s).replace(/"#\/components\//g, '"openapi#/components/'));
  }
}
