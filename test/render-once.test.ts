// "Each distinct badge is rendered once per build" at build level: svgo's optimize is watched
// (the real one still runs) over a build of many repositories.
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildSite, readTree } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';
import { generateStore } from '../scripts/lib/synthetic-store.ts';

const optimizeCalls = vi.hoisted(() => ({ count: 0 }));
vi.mock('svgo/browser', async (importOriginal) => {
  const svgo = await importOriginal<typeof import('svgo/browser')>();
  return {
    ...svgo,
    optimize: (...args: Parameters<typeof svgo.optimize>) => {
      optimizeCalls.count++;
      return svgo.optimize(...args);
    },
  };
});

describe('a build renders each distinct badge once', () => {
  it('200 repositories × 3 scans: one svgo call per distinct SVG written', async () => {
    const dir = tempDir();
    const store = join(dir, 'store');
    generateStore({ repos: 200, scans: 3, out: store, seed: 7 });
    const out = join(dir, 'out');
    optimizeCalls.count = 0;
    const { summary } = await buildSite({ store, out });
    expect(summary.repositories).toBe(200);
    const svgs = [...readTree(out)].filter(([k]) => k.endsWith('.svg'));
    expect(svgs.length).toBe(200 * (3 + 1) * 3);
    const distinct = new Set(svgs.map(([, body]) => body.toString())).size;
    expect(distinct).toBeGreaterThan(3);
    expect(optimizeCalls.count).toBe(distinct);
  });
});
