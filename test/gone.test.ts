// src/publish/gone.ts: which repositories have files published but left the store, their keys
// under both prefixes, and removing them (on a directory, their emptied directories too).
// A real directory is the sink; a listing-only sink (as S3 is) is the same sink without
// `children`, so the listing fallback is read too.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DirectorySink } from '../src/publish/dir-sink.ts';
import {
  goneRepositories,
  keysOfRepository,
  publishedRepositories,
  removeRepositories,
  repositoryOfSegment,
  type StoreKnowledge,
} from '../src/publish/gone.ts';
import type { Sink } from '../src/publish/sink.ts';
import { tempDir } from './helpers/tmp.ts';

const A = 'https://github.com/acme/a';
const B = 'https://codeberg.org/acme/b';
const C = 'https://gitlab.com/g/sub/c';
const enc = encodeURIComponent;

const dir = tempDir();
let sites = 0;

/** A site with A (API files and pages), B (API files only), C (pages only) and stray names. */
function site(): string {
  const root = join(dir, `site-${sites++}`);
  const files = [
    `api/v1/repositories/${enc(A)}/index.json`,
    `api/v1/repositories/${enc(A)}/badges/MAINT.svg`,
    `api/v1/repositories/${enc(A)}/at/1763000000/badges/MAINT.svg`,
    `repositories/${enc(A)}/index.html`,
    `api/v1/repositories/${enc(B)}/sarif`,
    `repositories/${enc(C)}/feed.atom`,
    'repositories/page/2/index.html',
    'api/v1/openapi.json',
  ];
  for (const f of files) {
    mkdirSync(dirname(join(root, f)), { recursive: true });
    writeFileSync(join(root, f), 'x');
  }
  return root;
}

/** The same directory seen only through list(), as an object store is. */
function listingOnly(root: string): Sink {
  const inner = new DirectorySink(root);
  return Object.assign(Object.create(inner) as DirectorySink, { children: undefined });
}

describe('repositoryOfSegment', () => {
  it('reads back only a canonical encoded URL with a scheme', () => {
    expect(repositoryOfSegment(enc(A))).toBe(A);
    expect(repositoryOfSegment('page')).toBeUndefined();
    // Decodes to a URL, but is not how the build encodes it.
    expect(repositoryOfSegment('https:%2F%2Fgithub.com%2Facme%2Fa')).toBeUndefined();
    expect(repositoryOfSegment('https%3A%2F%2Fx%E0%A4%A')).toBeUndefined();
  });
});

describe('publishedRepositories and keysOfRepository', () => {
  it('finds repositories under either prefix, stray names left out, through children or a listing', async () => {
    const root = site();
    for (const sink of [new DirectorySink(root), listingOnly(root)]) {
      expect([...(await publishedRepositories(sink))].sort()).toEqual([B, A, C].sort());
      expect([...(await publishedRepositories(sink, (u) => u !== B))].sort()).toEqual(
        [A, C].sort(),
      );
    }
  });

  it('lists every key of a repository, API files and pages', async () => {
    const keys = await keysOfRepository(new DirectorySink(site()), A);
    expect(keys.sort()).toEqual(
      [
        `api/v1/repositories/${enc(A)}/at/1763000000/badges/MAINT.svg`,
        `api/v1/repositories/${enc(A)}/badges/MAINT.svg`,
        `api/v1/repositories/${enc(A)}/index.json`,
        `repositories/${enc(A)}/index.html`,
      ].sort(),
    );
  });
});

describe('removeRepositories', () => {
  it('removes every file and directory of the repositories given, counting files, and nothing else', async () => {
    const root = site();
    const counts = { removed: 0 };
    await removeRepositories(new DirectorySink(root), [A, C], counts);
    expect(counts.removed).toBe(5);
    expect(existsSync(join(root, 'api/v1/repositories', enc(A)))).toBe(false);
    expect(existsSync(join(root, 'repositories', enc(A)))).toBe(false);
    expect(existsSync(join(root, 'repositories', enc(C)))).toBe(false);
    expect(existsSync(join(root, 'api/v1/repositories', enc(B), 'sarif'))).toBe(true);
    expect(existsSync(join(root, 'repositories/page/2/index.html'))).toBe(true);
  });
});

describe('goneRepositories', () => {
  const knowing = (gone: string[] | undefined, present: string[] | undefined): StoreKnowledge => ({
    goneByState: () => (gone ? new Set(gone) : undefined),
    presentRepositories: () => (present ? new Set(present) : undefined),
  });

  it('takes the build state when it tracks them, else the published ones the store no longer names, sorted', async () => {
    const sink = new DirectorySink(site());
    expect(await goneRepositories(sink, knowing([C, A], undefined))).toEqual([A, C].sort());
    expect(await goneRepositories(sink, knowing(undefined, [A]))).toEqual([B, C].sort());
    expect(await goneRepositories(sink, knowing(undefined, [A]), (u) => u !== C)).toEqual([B]);
  });

  it('is undefined when the store could not be read whole: nothing may be removed then', async () => {
    expect(
      await goneRepositories(new DirectorySink(site()), knowing(undefined, undefined)),
    ).toBeUndefined();
  });
});
