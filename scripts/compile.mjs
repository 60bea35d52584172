// Compiles src/ to lib/ (plain JavaScript, the same folder layout, so the paths the code finds
// at run time — config/, templates/, package.json two folders up — hold for both). Runs as
// `prepare` (npm install/ci in a checkout, npm pack) and before the tests (test/helpers/
// compile-cli.ts), so it must be quick and offline: tsc emits without type-checking
// (--noCheck; `npm run typecheck` checks), in about a second. Then the compiled lib/precompile.js
// writes what each start would otherwise compute (validator code, the parsed OpenAPI template).
// Plain .mjs: it runs before anything else is built, without tsx.
//
// TypeScript is a dev dependency: `npm ci --omit=dev` in a checkout installs no compiler, yet
// a production checkout needs lib/. Then the compiler is fetched for this one run by
// `npm exec`, at the version package-lock.json pins, into npm's cache (not node_modules).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const LIB = join(ROOT, 'lib');
const INPUTS = ['src', 'templates/openapi.yaml', 'tsconfig.json', 'tsconfig.build.json'];

function newestChange(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(path, { recursive: true }).reduce((t, name) => Math.max(t, statSync(join(path, name)).mtimeMs), s.mtimeMs);
}

/** Whether lib/ is older than any source (a moved or deleted source changes its folder's time). */
export function libIsStale() {
  const compiled = join(LIB, 'cli.js');
  // A compile killed between tsc and the precompiled files leaves lib/ without them.
  const precompiled = ['config/validators-config.cjs', 'config/validators-record.cjs', 'config/openapi-template.json'];
  if (![compiled, ...precompiled.map((f) => join(LIB, f))].every((f) => existsSync(f))) return true;
  const built = statSync(compiled).mtimeMs;
  return INPUTS.some((p) => newestChange(join(ROOT, p)) > built);
}

/** Inside an npm script, the npm that runs it; elsewhere the one on PATH. */
export function npmCommand() {
  return process.env.npm_execpath?.endsWith('.js') ? [process.execPath, process.env.npm_execpath] : ['npm'];
}

/** The command that runs tsc: the installed one, or the locked version through npm exec. */
function tscCommand() {
  try {
    const pkg = createRequire(import.meta.url).resolve('typescript/package.json');
    return [process.execPath, join(dirname(pkg), 'bin', 'tsc')];
  } catch {
    const version = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages['node_modules/typescript']?.version;
    if (!version) throw new Error('TypeScript is not installed and package-lock.json pins no version of it: run "npm ci" (with the dev dependencies)');
    process.stderr.write(`badgepress: TypeScript is not installed (a dev dependency); compiling with typescript@${version} through npm exec\n`);
    // --noCheck emits without type-checking, so the missing @types/node (another dev
    // dependency) is not looked for.
    return [...npmCommand(), 'exec', '--yes', `--package=typescript@${version}`, '--', 'tsc', '--types', ''];
  }
}

/** A fresh lib/: removed first, so a source that moved leaves no stale module behind. */
export async function compile() {
  const [command, ...args] = tscCommand();
  rmSync(LIB, { recursive: true, force: true });
  const r = spawnSync(command, [...args, '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck'], { cwd: ROOT, encoding: 'utf8' });
  if (r.error) throw new Error(`could not run ${command}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
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
