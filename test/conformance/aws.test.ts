// The AWS edge as CloudFront runs it: the CloudFront Function (viewer-request) in a V8
// context without Node globals, fed CloudFront Function event objects; then the Lambda@Edge
// handler on origin-request, the S3 origin (a real S3 protocol server, s3rver), and the
// handler again on origin-response. The conformance table must hold end to end.
import { request as httpRequest } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { createContext, runInContext, type Context } from 'node:vm';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { parse } from 'acorn';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleCloudFrontFunction } from '../../scripts/build-aws.ts';
import {
  createHandler,
  type EdgeRequest,
  type EdgeResponse,
} from '../../src/resolver/adapter/lambda-edge/index.ts';
import { startS3Peer, type S3Peer } from '../../scripts/lib/s3-peer.ts';
import { hostilePath, hostileQuery, method } from '../helpers/hostile.ts';
import { conformanceFailures, type ConformanceAnswer, type ConformanceRequest } from './cases.ts';
import { conformanceSites, type SiteName } from './fixture.ts';
import { LOCATION } from './traversal.ts';

const BUCKET = 'edge';
// One bucket, one origin path per site (two distributions in production).
const ORIGIN_PATHS: Record<SiteName, string> = { A: '/site', B: '/site-b' };
const ORIGIN_PATH = ORIGIN_PATHS.A;
const sites = await conformanceSites();
const cloudFrontFunction = await bundleCloudFrontFunction();

let peer: S3Peer;
let s3: S3Client;
let sandbox: Context;
const lambda = createHandler({ client: () => s3 });

beforeAll(async () => {
  peer = await startS3Peer([BUCKET]);
  s3 = peer.client();
  for (const site of ['A', 'B'] as const) {
    const dir = sites[site];
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const path = join(e.parentPath, e.name);
      await put(relative(dir, path).split(sep).join('/'), readFileSync(path), ORIGIN_PATHS[site]);
    }
  }
  sandbox = createContext({});
  runInContext(cloudFrontFunction, sandbox);
});

afterAll(async () => {
  s3?.destroy();
  await peer?.stop();
});

/** Puts a key under the origin path with the metadata the publisher sets. */
async function put(key: string, body: Buffer | string, originPath = ORIGIN_PATH): Promise<void> {
  await s3.send(
    new PutObjectCommand({
      Bucket: BUCKET,
      Key: `${originPath.slice(1)}/${key}`,
      Body: body,
      ContentType: key.endsWith('.svg') ? 'image/svg+xml' : 'application/json',
      // As the build stores them (test/s3-publish.test.ts): immutable only for content-hashed assets.
      CacheControl: /^assets\/[^/]+\.[0-9a-f]{8,64}\.(css|js)$/.test(key)
        ? 'public, max-age=31536000, immutable'
        : 'public, max-age=300',
    }),
  );
}

type FunctionValue = { value: string; multiValue?: { value: string }[] };

/** What CloudFront hands a viewer-request function: the URI as sent, the query parsed. */
function viewerEvent(req: ConformanceRequest) {
  const [uri, query = ''] = req.url.split(/\?(.*)/s) as [string, string?];
  const querystring: Record<string, FunctionValue> = {};
  for (const part of query ? query.split('&') : []) {
    const eq = part.indexOf('=');
    const [name, value] = eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
    const seen = querystring[name];
    if (seen) seen.multiValue = [...(seen.multiValue ?? [{ value: seen.value }]), { value }];
    else querystring[name] = { value };
  }
  const headers: Record<string, { value: string }> = { host: { value: 'badges.example' } };
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = { value: v };
  return {
    version: '1.0',
    context: { eventType: 'viewer-request' },
    viewer: { ip: '127.0.0.1' },
    request: { method: req.method, uri, querystring, headers, cookies: {} },
  };
}

