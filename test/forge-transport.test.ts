// The forge transport, the same on every forge (issue 36 R3-2/3/4/8/10/18, issue 31 item 5):
// a token never leaves the API's origin (no redirect, no next-page link elsewhere), an answer
// cut off, stalled or not JSON fails the call, and a repository's work ends within stated
// bounds. Each case runs against the GitHub, GitLab and Gitea stand-ins with a canary token,
// looked for in every request the stand-ins receive and in the result. Expected messages and
// counts are worked out by hand.
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ForgeResult } from '../src/measure/types.ts';
import { measureOn, resetWording } from './helpers/forge-measure.ts';
import type {
  ForgeServer,
  Override,
  Reply,
  RequestSeen,
} from '../scripts/lib/forge-peers/server.ts';
import { GH_ERROR, startGitHub } from '../scripts/lib/forge-peers/github.ts';
import { startGitLab } from '../scripts/lib/forge-peers/gitlab.ts';
import { startGitea } from '../scripts/lib/forge-peers/gitea.ts';
import { MAX_RESET_SECONDS, retryAfterSeconds } from '../src/measure/http/client.ts';
import type { HostConfig } from '../src/config/types.ts';

const u = (iso: string) => Date.parse(iso) / 1000;
const E = u('2026-11-25T00:00:00Z');
// Lower case: it may stand in a host name, which URLs lower-case.
const CANARY = 'canary-tok-7f3a9c41';

interface Forge {
  kind: HostConfig['kind'];
  label: string;
  /** The header the token travels in. */
  authHeader: string;
  /** The repository's own route and its path under the API base. */
  repoTemplate: string;
  repoPath: string;
  /** How a failure names the lookup's answer. */
  repoAnswer: string;
  releasesTemplate: string;
  releasesPath: string;
  start(override: Override): Promise<ForgeServer>;
  host: string;
  path: string;
}

const RELEASE = { tag: 'v2.0.0', published: '2026-11-10T00:00:00Z' };

const FORGES: Forge[] = [
  {
    kind: 'github',
    label: 'GitHub API',
    authHeader: 'authorization',
    // With a token the first request is the issues' GraphQL query, which is the lookup too.
    repoTemplate: '/graphql',
    repoPath: '/graphql',
    repoAnswer: 'the GraphQL answer for acme/widget',
    releasesTemplate: '/repos/{owner}/{repo}/releases',
    releasesPath: '/repos/acme/widget/releases',
    start: (override) => startGitHub({ releases: [RELEASE], override }),
    host: 'github.com',
    path: 'acme/widget',
  },
  {
    kind: 'gitlab',
    label: 'GitLab API',
    authHeader: 'private-token',
    repoTemplate: '/projects/{id}',
    repoPath: '/projects/acme%2Fwidget',
    repoAnswer: 'the answer to /projects/acme%2Fwidget',
    releasesTemplate: '/projects/{id}/releases',
    releasesPath: '/projects/acme%2Fwidget/releases',
    start: (override) =>
      startGitLab({ releases: [{ tag: RELEASE.tag, released: RELEASE.published }], override }),
    host: 'gitlab.com',
    path: 'acme/widget',
  },
  {
    kind: 'gitea',
    label: 'Forgejo/Gitea API',
    authHeader: 'authorization',
    repoTemplate: '/repos/{owner}/{repo}',
    repoPath: '/repos/acme/widget',
    repoAnswer: 'the answer to /repos/acme/widget',
    releasesTemplate: '/repos/{owner}/{repo}/releases',
    releasesPath: '/repos/acme/widget/releases',
    start: (override) =>
      startGitea({
        owner: 'acme',
        runs: [{ created: '2026-11-01T00:00:00Z', status: 'success' }],
        releases: [RELEASE],
        override,
      }),
    host: 'codeberg.org',
    path: 'acme/widget',
  },
];

