// A forge API stand-in on loopback whose every answer is checked against the forge's official
// API description (OpenAPI 3 for GitHub; for GitLab and Gitea/Forgejo, Swagger 2 written from
// their API documentation): an answer off the description is recorded as a violation (the
// test then fails) and sent as 500, so the client never sees it as valid either.
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { closeServer, listenLocal } from '../listen.ts';

const require = createRequire(import.meta.url);

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Answer this late (the slow-server case). */
  delayMs?: number;
  /**
   * Send no Date header (RFC 9110 section 6.6.1: an origin server without a reliable clock
   * sends none; a proxy before the forge may drop it). Node's server adds one otherwise.
   */
  noDate?: boolean;
  /**
   * Writes the answer itself, unchecked: what no forge documents but a hostile or broken
   * server sends (a redirect elsewhere, a body cut off, stalled, endless or not JSON).
   */
  raw?: (res: ServerResponse) => void;
}

export interface RequestSeen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The request's body (a POST's), as text. */
  body?: string;
}

export interface Route {
  method?: string;
  /** The description's path template: /repos/{owner}/{repo}/issues. */
  template: string;
  /** The template whose answer this route gives, when its own path is not in the description. */
  answersAs?: string;
  reply(params: Record<string, string>, request: RequestSeen, base: string): Reply;
}

/** Replaces the answer to a request (rate limits, errors, slowness); undefined: the normal one. */
export type Override = (
  template: string,
  request: RequestSeen,
  count: number,
  normal: () => Reply,
) => Reply | undefined;

/** Makes routes whose answers `override` may replace, told how often its template was asked. */
export function routeMaker(
  override?: Override,
): (template: string, reply: Route['reply']) => Route {
  const counts = new Map<string, number>();
  return (template, reply) => ({
    template,
    reply(params, request, base) {
      const n = (counts.get(template) ?? 0) + 1;
      counts.set(template, n);
      const normal = () => reply(params, request, base);
      return override?.(template, request, n, normal) ?? normal();
    },
  });
}

/** Checks one answer: the list of what is wrong with it (empty when it matches the description). */
export type SpecCheck = (
  method: string,
  template: string,
  status: number,
  body: unknown,
) => string[];

type Json = Record<string, unknown>;

function pointer(doc: Json, ref: string): Json {
  return ref
    .slice(2)
    .split('/')
    .reduce<Json>((o, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, doc);
}

/**
 * A SpecCheck for an OpenAPI 3 or Swagger 2 document. A status the operation does not list is
 * checked against `fallback` (a pointer to the forge's documented error body, as rate limits
 * and 401s are documented once for the whole API, not per operation).
 */
export function specCheck(doc: Json, fallback?: string): SpecCheck {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  for (const f of [
    'int32',
    'int64',
    'float',
    'double',
    'byte',
    'binary',
    'password',
    'datetime',
    'uint64',
  ])
    ajv.addFormat(f, true);
  ajv.addSchema('openapi' in doc ? jsonSchemaOf(doc) : doc, 'spec');
  const compiled = new Map<string, ValidateFunction>();
  const swagger2 = 'swagger' in doc;
  const schemaRef = (method: string, template: string, status: number): string | undefined => {
    const op = (doc.paths as Json)[template]?.[method.toLowerCase() as never] as Json | undefined;
    if (!op) throw new Error(`the description has no ${method} ${template}`);
    let r = (op.responses as Json)[String(status)] as Json | undefined;
    let base = `#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}`;
    if (!r) return fallback;
    if (typeof r.$ref === 'string') {
      base = r.$ref;
      r = pointer(doc, r.$ref);
    }
    if (swagger2) return r.schema ? `${base}/schema` : undefined;
    const content = r.content as Json | undefined;
    return content?.['application/json'] ? `${base}/content/application~1json/schema` : undefined;
  };
  return (method, template, status, body) => {
    const ref = schemaRef(method, template, status);
    if (ref === undefined)
      return body === undefined
        ? []
        : [`${method} ${template} ${status} is documented without a body`];
    let validate = compiled.get(ref);
    if (!validate) compiled.set(ref, (validate = ajv.compile({ $ref: `spec${ref}` })));
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${method} ${template} ${status}: ${e.instancePath} ${e.message}`);
  };
}

export function loadJson(path: string): Json {
  return require(path) as Json;
}

/**
 * OpenAPI 3.0's `nullable: true` as JSON Schema (ajv accepts it only beside `type`): a typed
 * schema gains the type null, any other (a $ref, allOf, …) becomes "it or null".
 */
function jsonSchemaOf(doc: Json): Json {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) if (k !== 'nullable') out[k] = walk(v);
    if ((node as Json).nullable !== true) return out;
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
      return out;
    }
    return { anyOf: [out, { type: 'null' }] };
  };
  return walk(doc) as Json;
}

function matcher(template: string): RegExp {
  return new RegExp(
    `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)')}$`,
  );
}

