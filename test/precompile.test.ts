// The compiled CLI validates only with the validators scripts/compile.mjs wrote into lib/
// (src/precompile.ts names the schemas): a schema added to src/ and not named there would
// fail only in the compiled CLI, and only on the input it checks. This test sees it first.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { precompiledFiles } from '../src/precompile.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function schemaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? schemaFiles(join(dir, e.name))
      : e.name.endsWith('.schema.json')
        ? [join(dir, e.name)]
        : [],
  );
}

/** Runs a CommonJS text as the module at `path` would run, and returns its exports. */
function moduleExports(path: string, text: string): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  new Function('exports', 'require', 'module', text)(module.exports, createRequire(path), module);
  return module.exports;
}

describe('precompiled validators', () => {
  it('every JSON schema in src/ has a validator in the code written for lib/', () => {
    const ids = schemaFiles(join(ROOT, 'src')).map(
      (f) =>
        [relative(ROOT, f), (JSON.parse(readFileSync(f, 'utf8')) as { $id: string }).$id] as const,
    );
    expect(ids.length).toBeGreaterThanOrEqual(5);
    const exported = new Map<string, unknown>();
    for (const { path, text } of precompiledFiles().filter((f) => f.path.endsWith('.cjs'))) {
      for (const [id, fn] of Object.entries(moduleExports(path, text))) exported.set(id, fn);
    }
    for (const [file, id] of ids)
      expect(typeof exported.get(id), `${file} (${id}) is not named in src/precompile.ts`).toBe(
        'function',
      );
  });
});