let servers: ForgeServer[] = [];
let warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
beforeEach(() => {
  warnings = [];
  process.on('warning', onWarning);
});
afterEach(async () => {
  process.off('warning', onWarning);
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

/** A loopback server that records what it receives and answers 200 `[]` (the "other origin"). */
async function elsewhere(): Promise<ForgeServer> {
  const s = await startGitHub({});
  servers.push(s);
  return s;
}

/**
 * The canary appears in no request but as the forge's token header on the API's own server,
 * and nowhere at all in what another origin receives.
 */
function expectCanaryAtHomeOnly(f: Forge, home: ForgeServer, others: ForgeServer[] = []): void {
  const everything = (q: RequestSeen, skip?: string) =>
    JSON.stringify([q.path, [...q.query], Object.entries(q.headers).filter(([k]) => k !== skip)]);
  for (const q of home.requests) {
    expect(everything(q, f.authHeader)).not.toContain(CANARY);
    expect(String(q.headers[f.authHeader])).toContain(CANARY);
  }
  for (const o of others) for (const q of o.requests) expect(everything(q)).not.toContain(CANARY);
}

async function measure(
  f: Forge,
  override: Override,
  host: Partial<HostConfig> = {},
): Promise<{ r: ForgeResult; server: ForgeServer }> {
  const server = await f.start(override);
  servers.push(server);
  const r = await measureOn(server, {
    kind: f.kind,
    host: f.host,
    path: f.path,
    tokens: CANARY,
    times: [E],
    hostConfig: host,
  });
  expectCanaryAtHomeOnly(f, server);
  expect(JSON.stringify(r)).not.toContain(CANARY);
  expect(warnings).toEqual([]);
  return { r, server };
}

/** Only a safety net: the bound tests count requests and bytes; on the code before, they never ended. */
const BOUND_SAFETY_NET_MS = 20_000;

const raw = (write: (res: ServerResponse) => void) => ({ status: 0, raw: write });
const origin = (s: ForgeServer) => new URL(s.url).origin;
const calls = (s: ForgeServer, path: string) => s.requests.filter((q) => q.path.endsWith(path));
const NULLS = { ISSUE_REACTION_TIME: null, CI_PIPELINE: null, RELEASES: null, PACKAGES: null };

describe.each(FORGES)('$label transport', (f) => {
  it('follows no redirect to another origin: the call fails, the token stays home (R3-2)', async () => {
    const other = await elsewhere();
    const { r, server } = await measure(f, (t) =>
      t === f.repoTemplate
        ? raw((res) => res.writeHead(302, { location: `${other.url}/moved` }).end())
        : undefined,
    );
    const cause = `${f.label}: ${f.repoPath} answered 302, a redirect to another origin (${origin(other)}); not followed, the token goes to ${origin(server)} only`;
    expect(r.failures).toEqual([cause]);
    expect(r.measurements[0]!.values).toEqual(NULLS);
    expect(other.requests).toEqual([]);
    expectCanaryAtHomeOnly(f, server, [other]);
  });

  it('follows a redirect on the same origin, the token with it', async () => {
    const { r, server } = await measure(f, (t, q) =>
      t === f.releasesTemplate && !q.query.has('moved')
        ? raw((res) => res.writeHead(301, { location: `${q.path}?moved=1&${q.query}` }).end())
        : undefined,
    );
    expect(r.failures).toEqual([]);
    expect(r.measurements[0]!.values.RELEASES).toEqual({ events: [u(RELEASE.published)] });
    expect(calls(server, '/releases').map((q) => q.query.has('moved'))).toEqual([false, true]);
  });

  it('redacts the token and strips control characters from a message quoting the answer (R3-3, R3-18)', async () => {
    const { r } = await measure(f, (t) =>
      t === f.repoTemplate
        ? raw((res) =>
            res.writeHead(307, { location: `http://${CANARY}.invalid/%1B]0;pwned%07` }).end(),
          )
        : undefined,
    );
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]).toContain(
      'a redirect to another origin (http://***.invalid); not followed',
    );
    expect(r.failures[0]).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('a 401 whose body quotes the token and a terminal escape says neither (R3-3, R3-18)', async () => {
    const body = JSON.stringify({
      message: `bad token ${CANARY} \u001b]0;pwned\u0007`,
      token: CANARY,
    });
    const { r } = await measure(f, (t) =>
      t === f.repoTemplate
        ? raw((res) =>
            res
              .writeHead(401, {
                'content-type': 'application/json',
                'www-authenticate': `Bearer realm="${CANARY}"`,
              })
              .end(body),
          )
        : undefined,
    );
    expect(r.failures).toEqual([
      `${f.label}: 401 bad or missing credentials (check the token in $FORGE_TEST_TOKEN)`,
    ]);
  });

  it('refuses a redirect or a next-page link that carries user information, even on the origin', async () => {
    // Read as a URL, its origin is the API's: only the user information sets it apart.
    const withUser = (q: RequestSeen) => `http://x:${CANARY}@${q.headers.host}${q.path}?again=1`;
    let { r, server } = await measure(f, (t, q) =>
      t === f.repoTemplate
        ? raw((res) => res.writeHead(302, { location: withUser(q) }).end())
        : undefined,
    );
    expect(r.failures).toEqual([
      `${f.label}: ${f.repoPath} answered 302, a redirect to a URL with user information; not followed, the token goes in its header only`,
    ]);
    expect(calls(server, f.repoPath)).toHaveLength(1);
    ({ r, server } = await measure(f, (t, q, _n, normal) => {
      if (t !== f.releasesTemplate) return undefined;
      const answer = normal();
      return { ...answer, headers: { ...answer.headers, link: `<${withUser(q)}>; rel="next"` } };
    }));
    expect(r.measurements[0]!.evidence.RELEASES).toBe(
      `${f.label}: a next-page link of ${f.releasesPath} carries user information; not followed, the token goes in its header only`,
    );
    expect(calls(server, '/releases')).toHaveLength(1);
  });

  it('refuses a next-page link to another origin: the rules it feeds are null (R3-4, issue 31 item 5)', async () => {
    const other = await elsewhere();
    const { r, server } = await measure(f, (t, _q, _n, normal) => {
      if (t !== f.releasesTemplate) return undefined;
      const answer = normal();
      return {
        ...answer,
        headers: { ...answer.headers, link: `<${other.url}${f.releasesPath}?page=2>; rel="next"` },
      };
    });
    expect(r.measurements[0]!.values.RELEASES).toBeNull();
    expect(r.measurements[0]!.evidence.RELEASES).toBe(
      `${f.label}: a next-page link of ${f.releasesPath} points to another origin (${origin(other)}); not followed, only ${origin(server)} is asked`,
    );
    expect(other.requests).toEqual([]);
  });

  it('reads a relative next-page link against the page it came with (RFC 8288 section 3.2)', async () => {
    const { r, server } = await measure(f, (t, _q, n, normal) => {
      if (t !== f.releasesTemplate || n > 1) return undefined;
      const answer = normal();
      // Relative to .../releases?per_page=100: .../releases?page=2, on the page's own path.
      return { ...answer, headers: { ...answer.headers, link: '<releases?page=2>; rel="next"' } };
    });
    expect(r.measurements[0]!.values.RELEASES).toEqual({ events: [u(RELEASE.published)] });
    const releases = new URL(server.url).pathname.replace(/\/$/, '') + f.releasesPath;
    expect(calls(server, '/releases').map((q) => [q.path, q.query.get('page')])).toEqual([
      [releases, null],
      [releases, '2'],
    ]);
  });

  it('a body cut off mid-way is a failed call, not an empty answer (R3-8)', async () => {
    const { r } = await measure(f, (t) =>
      t === f.repoTemplate
        ? raw((res) => {
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
            res.write('{"id": 1, "has_issues": tr');
            setTimeout(() => res.socket?.destroy(), 50);
          })
        : undefined,
    );
    expect(r.failures).toEqual([
      `${f.label}: the answer to ${f.repoPath} was cut off after 26 bytes`,
    ]);
    expect(r.measurements[0]!.values).toEqual(NULLS);
  });

  it('a body stalled mid-way times out (R3-8)', async () => {
    const { r } = await measure(
      f,
      (t) =>
        t === f.repoTemplate
          ? raw((res) => {
              res.writeHead(200, { 'content-type': 'application/json' });
              res.write('{"id": 1, ');
            })
          : undefined,
      { timeoutSeconds: 0.3 },
    );
    expect(r.failures).toEqual([`${f.label}: no answer within 0.3 s`]);
    expect(r.measurements[0]!.values).toEqual(NULLS);
  });

  it('an answer that is not JSON, or a list that is not a list, is a failed call (R3-8)', async () => {
    let { r } = await measure(f, (t) =>
      t === f.repoTemplate
        ? raw((res) =>
            res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>'),
          )
        : undefined,
    );
    expect(r.failures).toEqual([
      `${f.label}: the answer to ${f.repoPath} is not the JSON the API documents (24 bytes, cut off or malformed)`,
    ]);
    ({ r } = await measure(f, (t) =>
      t === f.releasesTemplate
        ? raw((res) =>
            res.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"ok"}'),
          )
        : undefined,
    ));
    expect(r.measurements[0]!.evidence.RELEASES).toBe(
      `${f.label}: a page of ${f.releasesPath} is not the JSON list the API documents`,
    );
    expect(r.measurements[0]!.values.RELEASES).toBeNull();
  });

  it('a repository answer that is JSON but not the documented repository is a failed call (R3-8)', async () => {
    // An object without the field that says whether issues are on: not "issues enabled".
    const { r } = await measure(f, (t) =>
      t === f.repoTemplate
        ? raw((res) =>
            res
              .writeHead(200, { 'content-type': 'application/json' })
              .end('{"message":"maintenance"}'),
          )
        : undefined,
    );
    expect(r.failures).toEqual([`${f.label}: ${f.repoAnswer} is not the JSON the API documents`]);
    expect(r.measurements[0]!.values).toEqual(NULLS);
  });

  it(
    'a next-page loop ends the list as a failure after two pages (R3-10)',
    async () => {
      let first: Reply | undefined;
      const { r, server } = await measure(f, (t, q, _n, normal) => {
        if (t !== f.releasesTemplate) return undefined;
        // Every page holds the first page's release, so none ends the list by being empty.
        const answer = (first ??= normal());
        // Page 2 names page 2 again: both the Link and GitLab's X-Next-Page.
        const again = `http://${q.headers.host}${q.path}?page=2`;
        const headers: Record<string, string> =
          f.kind === 'gitlab' ? { 'x-next-page': '2' } : { link: `<${again}>; rel="next"` };
        return { ...answer, headers };
      });
      expect(r.measurements[0]!.evidence.RELEASES).toBe(
        `${f.label}: ${f.releasesPath} links a page it already gave (a paging loop); not read further`,
      );
      expect(calls(server, '/releases')).toHaveLength(2);
    },
    BOUND_SAFETY_NET_MS,
  );

  it(
    'a list that never ends stops at maxPagesPerList (R3-10)',
    async () => {
      let first: Reply | undefined;
      const { r, server } = await measure(
        f,
        (t, q, n, normal) => {
          if (t !== f.releasesTemplate) return undefined;
          const answer = (first ??= normal());
          const next = `http://${q.headers.host}${q.path}?page=${n + 1}`;
          const headers: Record<string, string> =
            f.kind === 'gitlab'
              ? { 'x-next-page': String(n + 1) }
              : { link: `<${next}>; rel="next"` };
          return { ...answer, headers };
        },
        { maxPagesPerList: 5 },
      );
      expect(r.measurements[0]!.evidence.RELEASES).toBe(
        `${f.label}: ${f.releasesPath} has more than 5 pages (maxPagesPerList); not read to its end`,
      );
      expect(calls(server, '/releases')).toHaveLength(5);
    },
    BOUND_SAFETY_NET_MS,
  );

  it(
    'an endless answer is cut at maxAnswerBytes; a longer declared one is not read (R3-10)',
    async () => {
      let written = 0;
      const endless = (res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const more = () => {
          while (!res.destroyed && res.write('{"tag_name":"v1"},')) written += 18;
          if (!res.destroyed) res.once('drain', more);
        };
        res.write('[');
        more();
      };
      let { r } = await measure(f, (t) => (t === f.releasesTemplate ? raw(endless) : undefined), {
        maxAnswerBytes: 65_536,
      });
      expect(r.measurements[0]!.evidence.RELEASES).toBe(
        `${f.label}: the answer to ${f.releasesPath} is longer than 65536 bytes (maxAnswerBytes); not read further`,
      );
      // What the socket buffers held beyond the bound, not an endless read: well under 16 MiB.
      expect(written).toBeLessThan(16 * 1024 * 1024);
      ({ r } = await measure(
        f,
        (t) =>
          t === f.releasesTemplate
            ? raw((res) =>
                res
                  .writeHead(200, {
                    'content-type': 'application/json',
                    'content-length': '900000000',
                  })
                  .write('['),
              )
            : undefined,
        { maxAnswerBytes: 65_536 },
      ));
      expect(r.measurements[0]!.evidence.RELEASES).toBe(
        `${f.label}: the answer to ${f.releasesPath} is longer than 65536 bytes (maxAnswerBytes); not read further`,
      );
    },
    BOUND_SAFETY_NET_MS,
  );

  it(
    'a compressed answer is bounded by its decoded bytes: a gzip bomb is cut at maxAnswerBytes (R3-10)',
    async () => {
      // 8 MiB of spaces after "[" gzip to about 8 KiB: the decoded body is what is bounded.
      const bomb = gzipSync(Buffer.concat([Buffer.from('['), Buffer.alloc(8 * 1024 * 1024, 32)]));
      const headers = {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(bomb.length),
      };
      const { r } = await measure(
        f,
        (t) =>
          t === f.releasesTemplate
            ? raw((res) => res.writeHead(200, headers).end(bomb))
            : undefined,
        {
          maxAnswerBytes: 65_536,
        },
      );
      expect(bomb.length).toBeLessThan(65_536);
      expect(r.measurements[0]!.evidence.RELEASES).toBe(
        `${f.label}: the answer to ${f.releasesPath} is longer than 65536 bytes (maxAnswerBytes); not read further`,
      );
    },
    BOUND_SAFETY_NET_MS,
  );

  it(
    'headers sent a line at a time without end time out like a stalled body (R3-10)',
    async () => {
      let lines = 0;
      const { r } = await measure(
        f,
        (t) =>
          t === f.repoTemplate
            ? raw((res) => {
                const socket = res.socket!;
                socket.write('HTTP/1.1 200 OK\r\n');
                const drip = setInterval(
                  () =>
                    socket.destroyed
                      ? clearInterval(drip)
                      : (lines++, socket.write('x-drip: 1\r\n')),
                  20,
                );
              })
            : undefined,
        { timeoutSeconds: 0.3 },
      );
      expect(r.failures).toEqual([`${f.label}: no answer within 0.3 s`]);
      expect(lines).toBeGreaterThan(0);
    },
    BOUND_SAFETY_NET_MS,
  );

  it(
    'stops at maxRequestsPerRepository: the rules not yet measured are null with the cause (R3-10)',
    async () => {
      // One request: its noun in the singular.
      const { r, server } = await measure(f, () => undefined, { maxRequestsPerRepository: 1 });
      expect(server.requests).toHaveLength(1);
      expect(r.failures).toContain(
        `${f.label}: more than 1 request for this repository (maxRequestsPerRepository); the rest is not asked`,
      );
      expect(r.measurements[0]!.values.PACKAGES).toBeNull();
    },
    BOUND_SAFETY_NET_MS,
  );

  it(
    'stops at maxSecondsPerRepository, a request in flight cut at the bound (R3-10)',
    async () => {
      // Every answer takes 400 ms; the repository has 1 s: the third request is cut at 1 s.
      const { r, server } = await measure(
        f,
        (_t, _q, _n, normal) => ({ ...normal(), delayMs: 400 }),
        {
          maxSecondsPerRepository: 1,
        },
      );
      expect(r.failures).toContain(
        `${f.label}: this repository's forge work took more than 1 s (maxSecondsPerRepository); the rest is not asked`,
      );
      expect(server.requests.length).toBeLessThanOrEqual(3);
      expect(r.measurements[0]!.values.PACKAGES).toBeNull();
    },
    BOUND_SAFETY_NET_MS,
  );

  it('a Retry-After of 10^20 is a day at most, no RangeError, no warning; -5 is no delay at all (R3 smaller)', async () => {
    const limited = (value: string) => (t: string) =>
      t === f.releasesTemplate
        ? {
            status: 429,
            headers: { 'retry-after': value },
            body: f.kind === 'github' ? GH_ERROR('Too many requests') : { message: 'Retry later' },
          }
        : undefined;
    const before = Math.floor(Date.now() / 1000);
    let { r } = await measure(f, limited('100000000000000000000'));
    const after = Math.floor(Date.now() / 1000);
    // GitHub documents a 429 with Retry-After as its secondary limit.
    const what = f.kind === 'github' ? 'secondary rate limit' : 'rate limit';
    // Every second the answer may have come in (a busy machine takes more than one), and the
    // second after the last: the client rounds "now" up (resetAtOf's Math.ceil), so an answer
    // at 12:03:59.5 resets a day after 12:04:00.
    const said = Array.from(
      { length: after - before + 2 },
      (_, i) => `${f.label}: 429 ${what}, resets ${resetWording(before + i + MAX_RESET_SECONDS)}`,
    );
    expect(said).toContain(r.measurements[0]!.evidence.RELEASES);
    ({ r } = await measure(f, limited('-5')));
    // Not a delay RFC 9110 allows: read as no Retry-After, so not GitHub's secondary limit either.
    expect(r.measurements[0]!.evidence.RELEASES).toBe(`${f.label}: 429 rate limit`);
  });
});

describe('GitHub run list split', () => {
  it(
    'stops at one hour when every range reports more than 1,000 runs: CI_PIPELINE null, 15 requests (R3-10)',
    async () => {
      const f = FORGES[0]!;
      const { r, server } = await measure(f, (t) =>
        t === '/repos/{owner}/{repo}/actions/runs'
          ? { status: 200, body: { total_count: 5000, workflow_runs: [] } }
          : undefined,
      );
      // The month-wide first query (2025-11-01 to 2026-11-30) reports 5,000 too, so the window
      // itself is split: (2025-11-25, 2026-11-25] is 31,536,000 s; the first half of each range,
      // rounded up, goes 15,768,000 … 3,850 and 1,925 s: the fifteenth range is under an hour
      // and still full. 1 + 15 requests.
      expect(calls(server, '/actions/runs')).toHaveLength(16);
      expect(r.measurements[0]!.values.CI_PIPELINE).toBeNull();
      expect(r.measurements[0]!.evidence.CI_PIPELINE).toBe(
        'GitHub API: 1000 runs or more from 2025-11-25T00:00:01Z to 2025-11-25T00:32:05Z, as many as one query answers at most; ranges are split no finer than 1 hour',
      );
      expect(r.measurements[0]!.values.RELEASES).not.toBeNull();
    },
    BOUND_SAFETY_NET_MS,
  );
});

describe('Gitea/Forgejo run list', () => {
  it(
    'a total_count never reached ends at maxPagesPerList: CI_PIPELINE null, 5 requests (R3-10)',
    async () => {
      const f = FORGES[2]!;
      let first: Reply | undefined;
      const { r, server } = await measure(
        f,
        (t, _q, _n, normal) => {
          if (t !== '/repos/{owner}/{repo}/actions/runs') return undefined;
          const answer = (first ??= normal());
          return { ...answer, body: { ...(answer.body as object), total_count: 1_000_000 } };
        },
        { maxPagesPerList: 5 },
      );
      expect(calls(server, '/actions/runs')).toHaveLength(5);
      expect(r.measurements[0]!.values.CI_PIPELINE).toBeNull();
      expect(r.measurements[0]!.evidence.CI_PIPELINE).toBe(
        'Forgejo/Gitea API: /repos/acme/widget/actions/runs has more than 5 pages (maxPagesPerList); not read to its end',
      );
    },
    BOUND_SAFETY_NET_MS,
  );
});

describe('Retry-After as RFC 9110 reads it', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  it('takes delay-seconds and the three HTTP-date forms, clamped to a day; refuses the rest', () => {
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds('100000000000000000000', now)).toBe(86_400);
    expect(retryAfterSeconds('Wed, 25 Nov 2026 12:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Wednesday, 25-Nov-26 12:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Wed Nov 25 12:01:30 2026', now)).toBe(90);
    expect(retryAfterSeconds('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(0);
    expect(retryAfterSeconds('Fri, 25 Nov 2050 12:00:00 GMT', now)).toBe(86_400);
    for (const bad of [
      '-5',
      '1.5',
      '1e3',
      'soon',
      '',
      '2026-11-25T12:01:30Z',
      'Wed, 25 Nov 2026 12:01:30 +0000',
    ])
      expect(retryAfterSeconds(bad, now)).toBeUndefined();
  });
});
