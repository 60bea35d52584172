// A host's repositories in flight from its rate limit (issue 33 item 5, `scan.perHost: auto`):
// all of scan.concurrency while the window's budget keeps the pool's pace until the reset,
// fewer in proportion when not, at least 1. Figures worked out by hand.
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { forgeFor } from '../src/measure/forge/index.ts';
import { hostConcurrency } from '../src/measure/http/client.ts';
import type { ForgeRequest } from '../src/measure/types.ts';
import { startGitHub } from '../scripts/lib/forge-peers/github.ts';
import type { ForgeServer } from '../scripts/lib/forge-peers/server.ts';

const NOW = 1_800_000_000_000;

describe('hostConcurrency', () => {
  it('gives the whole ceiling before any answer, and while the budget keeps the pace', () => {
    expect(hostConcurrency(4, 1, 10, [undefined], NOW)).toBe(4);
    // 36,000 left for an hour: 10 a second, the pace itself.
    expect(
      hostConcurrency(4, 1, 10, [{ remaining: 36_000, resetAtMs: NOW + 3_600_000 }], NOW),
    ).toBe(4);
  });

  it('lowers it in proportion when the budget cannot keep the pace until the reset', () => {
    // 18,000 left for an hour: 5 a second of a pace of 10, half of 4.
    expect(
      hostConcurrency(4, 1, 10, [{ remaining: 18_000, resetAtMs: NOW + 3_600_000 }], NOW),
    ).toBe(2);
    // Two tokens at 10 a second: one spent (0 left for 10 minutes), the other full: 10 of 20.
    expect(
      hostConcurrency(8, 2, 10, [{ remaining: 0, resetAtMs: NOW + 600_000 }, undefined], NOW),
    ).toBe(4);
  });

  it('never below 1, and a window already reset counts as full', () => {
    expect(hostConcurrency(4, 1, 10, [{ remaining: 10, resetAtMs: NOW + 3_600_000 }], NOW)).toBe(1);
    expect(hostConcurrency(4, 1, 10, [{ remaining: 0, resetAtMs: NOW - 1000 }], NOW)).toBe(4);
  });

  it('an unpaced host (requestsPerSecond 0) gets the whole ceiling', () => {
    expect(hostConcurrency(4, 1, 0, [{ remaining: 1, resetAtMs: NOW + 3_600_000 }], NOW)).toBe(4);
  });
});

let server: ForgeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** acme/widget on `host`, measured at 2026-11-25. */
function requestOn(host: string): ForgeRequest {
  const E = Date.parse('2026-11-25T00:00:00Z') / 1000;
  return {
    target: { url: `https://${host}/acme/widget`, host, path: 'acme/widget', source: 'x' },
    times: [E],
    asOf: E,
    git: { tagNames: new Set() },
    windowMonths: {},
    horizonMonths: 12,
  };
}

describe("a host's measurer", () => {
  it('reads the rate-limit headers of its answers: 100 left for an hour is 1 in flight', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 3600);
    const limited = {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '100',
      'x-ratelimit-reset': reset,
    };
    server = await startGitHub({
      override: (t, _q, _n, normal) =>
        t === '/repos/{owner}/{repo}/releases' ? { ...normal(), headers: limited } : undefined,
    });
    const host = 'ghe.example';
    const forge = forgeFor(
      {
        hosts: {
          [host]: { kind: 'github', apiUrl: server.url, tokenEnv: 'T', requestsPerSecond: 10 },
        },
      },
      { T: 'tok-one' },
    );
    const request = requestOn(host);
    const measurer = forge(request.target)!;
    expect(measurer.inFlight?.(4)).toBe(4);
    // The REST answer says 100 are left for an hour: 0.03 a second of a pace of 10, so 1. The
    // GraphQL answers (a resource of its own, 4,999 left) do not raise it: the tightest counts.
    const r = await measurer.measure(request);
    expect(r.failures).toEqual([]);
    expect(server.requests.some((q) => q.path === '/graphql')).toBe(true);
    expect(measurer.inFlight?.(4)).toBe(1);
  });

  it("with a GitHub App, reads its installation token's budget: 100 left for an hour is 1", async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 3600);
    const limited = {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '100',
      'x-ratelimit-reset': reset,
    };
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    server = await startGitHub({
      app: { id: '7', publicKey },
      releases: [{ tag: 'v1', published: '2026-10-01T00:00:00Z' }],
      override: (t, _q, _n, normal) =>
        t === '/repos/{owner}/{repo}/releases' ? { ...normal(), headers: limited } : undefined,
    });
    const host = 'ghe.example';
    const forge = forgeFor(
      {
        hosts: {
          [host]: {
            kind: 'github',
            apiUrl: server.url,
            appIdEnv: 'A',
            appKeyEnv: 'K',
            requestsPerSecond: 10,
          },
        },
      },
      { A: '7', K: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
    );
    const request = requestOn(host);
    const measurer = forge(request.target)!;
    const r = await measurer.measure(request);
    expect(r.failures).toEqual([]);
    expect(server.requests.some((q) => q.path.endsWith('/releases'))).toBe(true);
    expect(measurer.inFlight?.(4)).toBe(1);
  });
});
