// The evaluate and render steps as later stages see them: what a RepositoryEvaluation holds
// for each moment the site answers, and what the build tells about each OutputFile (plan,
// pages and incremental builds read these instead of parsing keys back).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config/resolve.ts';
import type { RepositoryHistory, ScanRecord } from '../src/load/types.ts';
import { atKey, expiredAtKey, indexKey, latestKey, type Resource } from '../src/model/layout.ts';
import { loadShape } from '../src/pipeline/stages.ts';
import { ROOT } from './helpers/cli.ts';

const URL_A = 'https://github.com/acme/widget';
const DAY = 86400;
const T1 = 1_760_000_000;
const T2 = T1 + 10 * DAY;

function scan(timestamp: number, values: ScanRecord['values']): ScanRecord {
  return {
    kind: 'scan',
    repositoryUrl: URL_A,
    timestamp,
    values,
    evidence: {},
    source: `test:${timestamp}`,
  };
}

const history: RepositoryHistory = {
  repositoryUrl: URL_A,
  encoded: encodeURIComponent(URL_A),
  scans: [scan(T1, { ISSUE_REACTION_TIME: 1 }), scan(T2, { ISSUE_REACTION_TIME: 9 })],
  grants: [],
};

async function shapeA(expireAfterDays: number | null) {
  const config = await resolveConfig(undefined, { store: 'unused', out: 'unused' });
  config.settings.expireAfterDays = expireAfterDays;
  return loadShape(config);
}

function keyOf(f: {
  scope: string;
  resource: Resource | { kind: 'index' };
  scanTimestamp?: number;
}): string {
  if (f.resource.kind === 'index') return indexKey(history.encoded);
  if (f.scope === 'latest') return latestKey(history.encoded, f.resource);
  return (f.scope === 'expired-scan' ? expiredAtKey : atKey)(
    history.encoded,
    f.scanTimestamp!,
    f.resource,
  );
}

describe('evaluate step', () => {
  it('Shape A without expiry: one evaluation per scan, latest is the newest scan itself', async () => {
    const { evaluator } = await shapeA(null);
    const e = evaluator.evaluate(history, T2 + 400 * DAY);
    expect(e.shape).toBe('A');
    expect(e.scans.map((s) => s.timestamp)).toEqual([T1, T2]);
    expect(e.expired).toBeUndefined();
    expect(e.expireAfterSeconds).toBeUndefined();
    expect(e.latest).toBe(e.scans[1]);
    expect(e.badgeIds.length).toBeGreaterThan(0);
  });

  it('Shape A with expireAfterDays: expired variants per scan, and latest expired once now is past the limit', async () => {
    const { evaluator } = await shapeA(30);
    const fresh = evaluator.evaluate(history, T2 + DAY);
    expect(fresh.expireAfterSeconds).toBe(30 * DAY);
    expect(fresh.expired!.map((x) => x.badges.every((b) => b.status === 'expired'))).toEqual([
      true,
      true,
    ]);
    expect(fresh.scans.some((x) => x.badges.some((b) => b.status === 'expired'))).toBe(false);
    expect(fresh.latest).toBe(fresh.scans[1]);
    const stale = evaluator.evaluate(history, T2 + 31 * DAY);
    expect(stale.latest).not.toBe(stale.scans[1]);
    expect(stale.latest.badges.every((b) => b.status === 'expired')).toBe(true);
  });

  it('Shape B: latest is the newest scan (grants apply as of the scan, not now)', async () => {
    const { evaluator } = loadShape(
      await resolveConfig(join(ROOT, 'examples/shape-b/badgepress.yaml')),
    );
    const e = evaluator.evaluate(history, T2 + 400 * DAY);
    expect(e.shape).toBe('B');
    expect(e.latest).toBe(e.scans[1]);
  });
});

describe('render step', () => {
  it('every OutputFile says which repository, resource, scope and scan it holds, matching its key', async () => {
    const { evaluator, renderer } = await shapeA(30);
    const files = renderer.render(evaluator.evaluate(history, T2 + 31 * DAY));
    expect(new Set(files.map((f) => f.scope))).toEqual(
      new Set(['scan', 'expired-scan', 'index', 'latest']),
    );
    for (const f of files) {
      expect(f.repositoryUrl).toBe(URL_A);
      expect(f.key).toBe(keyOf(f));
      if (f.scope === 'latest') expect(f.scanTimestamp).toBe(T2);
      if (f.scope === 'index') expect(f.scanTimestamp).toBeUndefined();
      if (f.resource.kind === 'explanation' && f.scope !== 'index') {
        const expired = JSON.parse(f.body).badgeStatus === 'expired';
        expect(expired).toBe(f.scope === 'expired-scan' || f.scope === 'latest');
      }
    }
  });

  it('a renderer refuses an evaluation of the other shape', async () => {
    const { renderer } = await shapeA(null);
    const b = loadShape(
      await resolveConfig(join(ROOT, 'examples/shape-b/badgepress.yaml')),
    ).evaluator.evaluate(history, T2);
    expect(() => renderer.render(b)).toThrow(/Shape A renderer was handed a Shape B evaluation/);
  });
});