/** Runs the function inside the sandbox; only JSON crosses the boundary, as at the edge. */
function runFunction(event: unknown): {
  statusCode?: number;
  headers: Record<string, { value: string }>;
  body?: { data: string } | string;
  uri?: string;
  method?: string;
  querystring?: Record<string, FunctionValue>;
} {
  sandbox.__event = JSON.stringify(event);
  return JSON.parse(
    runInContext('JSON.stringify(handler(JSON.parse(__event)))', sandbox) as string,
  );
}

const lambdaHeaders = (h: Record<string, string | string[] | undefined>) =>
  Object.fromEntries(
    Object.entries(h).flatMap(([k, v]) =>
      v === undefined ? [] : [[k.toLowerCase(), [{ key: k, value: String(v) }]]],
    ),
  );

function fromLambda(r: EdgeResponse, originBody = ''): ConformanceAnswer {
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, v[0]!.value]));
  const body =
    r.body === undefined
      ? originBody
      : r.bodyEncoding === 'base64'
        ? Buffer.from(r.body, 'base64').toString('utf8')
        : r.body;
  return { status: Number(r.status), headers, body };
}

function fetchOrigin(
  req: EdgeRequest,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((ok, fail) => {
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, v[0]!.value]),
    );
    delete headers.host;
    httpRequest(
      {
        host: '127.0.0.1',
        port: peer.port,
        method: req.method,
        path: `/${BUCKET}${req.origin!.s3!.path}${req.uri}`,
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          ok({
            status: res.statusCode!,
            headers: res.headers as Record<string, string>,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    )
      .on('error', fail)
      .end();
  });
}

/** One request through the whole edge: function → origin-request → S3 → origin-response. */
async function throughTheEdge(req: ConformanceRequest): Promise<ConformanceAnswer> {
  const viewer = runFunction(viewerEvent(req));
  if (viewer.statusCode !== undefined) {
    const headers = Object.fromEntries(
      Object.entries(viewer.headers).map(([k, v]) => [k, v.value]),
    );
    const body = typeof viewer.body === 'string' ? viewer.body : (viewer.body?.data ?? '');
    return { status: viewer.statusCode, headers, body };
  }
  const querystring = Object.entries(viewer.querystring ?? {})
    .flatMap(([k, v]) => (v.multiValue ?? [v]).map((x) => `${k}=${x.value}`))
    .join('&');
  const originRequest: EdgeRequest = {
    method: viewer.method!,
    uri: viewer.uri!,
    querystring,
    headers: lambdaHeaders(
      Object.fromEntries(Object.entries(viewer.headers).map(([k, v]) => [k, v.value])),
    ),
    origin: {
      s3: {
        domainName: `${BUCKET}.s3.us-east-1.amazonaws.com`,
        path: ORIGIN_PATHS[req.site ?? 'A'],
        region: 'us-east-1',
      },
    },
  };
  const cf = (eventType: string, response?: EdgeResponse) => ({
    Records: [
      { cf: { config: { eventType }, request: originRequest, ...(response ? { response } : {}) } },
    ],
  });
  const afterRequest = await lambda(cf('origin-request'));
  if ('status' in afterRequest) return fromLambda(afterRequest);
  const origin = await fetchOrigin(afterRequest);
  const afterResponse = await lambda(
    cf('origin-response', {
      status: String(origin.status),
      headers: lambdaHeaders(origin.headers),
    }),
  );
  return fromLambda(afterResponse as EdgeResponse, origin.body);
}

/** Node types of syntax CloudFront Functions do not run. */
const UNSUPPORTED = new Set([
  'ForOfStatement',
  'ClassDeclaration',
  'ClassExpression',
  'ObjectPattern',
  'ArrayPattern',
  'AssignmentPattern',
  'SpreadElement',
  'ChainExpression',
  'ImportExpression',
  'TaggedTemplateExpression',
  'YieldExpression',
]);

