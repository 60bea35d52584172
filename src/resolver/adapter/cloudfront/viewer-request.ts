// CloudFront Function (runtime cloudfront-js-2.0, viewer-request event). No I/O is allowed
// there, so it only runs the core's `lookup`: a malformed request is answered at the edge; a
// file named directly is sent to the S3 origin under its key ("%" escaped as "%25", since S3
// decodes the path once); a `?timestamp=` request goes on in canonical form, with only that
// parameter, to the Lambda@Edge origin-request handler (../lambda-edge/), which reads
// index.json; a request naming a host beyond ASCII goes to that handler whole (see below).
// Canonical paths also make one cache entry of every spelling of a URL.
// Written in the subset CloudFront Functions run (no for…of, spread or destructuring): a test
// parses the bundle and runs it in a sandbox without Node globals.
import { lookup, publicPath, type ResolverResponse } from '../../core.ts';
import { EDGE_RESOLVE_PREFIX, originPath } from '../../../model/origin-path.ts';
import { STATUS_TEXT, withResolverAnswerHeaders } from '../../../model/http.ts';
import { setAsciiHost } from '../../../model/repository-url.ts';

// CloudFront Functions have no URL class to write a host beyond ASCII in punycode, and
// punycode itself would take a ninth of the function's size limit. Such requests (rare) are
// noted here and handed to Lambda@Edge whole, which resolves them with the URL class.
let beyondAscii = false;
setAsciiHost((host) => {
  beyondAscii = true;
  return host;
});

interface Value {
  value: string;
  multiValue?: Value[];
}

interface ViewerRequest {
  method: string;
  uri: string;
  querystring: Record<string, Value>;
  headers: Record<string, Value>;
  cookies?: Record<string, Value>;
}

interface ViewerEvent {
  request: ViewerRequest;
}

interface FunctionResponse {
  statusCode: number;
  statusDescription: string;
  headers: Record<string, { value: string }>;
  body?: { encoding: 'text'; data: string };
}

export function handler(event: ViewerEvent): ViewerRequest | FunctionResponse {
  const request = event.request;
  const query = queryString(request.querystring);
  beyondAscii = false;
  const found = lookup({ method: request.method, path: request.uri, query });
  if (beyondAscii) {
    // The cache key holds only the path and ?timestamp=: the query goes into the path.
    request.uri =
      EDGE_RESOLVE_PREFIX + encodeURIComponent(query ? `${request.uri}?${query}` : request.uri);
    request.querystring = {};
    return request;
  }
  if (found.kind === 'answer') return functionResponse(found.response);
  if (found.kind === 'key' || found.kind === 'page') {
    request.uri = `/${originPath(found.key)}`;
    request.querystring = {};
  } else {
    request.uri = publicPath(found.target);
    request.querystring = { timestamp: { value: String(found.timestamp) } };
  }
  return request;
}

/** CloudFront's parsed query back to a raw string, every repeated value included. */
function queryString(qs: Record<string, Value>): string {
  const parts: string[] = [];
  const names = Object.keys(qs);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const v = qs[name]!;
    const values = v.multiValue && v.multiValue.length > 0 ? v.multiValue : [v];
    for (let j = 0; j < values.length; j++) parts.push(`${name}=${values[j]!.value}`);
  }
  return parts.join('&');
}

function functionResponse(answer: ResolverResponse): FunctionResponse {
  const headers: Record<string, { value: string }> = {};
  // The function never answers with a page: a miss that a browser asks for goes to the origin.
  const all = withResolverAnswerHeaders(answer.headers);
  const names = Object.keys(all);
  // CloudFront frames the answer itself: the length the core gives a HEAD answer stays out.
  for (let i = 0; i < names.length; i++)
    if (names[i] !== 'content-length') headers[names[i]!] = { value: all[names[i]!]! };
  const response: FunctionResponse = {
    statusCode: answer.status,
    statusDescription: STATUS_TEXT[answer.status] || 'Error',
    headers,
  };
  // Error answers are always text; HEAD answers carry none.
  if (typeof answer.body === 'string') response.body = { encoding: 'text', data: answer.body };
  return response;
}
