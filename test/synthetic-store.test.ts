// scripts/lib/synthetic-store.ts: the same seed gives the same store, another seed another,
// and what it writes builds without problems in both shapes.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { buildSite, readTree } from './helpers/site.ts';
import { expectEverySarifValid } from './helpers/sarif.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const store = join(dir, 'store');
generateStore({ repos: 40, scans: 3, out: store, seed: 7 });

describe('the synthetic store generator', () => {
  it('is deterministic and builds without problems', async () => {
    const again = join(dir, 'store-again');
    generateStore({ repos: 40, scans: 3, out: again, seed: 7 });
    expect(readTree(again)).toEqual(readTree(store));
    const other = join(dir, 'store-other');
    generateStore({ repos: 40, scans: 3, out: other, seed: 8 });
    expect(readTree(other)).not.toEqual(readTree(store));
    const { issues, summary } = await buildSite({ store, out: join(dir, 'gen-out') });
    expect(issues).toEqual([]);
    expect(summary.scans).toBe(120);
    // 40 synthetic repositories × 3 scans: every report valid SARIF
    expect(expectEverySarifValid(join(dir, 'gen-out'))).toBe(40 * 4);
    const b = join(dir, 'store-b');
    generateStore({ repos: 10, scans: 2, out: b, shape: 'B' });
    const built = await buildSite({ store: b, out: join(dir, 'gen-out-b'), shape: 'B' });
    expect(built.issues).toEqual([]);
  });
});
