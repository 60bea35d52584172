// One table of requests and expected answers, run against every adapter of the resolver.
import { BUCHER, EXPIRING, WIDGET, type SiteName } from './fixture.ts';
import { openapiChecker } from './openapi-check.ts';

// The description each fixture site's build writes (fixture.ts: A renders two more styles and code scanning).
const SPEC = {
  A: openapiChecker(['MAINTENANCE', 'SECURITY', 'REUSED'], {
    baseUrl: 'http://127.0.0.1:8787',
    styles: ['flat', 'for-the-badge', 'social'],
    shieldsEndpoint: true,
    codeScanning: true,
  }),
  B: openapiChecker(['MAINTAINED', 'REUSED', 'DIN-SPEC-XXXX', 'OPEN-SOURCE'], {
    baseUrl: 'http://127.0.0.1:8787',
    styles: ['flat'],
    shieldsEndpoint: true,
    codeScanning: false,
  }),
};

export interface ConformanceRequest {
  method: string;
  /** Path and query exactly as sent. */
  url: string;
  headers?: Record<string, string>;
  /** The site asked: Shape A unless 'B' (see fixture.ts). */
  site?: SiteName;
}

export interface ConformanceAnswer {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: string;
}

/** What an adapter test supplies: send one request, get the answer (redirects not followed). */
export type Runner = (req: ConformanceRequest) => Promise<ConformanceAnswer>;

export interface ConformanceCase {
  name: string;
  request: ConformanceRequest;
  status: number;
  contentType?: string;
  cacheControl?: RegExp;
  location?: string;
  /** Checked against the body text. */
  body?: RegExp;
  emptyBody?: boolean;
  headers?: Record<string, RegExp>;
}

const base = `/api/v1/repositories/${WIDGET}`;
// Every API answer a rebuild can change, per-time files and every 302 included (issue 37):
// a threshold change rewrites past reports, so nothing here may be immutable or long-lived.
const SHORT = /^public, max-age=300$/;
const get = (url: string): ConformanceRequest => ({ method: 'GET', url });
const head = (url: string): ConformanceRequest => ({ method: 'HEAD', url });
const onB = (url: string): ConformanceRequest => ({ method: 'GET', url, site: 'B' });
const problem = 'application/problem+json';
/** Written out here, not imported: the policy every adapter must send with an SVG. */
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";
const LONG_URL = encodeURIComponent(`https://github.com/acme/${'a'.repeat(240)}`);

