// Builds a site in-process from a store directory, for tests that look at the output.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { build, type BuildSummary } from '../../src/pipeline/loop.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import { loadShape } from '../../src/pipeline/stages.ts';
import { DirectoryStore } from '../../src/load/store.ts';
import { DirectorySink } from '../../src/publish/dir-sink.ts';
import type { LoadIssue } from '../../src/load/types.ts';
import type { StoreSource } from '../../src/load/store.ts';
import type { Sink } from '../../src/publish/sink.ts';

export interface BuiltSite {
  summary: BuildSummary;
  issues: LoadIssue[];
}

export async function buildSite(opts: {
  store: string;
  out: string;
  now?: number;
  config?: string;
  shape?: 'A' | 'B';
  prune?: boolean;
  include?: (url: string) => boolean;
  sink?: Sink;
  source?: StoreSource;
}): Promise<BuiltSite> {
  const config = await resolveConfig(opts.config, {
    store: opts.store,
    out: opts.out,
    ...(opts.shape ? { shape: opts.shape } : {}),
  });
  const { settings } = config;
  const shape = loadShape(config);
  const issues: LoadIssue[] = [];
  const sink = opts.sink ?? new DirectorySink(opts.out);
  const { summary } = await build({
    shape,
    store: opts.source ?? new DirectoryStore(opts.store),
    sink,
    schemes: settings.repositoryUrlSchemes,
    now: opts.now ?? 1_763_600_000,
    report: (i) => issues.push(i),
    prune: opts.prune ?? false,
    ...(opts.include ? { include: opts.include } : {}),
  });
  if (!opts.sink) await sink.close();
  return { summary, issues };
}

/** Every file under `dir` as key → bytes; the build state (store versions, file times) is bookkeeping, not site, and is left out. */
export function readTree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    const key = relative(dir, path).split(sep).join('/');
    // The build state, and the lease's chain (a build leaves its released generation behind).
    if (key.startsWith('.badgepress/state/') || key.startsWith('.badgepress/lease')) continue;
    out.set(key, readFileSync(path));
  }
  return new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
}
