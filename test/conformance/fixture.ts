// The sites every adapter is tested against: the example store built into a temp dir, plus a
// repository whose index expires badges after one day (Shape A), and the Shape B example
// (badge levels) built beside it. A conformance request names its site (A unless it says B).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSite } from '../helpers/site.ts';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

export const WIDGET = 'https%3A%2F%2Fgithub.com%2Facme%2Fwidget';
export const WIDGET_TIMES = [1760000000, 1761000000, 1762000000, 1763000000, 1763596800];
export const EXPIRING = encodeURIComponent('https://example.org/expiring/repo');
/** A host beyond ASCII: stored, as the build writes it, under its punycode form. */
export const BUCHER = encodeURIComponent('https://xn--bcher-kva.example/acme/books');
const NOW = 1763600000;

export type SiteName = 'A' | 'B';
/** Two built sites side by side under one directory: `<root>/site` (A), `<root>/site-b` (B). */
export interface ConformanceSites {
  root: string;
  A: string;
  B: string;
}

/** The Shape A site alone (the hostile-input tests need no other). */
export async function conformanceSite(): Promise<string> {
  const out = join(tempDir('badgepress-conformance-'), 'site');
  await buildShapeA(out);
  return out;
}

export async function conformanceSites(): Promise<ConformanceSites> {
  const root = tempDir('badgepress-conformance-');
  const sites = { root, A: join(root, 'site'), B: join(root, 'site-b') };
  await buildShapeA(sites.A);
  await buildSite({
    config: join(ROOT, 'examples/shape-b/badgepress.yaml'),
    store: join(ROOT, 'examples/shape-b/store'),
    out: sites.B,
    now: NOW,
  });
  return sites;
}

async function buildShapeA(out: string): Promise<void> {
  // The packaged settings plus the opt-in files: two more badge styles and code scanning.
  const config = join(tempDir('badgepress-conformance-config-'), 'badgepress.yaml');
  writeFileSync(config, 'codeScanning: true\nstyles: [flat, for-the-badge, social]\n');
  await buildSite({ config, store: join(ROOT, 'examples/store'), out, now: NOW });
  const dir = join(out, 'api/v1/repositories', EXPIRING);
  mkdirSync(join(dir, 'at/1760000000/expired/badges'), { recursive: true });
  writeFileSync(
    join(dir, 'index.json'),
    JSON.stringify({
      repositoryUrl: 'https://example.org/expiring/repo',
      timestamps: [1760000000],
      badges: ['MAINTENANCE'],
      expireAfterSeconds: 86400,
    }),
  );
  writeFileSync(
    join(dir, 'at/1760000000/expired/badges/MAINTENANCE.svg'),
    '<svg xmlns="http://www.w3.org/2000/svg"><title>MAINTENANCE: expired</title></svg>',
  );
  const books = join(out, 'api/v1/repositories', BUCHER);
  mkdirSync(join(books, 'at/1760000000/badges'), { recursive: true });
  // As this site's build writes an index: with the styles it renders.
  writeFileSync(
    join(books, 'index.json'),
    JSON.stringify({
      repositoryUrl: 'https://xn--bcher-kva.example/acme/books',
      timestamps: [1760000000],
      badges: ['MAINTENANCE'],
      styles: ['flat', 'for-the-badge', 'social'],
    }),
  );
  writeFileSync(
    join(books, 'at/1760000000/badges/MAINTENANCE.svg'),
    '<svg xmlns="http://www.w3.org/2000/svg"><title>MAINTENANCE: books</title></svg>',
  );
}
