// `npx tsx scripts/unused-exports.ts`: lists the names a module of src/ exports that no other
// file of src/, test/, scripts/ or bin/ imports — an export used only in its own file says
// "others depend on this" when none do, and hides dead code from the compiler's unused-locals
// check. test/unused-exports.test.ts runs it on the tree. TypeScript 7 has no compiler API, so
// it reads the import statements themselves: `import { … } from`, `export { … } from`, and for
// `import('…')` and `import * as` every word of the importing file that the target exports.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Exported though no file imports them, on purpose: run by a platform (named by a bundler's
 * entry point), or one of the shapes a module exists to describe — the config's and the
 * loaded store's types, the measured-rule table's entry, the registry's forge kinds — which
 * read oddly with a few of their siblings hidden.
 */
const DELIBERATE: ReadonlySet<string> = new Set([
  'src/resolver/adapter/cloudfront/viewer-request.ts handler',
  'src/resolver/adapter/lambda-edge/index.ts handler',
  'src/config/types.ts LevelDefB',
  'src/config/types.ts GitOnlyHost',
  'src/config/types.ts SiteLook',
  'src/load/types.ts Severity',
  'src/model/measured-rules.ts RuleSource',
  'src/model/measured-rules.ts ValueKind',
  'src/model/measured-rules.ts WindowSettings',
  'src/model/measured-rules.ts EvidenceWording',
  'src/model/measured-rules.ts MeasuredRule',
  'src/measure/forge/registry.ts ForgeKind',
]);

export interface UnusedExport {
  readonly file: string;
  readonly line: number;
  readonly name: string;
}

const DECLARATION =
  /^export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;
const NAMED = /\b(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g;
const WHOLE =
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|\bimport\s+\*\s+as\s+\w+\s+from\s*['"]([^'"]+)['"]/g;

/** The src/ module a specifier written in `from` names, or undefined (a package, node:). */
function target(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const path = normalize(join(dirname(from), specifier))
    .split('\\')
    .join('/');
  // scripts/compile.mjs imports what tsc compiled: lib/x.js is src/x.ts.
  return path.replace(/^lib\//, 'src/').replace(/\.js$/, '.ts');
}

/** The exports of src/ that no other file imports; `files` maps repository paths to text. */
export function unusedExports(files: ReadonlyMap<string, string>): UnusedExport[] {
  const imported = new Set<string>();
  const exportsOf = new Map<string, string[]>();
  for (const [file, text] of files) {
    if (!file.startsWith('src/')) continue;
    exportsOf.set(
      file,
      [...text.matchAll(DECLARATION)].map((m) => m[1]!),
    );
  }
  for (const [file, text] of files) {
    for (const m of text.matchAll(NAMED)) {
      const module = target(file, m[2]!);
      if (module === undefined || module === file) continue;
      for (const part of m[1]!.split(',')) {
        const name = part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0]!;
        if (name) imported.add(`${module} ${name}`);
      }
    }
    for (const m of text.matchAll(WHOLE)) {
      const module = target(file, (m[1] ?? m[2])!);
      if (module === undefined || module === file) continue;
      const words = new Set(text.match(/[A-Za-z_$][\w$]*/g));
      for (const name of exportsOf.get(module) ?? []) {
        if (words.has(name)) imported.add(`${module} ${name}`);
      }
    }
  }
  const unused: UnusedExport[] = [];
  for (const [file, text] of files) {
    if (!exportsOf.has(file)) continue;
    for (const m of text.matchAll(DECLARATION)) {
      const key = `${file} ${m[1]!}`;
      if (imported.has(key) || DELIBERATE.has(key)) continue;
      unused.push({ file, line: text.slice(0, m.index).split('\n').length, name: m[1]! });
    }
  }
  return unused;
}

/** The code files of src/, test/, scripts/ and bin/ under `root`, by path from `root`. */
export function codeFiles(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of ['src', 'test', 'scripts', 'bin']) {
    for (const f of readdirSync(join(root, dir), { recursive: true }) as string[]) {
      if (!/\.(ts|mts|js|mjs)$/.test(f) || f.endsWith('.d.ts')) continue;
      const path = `${dir}/${f.split('\\').join('/')}`;
      files.set(path, readFileSync(join(root, path), 'utf8'));
    }
  }
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const unused = unusedExports(codeFiles(fileURLToPath(new URL('..', import.meta.url))));
  for (const u of unused) console.log(`${u.file}:${u.line}: ${u.name} is exported, never imported`);
  process.exitCode = unused.length > 0 ? 1 : 0;
}
