// One forge measurement against a stand-in, with the checks every forge test makes: the
// stand-in answered only what its API description allows, and no token reached the result.
import { expect } from 'vitest';
import { forgeFor } from '../../src/measure/forge/index.ts';
import type { ForgeRequest, ForgeResult } from '../../src/measure/types.ts';
import type { ForgeServer } from '../../scripts/lib/forge-peers/server.ts';
import type { HostConfig } from '../../src/config/types.ts';
import { botTest } from '../../src/measure/bots.ts';

export interface MeasureOn {
  kind: HostConfig['kind'];
  host: string;
  path: string;
  /** The pool as the variable holds it: comma-separated. */
  tokens: string;
  times: number[];
  windowMonths?: Record<string, number>;
  tagNames?: string[];
  hostConfig?: Partial<HostConfig>;
  /** Where the repository's answers are kept between scans (a scan's mirrors folder), asked again conditionally. */
  answersDir?: string;
  /** Bytes of kept bodies its file holds at most. */
  keptAnswerBytes?: number;
  /** The scan's bot patterns (scan.botPatterns). */
  botPatterns?: string[];
}

export async function measureOn(server: ForgeServer, o: MeasureOn): Promise<ForgeResult> {
  const hosts = {
    [o.host]: {
      kind: o.kind,
      apiUrl: server.url,
      tokenEnv: 'FORGE_TEST_TOKEN',
      requestsPerSecond: 0,
      timeoutSeconds: 2,
      maxWaitSeconds: 5,
      ...o.hostConfig,
    },
  };
  const kept = {
    ...(o.answersDir !== undefined ? { answersDir: o.answersDir } : {}),
    ...(o.keptAnswerBytes !== undefined ? { keptAnswerBytes: o.keptAnswerBytes } : {}),
  };
  const forge = forgeFor({ hosts, ...kept }, { FORGE_TEST_TOKEN: o.tokens });
  const request: ForgeRequest = {
    target: {
      url: `https://${o.host}/${o.path}`,
      host: o.host,
      path: o.path,
      source: 'repos.txt:1',
    },
    times: o.times,
    // E: the last time asked for, as a scan's request has it.
    asOf: o.times[o.times.length - 1]!,
    git: { tagNames: new Set(o.tagNames ?? []) },
    windowMonths: o.windowMonths ?? {},
    horizonMonths: 12,
    ...(o.botPatterns ? { isBot: botTest(o.botPatterns) } : {}),
  };
  const result = await forge(request.target)!.measure(request);
  expect(server.violations).toEqual([]);
  for (const token of o.tokens.split(',').filter(Boolean))
    expect(JSON.stringify(result)).not.toContain(token);
  return result;
}

/**
 * How a failure line words a reset at `reset` (unix seconds) seen today: "HH:MMZ", with the
 * UTC date in front when the reset falls on a later day (a test run near midnight).
 */
export function resetWording(reset: number): string {
  const at = new Date(reset * 1000).toISOString();
  const today = new Date().toISOString().slice(0, 10);
  return `${at.slice(0, 10) === today ? '' : `${at.slice(0, 10)} `}${at.slice(11, 16)}Z`;
}