export interface ForgeServer {
  url: string;
  violations: string[];
  requests: RequestSeen[];
  /** TCP connections accepted, whatever was sent on them. */
  connections(): number;
  /** Requests answered 304 Not Modified (an If-None-Match that matched). */
  notModified(): number;
  close(): Promise<void>;
}

/**
 * How a forge validates GET answers: 'honoured' sends a weak ETag with every 200 and answers
 * 304 Not Modified to an If-None-Match naming it; 'sent' sends the ETag but answers in full
 * whatever If-None-Match says; 'none' sends no ETag.
 */
export type EtagBehaviour = 'honoured' | 'sent' | 'none';

/** A weak ETag of a JSON body, as a forge that hashes its answer makes one. */
function etagOf(body: string): string {
  return `W/"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
}

/** Whether an If-None-Match value names `etag` (weak comparison, RFC 9110 section 13.1.2). */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || opaque(t) === opaque(etag));
}

/** Serves `routes` under `prefix` (the API's base path), checking every answer with `check`. */
export async function startForgeServer(
  routes: Route[],
  check: SpecCheck,
  prefix = '',
  etags: EtagBehaviour = 'none',
): Promise<ForgeServer> {
  let notModified = 0;
  const violations: string[] = [];
  const requests: RequestSeen[] = [];
  const compiled = routes.map((r) => ({
    ...r,
    re: matcher(prefix + r.template),
    names: [...r.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
  }));
  let base = '';
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const seen: RequestSeen = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      ...(text ? { body: text } : {}),
    };
    requests.push(seen);
    const route = compiled.find(
      (r) => (r.method ?? 'GET') === seen.method && r.re.test(url.pathname),
    );
    if (!route) {
      violations.push(`no route for ${seen.method} ${url.pathname}`);
      res.writeHead(501).end();
      return;
    }
    const values = route.re.exec(url.pathname)!.slice(1);
    const params = Object.fromEntries(
      route.names.map((n, i) => [n, decodeURIComponent(values[i]!)]),
    );
    let reply: Reply;
    try {
      reply = route.reply(params, seen, base);
    } catch (error) {
      violations.push(
        `the stand-in failed on ${seen.method} ${url.pathname}: ${(error as Error).message}`,
      );
      res.writeHead(500).end();
      return;
    }
    if (reply.raw) {
      reply.raw(res);
      return;
    }
    const problems = check(
      seen.method,
      route.answersAs ?? route.template,
      reply.status,
      reply.body,
    );
    const send = () => {
      if (problems.length) {
        violations.push(...problems);
        res.writeHead(500).end();
        return;
      }
      if (reply.noDate) res.sendDate = false;
      const body = reply.body === undefined ? '' : JSON.stringify(reply.body);
      const validated =
        etags !== 'none' &&
        seen.method === 'GET' &&
        reply.status === 200 &&
        reply.body !== undefined;
      const etag = validated ? etagOf(body) : undefined;
      if (etag && etags === 'honoured' && noneMatch(req.headers['if-none-match'], etag)) {
        notModified++;
        // A 304 carries the validator and what a 200 would have had of the caching headers
        // (RFC 9110 section 15.4.5), and the forge's rate-limit headers; not the answer's Link.
        const kept = Object.entries(reply.headers ?? {}).filter(([k]) =>
          /^(?:x-ratelimit-|ratelimit-|cache-control|vary|date)/i.test(k),
        );
        res.writeHead(304, { ...Object.fromEntries(kept), etag }).end();
        return;
      }
      res
        .writeHead(reply.status, {
          'content-type': 'application/json; charset=utf-8',
          ...reply.headers,
          ...(etag ? { etag } : {}),
        })
        .end(body);
    };
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  });
  let connections = 0;
  server.on('connection', () => connections++);
  const port = await listenLocal(server);
  base = `http://127.0.0.1:${port}`;
  return {
    url: base + prefix,
    violations,
    requests,
    connections: () => connections,
    notModified: () => notModified,
    close: () => {
      server.closeAllConnections();
      return closeServer(server);
    },
  };
}

/** One page of `items` as the forges page them (`page`, `per_page` or `limit`), with a Link header. */
export function page<T>(
  items: readonly T[],
  request: RequestSeen,
  base: string,
  sizeParam = 'per_page',
  defaultSize = 30,
): { body: T[]; headers: Record<string, string> } {
  const size = Number(request.query.get(sizeParam) ?? defaultSize);
  const n = Number(request.query.get('page') ?? 1);
  const last = Math.max(1, Math.ceil(items.length / size));
  const at = (p: number) => {
    const q = new URLSearchParams(request.query);
    q.set('page', String(p));
    return `<${base}${request.path}?${q}>`;
  };
  const links: string[] = [];
  if (n < last) links.push(`${at(n + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  if (n > 1) links.push(`${at(1)}; rel="first"`, `${at(n - 1)}; rel="prev"`);
  return {
    body: items.slice((n - 1) * size, n * size),
    headers: links.length ? { link: links.join(', ') } : {},
  };
}
