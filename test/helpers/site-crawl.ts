// Builds the example sites with pages and crawls them through `serve`, for the page tests.
import { join } from 'node:path';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { ROOT } from './cli.ts';
import { runCommand } from './cli-in-process.ts';
import { startServing, type Serving } from '../../src/commands/serve.ts';

export const NOW = '1763600000';

/** `badgepress build --now NOW …`, in this process (the `site` steps spawn the CLI); throws with its output when it fails. */
export async function runBuild(args: string[]): Promise<string> {
  const r = await runCommand(['build', '--now', NOW, ...args]);
  if (r.code !== 0)
    throw new Error(`build ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

export const HOSTILE = {
  script: '<script>alert(1)</script>',
  svg: '"><svg onload=alert(2)>',
  bidi: '\u202Egnp.exe\u202C',
};

/** A Shape B store whose URLs, evidence and grant notes carry hostile strings (2 KB included). */
export function hostileStoreB(dir: string): string {
  const store = join(dir, 'hostile-store');
  mkdirSync(store, { recursive: true });
  const long = `x${'A'.repeat(2048)}`;
  const urls = [
    `https://github.com/evil/${HOSTILE.script}`,
    `https://github.com/evil/${HOSTILE.svg}`,
    `https://github.com/evil/${HOSTILE.bidi}`,
  ];
  const lines = urls.flatMap((u, i) => [
    {
      repositoryUrl: u,
      timestamp: 1760000000 + i,
      values: { COMMITS: 7, ISSUE_REACTION_TIME: 2, RELEASES: 1, PACKAGES: 1, CI_PIPELINE: 3 },
      evidence: {
        RELEASES: `${HOSTILE.script} ${HOSTILE.svg} ${HOSTILE.bidi} https://example.org/${long}`,
      },
    },
    {
      kind: 'grant',
      repositoryUrl: u,
      ruleId: 'MANUAL/Project is open source',
      granted: true,
      timestamp: 1750000000,
      by: HOSTILE.svg,
      note: `${HOSTILE.script} ${HOSTILE.bidi} ${long}`,
    },
  ]);
  writeFileSync(join(store, 'evil.ndjson'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return store;
}

export function shapeBConfig(dir: string): string {
  // The example's config, with paths that hold from a temporary directory.
  const cfg = join(dir, 'b.yaml');
  writeFileSync(
    cfg,
    `shape: B\nthresholds:\n  B: ${join(ROOT, 'examples/shape-b/thresholds-b.yaml')}\ndecisions: ${join(ROOT, 'examples/shape-b/decisions')}\n`,
  );
  return cfg;
}

export { copyFileSync };

export interface Crawl {
  /** Site path → status, content type, body (text) */
  visited: Map<string, { status: number; type: string; body: string; csp: string | undefined }>;
  external: Set<string>;
}

function linksOf(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/\s(?:href|src|data-index)="([^"]*)"/g))
    out.push(
      m[1]!
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>'),
    );
  return out;
}

/** Breadth-first from `/`: every page, asset and file a page links to, fetched once. */
export async function crawl(base: string): Promise<Crawl> {
  const visited: Crawl['visited'] = new Map();
  const external = new Set<string>();
  const queue = ['/'];
  const origin = new URL(base).origin;
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (visited.has(path)) continue;
    const res = await fetch(`${origin}${path}`, {
      headers: { accept: 'text/html,*/*' },
      redirect: 'manual',
    });
    const type = res.headers.get('content-type') ?? '';
    const body = await res.text();
    visited.set(path, {
      status: res.status,
      type,
      body,
      csp: res.headers.get('content-security-policy') ?? undefined,
    });
    if (!type.startsWith('text/html')) continue;
    for (const link of linksOf(body)) {
      if (link.startsWith('#')) continue;
      const u = new URL(link, `${origin}${path}`);
      if (u.origin !== origin) {
        external.add(u.href);
        continue;
      }
      const p = u.pathname + u.search;
      if (!visited.has(p)) queue.push(p);
    }
  }
  return { visited, external };
}

export async function serveDir(dir: string): Promise<Serving> {
  return startServing(dir, 0, '127.0.0.1');
}
