// Builds into a directory that holds an earlier build: only files whose bytes change are
// rewritten (inode and mtime tell), and --prune removes exactly the stale files.
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateStore } from '../scripts/lib/synthetic-store.ts';
import { DirectorySink } from '../src/publish/dir-sink.ts';
import type { PutOutcome } from '../src/publish/sink.ts';
import type { OutputFile } from '../src/model/publish-file.ts';
import { buildSite, readTree } from './helpers/site.ts';
import { tempDir } from './helpers/tmp.ts';
import { reusedGoldFrom } from '../scripts/lib/thresholds-variant.ts';

const dir = tempDir();
const store = join(dir, 'store');
generateStore({ repos: 40, scans: 3, out: store, seed: 7 });

/** Every file under `dir`: bytes, inode and mtime (ns), to tell a rewrite from a file left alone. */
function identities(root: string): Map<string, { bytes: Buffer; ino: bigint; mtimeNs: bigint }> {
  return new Map(
    [...readTree(root)].map(([k, bytes]) => {
      const st = statSync(join(root, k), { bigint: true });
      return [k, { bytes, ino: st.ino, mtimeNs: st.mtimeNs }];
    }),
  );
}

/** Files left alone though their bytes changed, or touched though they did not. */
function rewriteViolations(
  before: ReturnType<typeof identities>,
  after: ReturnType<typeof identities>,
): string[] {
  const wrong: string[] = [];
  for (const [k, a] of after) {
    const b = before.get(k);
    if (!b) continue;
    const touched = a.ino !== b.ino || a.mtimeNs !== b.mtimeNs;
    if (a.bytes.equals(b.bytes) === touched)
      wrong.push(
        `${k}: ${touched ? 'rewritten with the same bytes' : 'changed bytes without a rewrite'}`,
      );
  }
  return wrong;
}

/** A sink that writes every file, as a builder without the read-back would. */
class RewritingSink extends DirectorySink {
  override async put(file: OutputFile): Promise<PutOutcome> {
    const path = join(this.location, file.key);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.tmp`, file.body);
    renameSync(`${path}.tmp`, path);
    return 'written';
  }
}

describe('incremental directory builds', () => {
  it('a threshold change rewrites exactly the files whose bytes change: every other file keeps its inode and mtime', async () => {
    const out = join(dir, 'incr');
    await buildSite({ store, out });
    const before = identities(out);
    const config = reusedGoldFrom(join(dir, 'incr-cfg'), 25);
    const { summary } = await buildSite({ store, out, config });
    const after = identities(out);
    expect([...after.keys()]).toEqual([...before.keys()]);
    const changed = [...after.keys()].filter(
      (k) => !before.get(k)!.bytes.equals(after.get(k)!.bytes),
    );
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(after.size / 2);
    expect(summary.written).toBe(changed.length);
    expect(summary.unchanged).toBe(after.size - changed.length);
    expect(rewriteViolations(before, after)).toEqual([]);

    // The check above can fail: a sink that rewrites identical bytes is caught by it.
    const copy = join(dir, 'incr-rewriting');
    await buildSite({ store, out: copy });
    const copyBefore = identities(copy);
    await buildSite({ store, out: copy, config, sink: new RewritingSink(copy) });
    const violations = rewriteViolations(copyBefore, identities(copy));
    expect(violations.length).toBe(after.size - changed.length);
    expect(violations[0]).toMatch(/rewritten with the same bytes/);
  });

  it('--prune removes stale files of known repositories only, and the directories it empties', async () => {
    const out = join(dir, 'prune');
    const config = reusedGoldFrom(join(dir, 'prune-cfg'), 25);
    await buildSite({ store, out, config });
    // Stale files: one of a known repository, one of a neighbour whose URL extends it.
    const known = [...readTree(out).keys()]
      .find((k) => k.startsWith('api/'))!
      .split('/')
      .slice(0, 4)
      .join('/');
    writeFileSync(join(out, known, 'badges', 'OLD.svg'), 'stale');
    const neighbour = `${known}x`;
    mkdirSync(join(out, neighbour), { recursive: true });
    writeFileSync(join(out, neighbour, 'sarif'), 'not ours');
    const pruned = await buildSite({ store, out, config, prune: true });
    expect(pruned.summary.removed).toBe(1);
    expect(pruned.summary.written).toBe(0);
    expect(existsSync(join(out, known, 'badges', 'OLD.svg'))).toBe(false);
    expect(existsSync(join(out, known, 'badges'))).toBe(true);
    expect(readFileSync(join(out, neighbour, 'sarif'), 'utf8')).toBe('not ours');
  });

  it('--prune of a scan that left the store removes its at/<ts>/ directory, never the repository directory', async () => {
    const two = join(dir, 'prune-two-scans');
    mkdirSync(two, { recursive: true });
    const url = 'https://github.com/acme/pruned';
    const line = (timestamp: number) =>
      JSON.stringify({
        repositoryUrl: url,
        timestamp,
        values: { ISSUE_REACTION_TIME: 1, BUS_FACTOR: 4 },
      });
    writeFileSync(join(two, 'r.ndjson'), `${line(1_763_000_000)}\n${line(1_763_100_000)}\n`);
    const out = join(dir, 'prune-site');
    await buildSite({ store: two, out });
    const repoDir = join(out, 'api/v1/repositories', encodeURIComponent(url));
    expect(existsSync(join(repoDir, 'at/1763100000/badges'))).toBe(true);
    writeFileSync(join(two, 'r.ndjson'), `${line(1_763_000_000)}\n`);
    const { summary } = await buildSite({ store: two, out, prune: true });
    expect(summary.removed).toBeGreaterThan(0);
    expect(existsSync(join(repoDir, 'at/1763100000'))).toBe(false);
    expect(existsSync(join(repoDir, 'at/1763000000/badges'))).toBe(true);

    // Removing every file of a repository leaves its (empty) directory and everything above.
    const sink = new DirectorySink(out);
    await sink.remove(
      [...readTree(repoDir).keys()].map(
        (k) => `api/v1/repositories/${encodeURIComponent(url)}/${k}`,
      ),
    );
    expect(readdirSync(repoDir)).toEqual([]);
  });
});
