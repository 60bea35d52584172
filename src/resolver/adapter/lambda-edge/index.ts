// Lambda@Edge handler (Node.js 22+) for the S3 origin behind CloudFront, attached to two
// events of the same behaviour, after the CloudFront Function (../cloudfront/) has
// canonicalised the request:
// - origin-request: a `?timestamp=T` request is resolved here by reading the repository's
//   index.json from the bucket, answering 302 (or 404); every other request goes on to S3.
// - origin-response: S3 answers 403/404 for a key it lacks; this turns that into the core's
//   answer ("never scanned", "unknown badge id", an SVG on image routes) instead of S3's XML.
// Lambda@Edge has no environment variables: the bucket, region and key prefix come from the
// origin in the event, so one bundle serves any distribution.
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  resolve,
  type KeyReader,
  type ResolverOptions,
  type ResolverResponse,
} from '../../core.ts';
import { STATUS_TEXT, unavailableAnswer, withAnswerHeaders } from '../../../model/http.ts';
import { EDGE_RESOLVE_PREFIX } from '../../../model/origin-path.ts';

type EdgeHeaders = Record<string, { key?: string; value: string }[]>;

export interface EdgeRequest {
  method: string;
  uri: string;
  querystring: string;
  headers: EdgeHeaders;
  origin?: { s3?: { domainName: string; path?: string; region?: string } };
}

export interface EdgeResponse {
  status: string;
  statusDescription?: string;
  headers: EdgeHeaders;
  body?: string;
  bodyEncoding?: 'text' | 'base64';
}

interface EdgeEvent {
  Records: {
    cf: { config: { eventType: string }; request: EdgeRequest; response?: EdgeResponse };
  }[];
}

interface EdgeOptions extends ResolverOptions {
  /** The S3 client for a region; by default one SDK client per region, reused across calls. */
  client?: (region: string) => S3Client;
}

export function createHandler(
  options: EdgeOptions = {},
): (event: EdgeEvent) => Promise<EdgeRequest | EdgeResponse> {
  const clients = new Map<string, S3Client>();
  const clientFor =
    options.client ??
    ((region: string) =>
      clients.get(region) ?? clients.set(region, new S3Client({ region })).get(region)!);

  return async (event) => {
    const cf = event.Records[0]!.cf;
    const request = cf.request;
    try {
      if (cf.config.eventType === 'origin-request') {
        if (request.uri.indexOf(EDGE_RESOLVE_PREFIX) === 0) {
          // A request the CloudFront Function left whole (a host beyond ASCII): resolved here.
          const [path, query = ''] = decodeURIComponent(
            request.uri.slice(EDGE_RESOLVE_PREFIX.length),
          ).split(/\?(.*)/s) as [string, string?];
          const header = (name: string) => request.headers[name]?.[0]?.value ?? null;
          return edgeResponse(
            await resolve(
              {
                method: request.method,
                path,
                query,
                accept: header('accept'),
                ifNoneMatch: header('if-none-match'),
              },
              reader(request, clientFor),
              options,
            ),
          );
        }
        if (!/(?:^|&)timestamp=/.test(request.querystring)) return request;
        const answer = await resolve(
          { method: request.method, path: request.uri, query: request.querystring },
          reader(request, clientFor),
          options,
        );
        return edgeResponse(answer);
      }
      if (cf.config.eventType === 'origin-response' && cf.response) {
        const status = Number(cf.response.status);
        // The bucket's own answers (its files) get the headers every answer carries.
        if (status !== 403 && status !== 404) return withEdgeAnswerHeaders(cf.response);
        // The URI holds the key with "%" escaped once (see cloudfront/): decode it to the
        // public path, which the core parses like any other.
        const accept = request.headers['accept']?.[0]?.value ?? null;
        const answer = await resolve(
          { method: request.method, path: decodeURIComponent(request.uri), query: '', accept },
          reader(request, clientFor),
          options,
        );
        return answer.status === 404 ? edgeResponse(answer) : withEdgeAnswerHeaders(cf.response);
      }
      return cf.response ?? request;
    } catch {
      // Only the bucket failing reaches here (or a URI this function did not canonicalise).
      return edgeResponse(unavailableAnswer());
    }
  };
}

export const handler = createHandler();

/** GetObject on the origin's bucket under its origin path. */
function reader(request: EdgeRequest, clientFor: (region: string) => S3Client): KeyReader {
  const s3 = request.origin?.s3;
  if (!s3) throw new Error('this handler belongs on a behaviour whose origin is an S3 bucket');
  const bucket =
    /^(.+?)\.s3(?:[.-][a-z0-9-]+)*\.amazonaws\.com(?:\.cn)?$/.exec(s3.domainName)?.[1] ??
    s3.domainName;
  const originPath = (s3.path ?? '').replace(/^\/+|\/+$/g, '');
  const keyPrefix = originPath ? `${originPath}/` : '';
  const client = clientFor(s3.region ?? 'us-east-1');
  return async (key) => {
    try {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyPrefix + key }));
      const body = await out.Body!.transformToByteArray();
      return out.ETag ? { body, etag: out.ETag } : { body };
    } catch (e) {
      // Without s3:ListBucket, S3 answers 403 for a missing key rather than 404.
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if ((e as Error).name === 'NoSuchKey' || status === 404 || status === 403) return null;
      throw e;
    }
  };
}

/** Header-Name spelled as CloudFront shows it beside the lower-case key. */
const headerKey = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

/** An origin's answer with the headers every answer carries (nosniff; the SVG policy). */
function withEdgeAnswerHeaders(response: EdgeResponse): EdgeResponse {
  const flat: Record<string, string> = {};
  for (const [name, values] of Object.entries(response.headers))
    flat[name] = values[0]?.value ?? '';
  for (const [name, value] of Object.entries(withAnswerHeaders(flat)))
    if (!response.headers[name]) response.headers[name] = [{ key: headerKey(name), value }];
  return response;
}

function edgeResponse(answer: ResolverResponse): EdgeResponse {
  const headers: EdgeHeaders = {};
  for (const [name, value] of Object.entries(withAnswerHeaders(answer.headers))) {
    // CloudFront frames the answer itself and refuses (502) a function that sets the length.
    if (name === 'content-length') continue;
    headers[name] = [{ key: headerKey(name), value }];
  }
  const response: EdgeResponse = {
    status: String(answer.status),
    statusDescription: STATUS_TEXT[answer.status] ?? 'OK',
    headers,
  };
  if (typeof answer.body === 'string') {
    response.body = answer.body;
    response.bodyEncoding = 'text';
  } else if (answer.body) {
    response.body = Buffer.from(answer.body).toString('base64');
    response.bodyEncoding = 'base64';
  }
  return response;
}
