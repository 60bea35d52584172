// Compiles src/ to lib/ (plain JavaScript, the same folder layout, so the paths the code finds
// at run time — config/, templates/, package.json two folders up — hold for both). Runs as
// `prepare` (npm install/ci in a checkout, npm pack) and before the tests (test/helpers/
// compile-cli.ts), so it must be quick and offline: tsc emits without type-checking
// (--noCheck; `npm run typecheck` checks), in about a second. Then the compiled lib/precompile.js
// writes what each start would otherwise compute (validator code, the parsed OpenAPI template).
// Plain .mjs: it runs before anything else is built, without tsx.
//
// TypeScript is a dev dependency: `npm ci --omit=dev` in a checkout installs no compiler, yet
// a production checkout needs lib/. Then Node itself compiles: src/ uses erasable syntax only
// (tsconfig.json's erasableSyntaxOnly: no enums, namespaces or parameter properties), so
// node:module's stripTypeScriptTypes (Node 22.13+, 24, 26; mode 'strip') removes the types,
// and the relative `.ts` specifiers of imports, exports and dynamic import() become `.js` as
// tsc's rewriteRelativeImportExtensions makes them; the JSON files tsc copies are copied. No
// registry is reached. With TypeScript installed (npm ci), tsc emits as before.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import * as nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const LIB = join(ROOT, 'lib');
const INPUTS = ['src', 'templates/openapi.yaml', 'tsconfig.json', 'tsconfig.build.json'];

function newestChange(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(path, { recursive: true }).reduce(
    (t, name) => Math.max(t, statSync(join(path, name)).mtimeMs),
    s.mtimeMs,
  );
}

/** Whether lib/ is older than any source (a moved or deleted source changes its folder's time). */
export function libIsStale() {
  const compiled = join(LIB, 'cli.js');
  // A compile killed between tsc and the precompiled files leaves lib/ without them.
  const precompiled = [
    'config/validators-config.cjs',
    'config/validators-record.cjs',
    'config/openapi-template.json',
  ];
  if (![compiled, ...precompiled.map((f) => join(LIB, f))].every((f) => existsSync(f))) return true;
  const built = statSync(compiled).mtimeMs;
  return INPUTS.some((p) => newestChange(join(ROOT, p)) > built);
}

/** Inside an npm script, the npm that runs it; elsewhere the one on PATH. */
export function npmCommand() {
  return process.env.npm_execpath?.endsWith('.js')
    ? [process.execPath, process.env.npm_execpath]
    : ['npm'];
}

/** The installed tsc, or undefined when TypeScript is not installed (npm ci --omit=dev). */
function tscCommand() {
  try {
    const pkg = createRequire(import.meta.url).resolve('typescript/package.json');
    return [process.execPath, join(dirname(pkg), 'bin', 'tsc')];
  } catch {
    return undefined;
  }
}

/** A relative `.ts` specifier of an import, export or import() with `.js`, as tsc rewrites it. */
const TS_SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"\n]*?)\.ts\2/g;

/** src/ to lib/ by stripping the types with Node's own stripTypeScriptTypes (no TypeScript needed). */
function stripCompile() {
  const strip = nodeModule.stripTypeScriptTypes;
  if (typeof strip !== 'function') {
    throw new Error(
      `TypeScript is not installed and this Node (${process.version}) cannot strip types itself: use Node 22.13 or later (24, 26), or run "npm ci" with the dev dependencies`,
    );
  }
  const src = join(ROOT, 'src');
  // Node warns that stripTypeScriptTypes is experimental, once a process: not news to the user here.
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) =>
    String(warning).includes('stripTypeScriptTypes')
      ? undefined
      : emitWarning.call(process, warning, ...rest);
  try {
    for (const name of readdirSync(src, { recursive: true })) {
      const from = join(src, name);
      if (!statSync(from).isFile()) continue;
      if (name.endsWith('.d.ts')) continue;
      if (name.endsWith('.ts')) {
        const to = join(LIB, name.replace(/\.ts$/, '.js'));
        mkdirSync(dirname(to), { recursive: true });
        const js = strip(readFileSync(from, 'utf8'), { mode: 'strip' }).replace(
          TS_SPECIFIER,
          (_m, before, quote, path) => `${before}${quote}${path}.js${quote}`,
        );
        writeFileSync(to, js);
      } else if (name.endsWith('.json')) {
        mkdirSync(dirname(join(LIB, name)), { recursive: true });
        copyFileSync(from, join(LIB, name));
      }
    }
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** A fresh lib/: removed first, so a source that moved leaves no stale module behind. */
export async function compile() {
  const tsc = process.env.BADGEPRESS_COMPILE === 'strip' ? undefined : tscCommand();
  rmSync(LIB, { recursive: true, force: true });
  if (tsc) {
    const [command, ...args] = tsc;
    const r = spawnSync(command, [...args, '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (r.error) throw new Error(`could not run ${command}: ${r.error.message}`);
    if (r.status !== 0)
      throw new Error(
        `tsc -p tsconfig.build.json failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`,
      );
  } else {
    stripCompile();
  }
  try {
    const { precompiledFiles } = await import(pathToFileURL(join(LIB, 'precompile.js')).href);
    for (const { path, text } of precompiledFiles()) writeFileSync(path, text);
  } catch (e) {
    // A lib/ without them would pass for built (libIsStale) and be slow at every start.
    rmSync(LIB, { recursive: true, force: true });
    throw e;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-stale') && !libIsStale()) process.exit(0);
  await compile();
}