export const CASES: ConformanceCase[] = [
  {
    name: 'latest report',
    request: get(`${base}/sarif`),
    status: 200,
    contentType: 'application/json',
    cacheControl: SHORT,
    body: /"version":"2\.1\.0"/,
  },
  {
    name: 'latest badge image',
    request: get(`${base}/badges/MAINTENANCE.svg`),
    status: 200,
    contentType: 'image/svg+xml',
    cacheControl: SHORT,
    body: /aria-label="MAINTENANCE: silver"/,
  },
  {
    name: 'latest explanation',
    request: get(`${base}/badges/SECURITY`),
    status: 200,
    contentType: 'application/json',
    cacheControl: SHORT,
    body: /"badgeStatus":"gold"/,
  },
  {
    name: 'index',
    request: get(`${base}/index.json`),
    status: 200,
    contentType: 'application/json',
    body: /"timestamps":\[1760000000,/,
  },
  {
    name: 'T equal to a scan time',
    request: get(`${base}/sarif?timestamp=1762000000`),
    status: 302,
    location: `${base}/at/1762000000/sarif`,
    cacheControl: SHORT,
  },
  {
    name: 'T between scans',
    request: get(`${base}/badges/MAINTENANCE.svg?timestamp=1762999999`),
    status: 302,
    location: `${base}/at/1762000000/badges/MAINTENANCE.svg`,
  },
  {
    name: 'T before the first scan',
    request: get(`${base}/sarif?timestamp=1759999999`),
    status: 404,
    contentType: problem,
    body: /no result at or before 1759999999/,
  },
  {
    name: 'T after the last scan',
    request: get(`${base}/badges/REUSED?timestamp=1900000000`),
    status: 302,
    location: `${base}/at/1763596800/badges/REUSED`,
    cacheControl: SHORT,
  },
  {
    name: 'per-time file',
    request: get(`${base}/at/1761000000/badges/MAINTENANCE`),
    status: 200,
    contentType: 'application/json',
    cacheControl: SHORT,
    body: /"badgeStatus":"fail"/,
  },
  {
    name: 'per-time image',
    request: get(`${base}/at/1761000000/badges/MAINTENANCE.svg`),
    status: 200,
    contentType: 'image/svg+xml',
    cacheControl: SHORT,
  },
  {
    name: 'lower-case hex',
    request: get('/api/v1/repositories/https%3a%2f%2fgithub.com%2facme%2fwidget/sarif'),
    status: 200,
    contentType: 'application/json',
  },
  {
    name: 'upper-case scheme and host',
    request: get(
      '/api/v1/repositories/HTTPS%3A%2F%2FGitHub.com%2Facme%2Fwidget/badges/MAINTENANCE',
    ),
    status: 200,
    body: /"badgeId":"MAINTENANCE"/,
  },
  {
    name: 'decoded repository URL',
    request: get('/api/v1/repositories/https://github.com/acme/widget/badges/MAINTENANCE'),
    status: 200,
    body: /"badgeId":"MAINTENANCE"/,
  },
  {
    name: 'partly encoded repository URL',
    request: get(
      '/api/v1/repositories/https%3A//github.com/acme/widget/sarif?timestamp=1761000000',
    ),
    status: 302,
    location: `${base}/at/1761000000/sarif`,
  },
  {
    name: 'encoded port',
    request: get(
      `/api/v1/repositories/${encodeURIComponent('https://git.example.org:8443/platform/api-gateway')}/badges/REUSED`,
    ),
    status: 200,
    body: /"badgeStatus":"gold"/,
  },
  {
    name: 'never-scanned repository',
    request: get(
      `/api/v1/repositories/${encodeURIComponent('https://github.com/acme/unknown')}/sarif`,
    ),
    status: 404,
    contentType: problem,
    cacheControl: SHORT,
    body: /never scanned/,
  },
  {
    name: 'never-scanned with timestamp',
    request: get(
      `/api/v1/repositories/${encodeURIComponent('https://github.com/acme/unknown')}/sarif?timestamp=1763000000`,
    ),
    status: 404,
    contentType: problem,
  },
  {
    name: 'unknown badge id',
    request: get(`${base}/badges/POPULARITY`),
    status: 404,
    contentType: problem,
    body: /unknown badge id \\"POPULARITY\\"/,
  },
  {
    name: 'unknown badge id as image',
    request: get(`${base}/badges/POPULARITY.svg`),
    status: 404,
    contentType: 'image/svg+xml',
    body: /popularity: not found/,
  },
  {
    name: 'unknown badge id with timestamp',
    request: get(`${base}/badges/POPULARITY.svg?timestamp=1763000000`),
    status: 404,
    contentType: 'image/svg+xml',
  },
  {
    name: 'Shape B id on a Shape A site',
    request: get(`${base}/badges/MAINTAINED?timestamp=1763000000`),
    status: 404,
    contentType: problem,
    body: /serves MAINTENANCE, SECURITY, REUSED/,
  },
  {
    name: 'malformed segment',
    request: get('/api/v1/repositories/not-a-url/sarif'),
    status: 400,
    contentType: problem,
    body: /<scheme>:\/\/<host>\/<path>/,
  },
  {
    name: 'malformed escape',
    request: get('/api/v1/repositories/https%3A%2F%2Fh.org%2F%C3%28/sarif'),
    status: 400,
    contentType: problem,
  },
  {
    name: 'malformed segment on an image',
    request: get('/api/v1/repositories/nope/badges/MAINTENANCE.svg'),
    status: 400,
    contentType: 'image/svg+xml',
    body: /maintenance: bad request/,
  },
  {
    name: 'timestamp abc',
    request: get(`${base}/sarif?timestamp=abc`),
    status: 400,
    contentType: problem,
    body: /timestamp must be one integer/,
  },
  { name: 'timestamp 1.5', request: get(`${base}/sarif?timestamp=1.5`), status: 400 },
  { name: 'timestamp -1', request: get(`${base}/sarif?timestamp=-1`), status: 400 },
  {
    name: 'timestamp huge',
    request: get(`${base}/sarif?timestamp=99999999999999999999`),
    status: 400,
  },
  { name: 'timestamp empty', request: get(`${base}/sarif?timestamp=`), status: 400 },
  {
    name: 'timestamp repeated',
    request: get(`${base}/sarif?timestamp=1762000000&timestamp=1763000000`),
    status: 400,
  },
  {
    name: 'other query parameters are ignored',
    request: get(`${base}/sarif?utm_source=readme`),
    status: 200,
  },
  {
    name: 'timestamp percent-encoded',
    request: get(`${base}/sarif?timestamp=%31762000000`),
    status: 302,
    location: `${base}/at/1762000000/sarif`,
  },
  {
    name: 'timestamp with an encoded name',
    request: get(`${base}/sarif?%74imestamp=1762000000`),
    status: 302,
    location: `${base}/at/1762000000/sarif`,
  },
  {
    name: 'timestamp with a plus (a space)',
    request: get(`${base}/sarif?timestamp=+1762000000`),
    status: 400,
    body: /timestamp must be one integer/,
  },
  {
    name: 'timestamp repeated, once encoded',
    request: get(`${base}/sarif?timestamp=1762000000&%74imestamp=1762000000`),
    status: 400,
  },
  {
    name: 'repository segment too long',
    request: get(`/api/v1/repositories/${LONG_URL}/sarif`),
    status: 400,
    contentType: problem,
    body: /encodes to \d+ bytes, more than the 255/,
  },
  {
    name: 'HEAD',
    request: head(`${base}/badges/MAINTENANCE.svg`),
    status: 200,
    contentType: 'image/svg+xml',
    emptyBody: true,
  },
  {
    name: 'HEAD of a per-time file',
    request: head(`${base}/at/1761000000/badges/MAINTENANCE`),
    status: 200,
    contentType: 'application/json',
    cacheControl: SHORT,
    emptyBody: true,
  },
  {
    name: 'HEAD of a miss',
    request: head(
      `/api/v1/repositories/${encodeURIComponent('https://github.com/acme/unknown')}/sarif`,
    ),
    status: 404,
    contentType: problem,
    emptyBody: true,
  },
  {
    name: 'HEAD of a miss on an image',
    request: head(`${base}/badges/POPULARITY.svg`),
    status: 404,
    contentType: 'image/svg+xml',
    emptyBody: true,
  },
  {
    name: 'POST',
    request: { method: 'POST', url: `${base}/sarif` },
    status: 405,
    headers: { allow: /^GET, HEAD$/ },
    contentType: problem,
  },
  { name: 'outside the API', request: get('/etc/passwd'), status: 404, contentType: problem },
  {
    name: 'expired after expireAfterSeconds',
    request: get(`/api/v1/repositories/${EXPIRING}/badges/MAINTENANCE.svg?timestamp=1760086401`),
    status: 302,
    location: `/api/v1/repositories/${EXPIRING}/at/1760000000/expired/badges/MAINTENANCE.svg`,
  },
  {
    name: 'not expired at the boundary',
    request: get(`/api/v1/repositories/${EXPIRING}/badges/MAINTENANCE.svg?timestamp=1760086400`),
    status: 302,
    location: `/api/v1/repositories/${EXPIRING}/at/1760000000/badges/MAINTENANCE.svg`,
  },
  {
    name: 'expired file',
    request: get(`/api/v1/repositories/${EXPIRING}/at/1760000000/expired/badges/MAINTENANCE.svg`),
    status: 200,
    contentType: 'image/svg+xml',
    body: /expired/,
  },
  // A host beyond ASCII names the repository its punycode form names, in any case.
  {
    name: 'Unicode host, upper case',
    request: get(
      `/api/v1/repositories/${encodeURIComponent('https://BÜCHER.example/acme/books')}/at/1760000000/badges/MAINTENANCE.svg`,
    ),
    status: 200,
    contentType: 'image/svg+xml',
    body: /books/,
  },
  // At the AWS edge these go to Lambda@Edge whole (the CloudFront Function has no punycode).
  // The repository has per-time files only: its latest styled badge is a miss, answered as one.
  {
    name: 'Unicode host, a style',
    request: get(
      `/api/v1/repositories/${encodeURIComponent('https://bücher.example/acme/books')}/badges/MAINTENANCE.svg?style=for-the-badge`,
    ),
    status: 404,
    contentType: 'image/svg+xml',
    cacheControl: SHORT,
    body: /maintenance: not found/,
  },
  {
    name: 'Unicode host, unknown style',
    request: get(
      `/api/v1/repositories/${encodeURIComponent('https://bücher.example/acme/books')}/badges/MAINTENANCE.svg?style=fancy`,
    ),
    status: 400,
    contentType: 'image/svg+xml',
    body: /maintenance: bad request/,
  },
  {
    name: 'Unicode host, a full-width letter (UTS 46 maps it)',
    request: get(
      `/api/v1/repositories/${encodeURIComponent('https://ｂücher.example/acme/books')}/at/1760000000/badges/MAINTENANCE.svg`,
    ),
    status: 200,
    contentType: 'image/svg+xml',
    body: /books/,
  },
  {
    name: 'Unicode host, HEAD',
    request: head(
      `/api/v1/repositories/${encodeURIComponent('https://bücher.example/acme/books')}/at/1760000000/badges/MAINTENANCE.svg`,
    ),
    status: 200,
    contentType: 'image/svg+xml',
    cacheControl: SHORT,
    emptyBody: true,
  },
  {
    name: 'Unicode host, redirect to the punycode key',
    request: get(
      `/api/v1/repositories/${encodeURIComponent('https://bücher.example/acme/books')}/badges/MAINTENANCE.svg?timestamp=1760000001`,
    ),
    status: 302,
    location: `/api/v1/repositories/${BUCHER}/at/1760000000/badges/MAINTENANCE.svg`,
  },
  {
    name: 'credentials in the repository URL',
    request: get(
      `/api/v1/repositories/${encodeURIComponent('https://user:pass@github.com/acme/widget')}/sarif`,
    ),
    status: 400,
    body: /credentials/,
  },
  // Shape B (badge levels): ids with hyphens, statuses none…gold, its own list of ids.
  {
    name: 'B: latest badge image',
    request: onB(`${base}/badges/MAINTAINED.svg`),
    status: 200,
    contentType: 'image/svg+xml',
    cacheControl: SHORT,
    body: /aria-label="MAINTAINED: gold"/,
  },
  {
    name: 'B: latest explanation, id with hyphens',
    request: onB(`${base}/badges/DIN-SPEC-XXXX`),
    status: 200,
    contentType: 'application/json',
    body: /"badgeId":"DIN-SPEC-XXXX","badgeStatus":"bronze"/,
  },
  {
    name: 'B: latest report',
    request: onB(`${base}/sarif`),
    status: 200,
    contentType: 'application/json',
    body: /"version":"2\.1\.0"/,
  },
  {
    name: 'B: T between scans',
    request: onB(`${base}/badges/OPEN-SOURCE.svg?timestamp=1761000000`),
    status: 302,
    location: `${base}/at/1760000000/badges/OPEN-SOURCE.svg`,
    cacheControl: SHORT,
  },
  {
    name: 'B: T after the last scan',
    request: onB(`${base}/badges/REUSED?timestamp=1900000000`),
    status: 302,
    location: `${base}/at/1763596800/badges/REUSED`,
    cacheControl: SHORT,
  },
  {
    name: 'B: per-time image',
    request: onB(`${base}/at/1760000000/badges/MAINTAINED.svg`),
    status: 200,
    contentType: 'image/svg+xml',
    cacheControl: SHORT,
    body: /aria-label="MAINTAINED: silver"/,
  },
  {
    name: 'B: per-time explanation',
    request: onB(`${base}/at/1760000000/badges/OPEN-SOURCE`),
    status: 200,
    cacheControl: SHORT,
    body: /"badgeStatus":"gold"/,
  },
  {
    name: 'B: T before the first scan',
    request: onB(
      `/api/v1/repositories/${encodeURIComponent('https://codeberg.org/acme/tool')}/badges/REUSED.svg?timestamp=1762999999`,
    ),
    status: 404,
    contentType: 'image/svg+xml',
    body: /reused: not found/,
  },
  {
    name: 'B: Shape A id on a Shape B site',
    request: onB(`${base}/badges/MAINTENANCE`),
    status: 404,
    contentType: problem,
    body: /serves MAINTAINED, REUSED, DIN-SPEC-XXXX, OPEN-SOURCE/,
  },
  {
    name: 'B: Shape A id with timestamp',
    request: onB(`${base}/badges/MAINTENANCE.svg?timestamp=1900000000`),
    status: 404,
    contentType: 'image/svg+xml',
    body: /maintenance: not found/,
  },
  {
    name: 'B: a style a flat-only site does not render',
    request: onB(`${base}/badges/MAINTAINED.svg?style=social`),
    status: 404,
    contentType: 'image/svg+xml',
    body: /maintained: style social not rendered; only flat</,
  },
  {
    name: 'B: HEAD',
    request: { method: 'HEAD', url: `${base}/badges/DIN-SPEC-XXXX.svg`, site: 'B' },
    status: 200,
    contentType: 'image/svg+xml',
    emptyBody: true,
  },
  // Latest-only files (the Shape A fixture renders styles for-the-badge and social, and code scanning).
  {
    name: 'shields endpoint JSON',
    request: get(`${base}/badges/MAINTENANCE.json`),
    status: 200,
    contentType: 'application/json',
    cacheControl: SHORT,
    body: /^\{"schemaVersion":1,"label":"MAINTENANCE","message":"silver","color":"64778c","cacheSeconds":300\}$/,
  },
  {
    name: 'B: shields endpoint JSON',
    request: onB(`${base}/badges/DIN-SPEC-XXXX.json`),
    status: 200,
    contentType: 'application/json',
    body: /"message":"bronze"/,
  },
  {
    name: 'style for-the-badge',
    request: get(`${base}/badges/MAINTENANCE.svg?style=for-the-badge`),
    status: 200,
    contentType: 'image/svg+xml',
    cacheControl: SHORT,
    body: /aria-label="MAINTENANCE: SILVER"/,
  },
  {
    name: 'style flat is the plain badge',
    request: get(`${base}/badges/MAINTENANCE.svg?style=flat`),
    status: 200,
    contentType: 'image/svg+xml',
    body: /aria-label="MAINTENANCE: silver"/,
  },
  // Not the "not found" of a repository never scanned: the badge names the styles the site renders.
  {
    name: 'style this site does not render',
    request: get(`${base}/badges/MAINTENANCE.svg?style=plastic`),
    status: 404,
    contentType: 'image/svg+xml',
    body: /maintenance: style plastic not rendered; only flat,for-the-badge,social/,
  },
  {
    name: 'unknown style',
    request: get(`${base}/badges/MAINTENANCE.svg?style=fancy`),
    status: 400,
    contentType: 'image/svg+xml',
    body: /maintenance: bad request/,
  },
  {
    name: 'style with timestamp',
    request: get(`${base}/badges/MAINTENANCE.svg?style=social&timestamp=1762000000`),
    status: 400,
    contentType: 'image/svg+xml',
  },
  {
    name: 'styled file named directly',
    request: get(`${base}/badges/MAINTENANCE.social.svg`),
    status: 200,
    contentType: 'image/svg+xml',
    body: /aria-label="MAINTENANCE: silver"/,
  },
  {
    name: 'code-scanning report',
    request: get(`${base}/code-scanning.sarif`),
    status: 200,
    contentType: 'application/json',
    cacheControl: SHORT,
    body: /"automationDetails":\{"id":"badgepress\/1763596800\/"\}/,
  },
  {
    name: 'code scanning off on the B site',
    request: onB(`${base}/code-scanning.sarif`),
    status: 404,
    contentType: problem,
  },
  {
    name: 'timestamp on a latest-only file',
    request: get(`${base}/code-scanning.sarif?timestamp=1762000000`),
    status: 400,
    contentType: problem,
    body: /latest result only/,
  },
  {
    name: 'timestamp on shields JSON',
    request: get(`${base}/badges/SECURITY.json?timestamp=1762000000`),
    status: 400,
    contentType: problem,
    body: /latest result only/,
  },
  {
    name: 'latest-only file under at/',
    request: get(`${base}/at/1762000000/badges/SECURITY.json`),
    status: 400,
    contentType: problem,
  },
  {
    name: 'HEAD shields JSON',
    request: head(`${base}/badges/REUSED.json`),
    status: 200,
    contentType: 'application/json',
    emptyBody: true,
  },
];

export interface ConformanceOptions {
  /**
   * Whether the adapter frames its own answers, so a HEAD answer must carry the
   * Content-Length of its GET. At the AWS edge CloudFront frames answers the functions
   * generate (and refuses a function that sets the length): there it is checked when present.
   */
  headLength: 'required' | 'when-present';
}

/** Runs the table through one adapter; returns the failures, empty when it conforms. */
export async function conformanceFailures(
  run: Runner,
  opts: ConformanceOptions = { headLength: 'required' },
): Promise<string[]> {
  const failures: string[] = [];
  for (const c of CASES) {
    const a = await run(c.request);
    const say = (what: string) =>
      failures.push(
        `${c.name} (${c.request.site ?? 'A'}: ${c.request.method} ${c.request.url}): ${what}`,
      );
    if (c.request.method === 'HEAD') {
      const length = a.headers['content-length'];
      if (length === undefined && opts.headLength === 'required')
        say('HEAD answered without Content-Length');
      else if (length !== undefined) {
        const got = await run({ ...c.request, method: 'GET' });
        if (Number(length) !== Buffer.byteLength(got.body))
          say(`HEAD Content-Length ${length}, but GET sends ${Buffer.byteLength(got.body)} bytes`);
      }
    }
    if (a.status !== c.status)
      say(`status ${a.status}, expected ${c.status}; body ${a.body.slice(0, 200)}`);
    if (c.contentType && a.headers['content-type'] !== c.contentType)
      say(`content-type ${a.headers['content-type']}, expected ${c.contentType}`);
    if (!a.headers['cache-control']) say('no cache-control');
    // Every answer, errors and redirects included; SVG (badges, error badges) with a policy that runs no script.
    if (a.headers['x-content-type-options'] !== 'nosniff')
      say(`x-content-type-options ${a.headers['x-content-type-options']}, expected nosniff`);
    if (
      a.headers['content-type'] === 'image/svg+xml' &&
      a.headers['content-security-policy'] !== SVG_CSP
    )
      say(`SVG answered with content-security-policy ${a.headers['content-security-policy']}`);
    if (c.cacheControl && !c.cacheControl.test(a.headers['cache-control'] ?? ''))
      say(`cache-control ${a.headers['cache-control']}`);
    if (c.location !== undefined && a.headers.location !== c.location)
      say(`location ${a.headers.location}, expected ${c.location}`);
    if (a.headers.location !== undefined && !a.headers.location.startsWith('/api/v1/repositories/'))
      say(`location outside the API: ${a.headers.location}`);
    if (c.body && !c.body.test(a.body))
      say(`body does not match ${c.body}: ${a.body.slice(0, 200)}`);
    if (c.emptyBody && a.body !== '') say('HEAD answered with a body');
    for (const [h, re] of Object.entries(c.headers ?? {}))
      if (!re.test(a.headers[h] ?? '')) say(`header ${h}: ${a.headers[h]}`);
    for (const p of SPEC[c.request.site ?? 'A'].check(c.request, a)) say(`OpenAPI: ${p}`);
  }
  return failures;
}