function unsupportedSyntax(code: string): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const n = node as {
      type?: string;
      operator?: string;
      shorthand?: boolean;
      method?: boolean;
      computed?: boolean;
      generator?: boolean;
      regex?: { flags: string };
    };
    if (n.type && UNSUPPORTED.has(n.type)) found.push(n.type);
    if (n.type === 'LogicalExpression' && n.operator === '??') found.push('??');
    if (n.type === 'Property' && (n.shorthand || n.method)) found.push('shorthand property');
    if (n.generator) found.push('generator');
    if (n.regex && /[suyd]/.test(n.regex.flags)) found.push(`regex flag ${n.regex.flags}`);
    for (const v of Object.values(n)) if (v && typeof v === 'object') visit(v);
  };
  visit(parse(code, { ecmaVersion: 2022, sourceType: 'script' }));
  return found;
}

describe('the AWS edge adapters', () => {
  it('the CloudFront Function stays within 8 KB (headroom under the 10 KB limit) and within the syntax cloudfront-js-2.0 runs', () => {
    expect(Buffer.byteLength(cloudFrontFunction)).toBeLessThanOrEqual(8 * 1024);
    expect(unsupportedSyntax(cloudFrontFunction)).toEqual([]);
    // The checker is not blind: it sees what esbuild would never emit here.
    expect(
      unsupportedSyntax('for (const a of b) {}; const {x} = y; f(...z); a?.b ?? c; /./s').sort(),
    ).toEqual([
      '??',
      'ChainExpression',
      'ForOfStatement',
      'ObjectPattern',
      'SpreadElement',
      'regex flag s',
      'shorthand property',
    ]);
  });

  it('the sandbox has no Node or Web globals for the function to lean on', () => {
    expect(
      runInContext(
        '[typeof require, typeof process, typeof Buffer, typeof TextDecoder, typeof URL, typeof fetch, typeof handler].join()',
        sandbox,
      ),
    ).toBe('undefined,undefined,undefined,undefined,undefined,undefined,function');
  });

  it('answers the conformance table end to end through CloudFront Function, Lambda@Edge and S3, Shape A and Shape B sites', async () => {
    expect(await conformanceFailures(throughTheEdge, { headLength: 'when-present' })).toEqual([]);
  });

  it('answers the functions generate carry no Content-Length (CloudFront frames them, and refuses a function that sets it)', async () => {
    const base = '/api/v1/repositories/https%3A%2F%2Fgithub.com%2Facme%2Fwidget';
    for (const url of [
      '/api/v1/repositories/nope/sarif',
      `${base}/badges/POPULARITY.svg`,
      `${base}/sarif?timestamp=1`,
      `${base}/sarif?timestamp=1762000000`,
    ]) {
      for (const method of ['GET', 'HEAD']) {
        const answer = await throughTheEdge({ method, url });
        expect(answer.status, `${method} ${url}`).not.toBe(200);
        expect(answer.headers['content-length'], `${method} ${url}`).toBeUndefined();
      }
    }
  });

  it('rewrites latest requests to the escaped key and passes only ?timestamp= on', () => {
    const latest = runFunction(
      viewerEvent({
        method: 'GET',
        url: '/api/v1/repositories/https%3a%2f%2fgithub.com%2Facme%2Fwidget/badges/MAINTENANCE.svg?utm_source=x',
      }),
    );
    expect(latest.uri).toBe(
      '/api/v1/repositories/https%253A%252F%252Fgithub.com%252Facme%252Fwidget/badges/MAINTENANCE.svg',
    );
    expect(latest.querystring).toEqual({});
    const at = runFunction(
      viewerEvent({
        method: 'GET',
        url: '/api/v1/repositories/https://github.com/acme/widget/sarif?timestamp=1762000000&utm_source=x',
      }),
    );
    expect(at.uri).toBe('/api/v1/repositories/https%3A%2F%2Fgithub.com%2Facme%2Fwidget/sarif');
    expect(at.querystring).toEqual({ timestamp: { value: '1762000000' } });
  });

  it('the key the function sends reaches the object in S3, for awkward repository URLs', async () => {
    const awkward = [
      'https://h.org/a space/x',
      'https://h.org/a+plus/x',
      'https://h.org/100%25/x',
      'https://h.org/γλώσσα/x',
      'https://git.example.org:8443/p/x',
      'https://gitlab.com/a/b/c/d/e/f/project',
    ];
    for (const url of awkward) {
      const enc = encodeURIComponent(url);
      await put(
        `api/v1/repositories/${enc}/badges/MAINTENANCE.svg`,
        `<svg xmlns="http://www.w3.org/2000/svg"><title>${url}</title></svg>`,
      );
      await put(
        `api/v1/repositories/${enc}/index.json`,
        JSON.stringify({ repositoryUrl: url, timestamps: [1763000000], badges: ['MAINTENANCE'] }),
      );
      const latest = await throughTheEdge({
        method: 'GET',
        url: `/api/v1/repositories/${enc}/badges/MAINTENANCE.svg`,
      });
      expect(latest.status, url).toBe(200);
      expect(latest.headers['content-type']).toBe('image/svg+xml');
      expect(latest.headers['cache-control']).toBe('public, max-age=300');
      const at = await throughTheEdge({
        method: 'GET',
        url: `/api/v1/repositories/${enc}/badges/MAINTENANCE.svg?timestamp=1763000001`,
      });
      expect(at.status, url).toBe(302);
      expect(at.headers.location).toBe(
        `/api/v1/repositories/${enc}/at/1763000000/badges/MAINTENANCE.svg`,
      );
    }
  });

  // Outside the API a path names the key it spells (src/resolver/pages.ts), never with an
  // empty, '..' or hidden segment (.badgepress/ stays private); inside, only openapi.json.
  const SITE_PAGE_KEY =
    /^\/(?:api\/v1\/openapi\.json|rules\/(?!\.\.?\/)[^/]+\/index\.html|(?!api\/)(?:[^/.][^/]*\/)*(?:[^/.][^/]*)?)$/;

  it('a path segment longer than any key segment is a 404 from the function, never a 5xx from the origin', async () => {
    for (const path of [
      `/${'x'.repeat(256)}`,
      `/docs/${'x'.repeat(300)}/`,
      `/rules/${'R'.repeat(256)}/`,
    ]) {
      const answer = await throughTheEdge({ method: 'GET', url: path });
      expect(answer.status, path).toBe(404);
    }
  });

  it('hostile requests: the function never throws, never sends a key outside the API or the site pages; the edge never answers 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(method, hostilePath, hostileQuery, async (m, path, query) => {
        const viewer = runFunction(
          viewerEvent({ method: m, url: query ? `${path}?${query}` : path }),
        );
        if (viewer.statusCode !== undefined) expect(viewer.statusCode).toBeLessThan(500);
        else if (!viewer.uri!.startsWith('/api/')) expect(viewer.uri).toMatch(SITE_PAGE_KEY);
        else
          expect(viewer.uri).toMatch(
            /^\/api\/v1\/repositories\/[^/]+\/(?!.*(?:^|\/)\.\.?(?:\/|$))[\x21-\x7e]+$/,
          );
        const answer = await throughTheEdge({ method: m, url: query ? `${path}?${query}` : path });
        expect(answer.status).toBeLessThan(500);
        if (answer.headers.location !== undefined)
          expect(answer.headers.location).toMatch(LOCATION);
      }),
      { numRuns: 1500 },
    );
  }, 120_000);

  it('a bucket that cannot be read answers 503, never a crash', async () => {
    const broken = createHandler({ client: () => peer.client('http://127.0.0.1:9') });
    const event = {
      Records: [
        {
          cf: {
            config: { eventType: 'origin-request' },
            request: {
              method: 'GET',
              uri: '/api/v1/repositories/https%3A%2F%2Fgithub.com%2Facme%2Fwidget/sarif',
              querystring: 'timestamp=1762000000',
              headers: {},
              origin: {
                s3: {
                  domainName: `${BUCKET}.s3.us-east-1.amazonaws.com`,
                  path: '',
                  region: 'us-east-1',
                },
              },
            },
          },
        },
      ],
    };
    const res = (await broken(event)) as EdgeResponse;
    expect(res.status).toBe('503');
    expect(res.headers['content-type']![0]!.value).toBe('application/problem+json');
  });
});
