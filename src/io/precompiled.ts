// Results the compiled CLI would otherwise compute at every start (ajv's validator code, the
// parsed OpenAPI template): scripts/compile.mjs writes them into lib/ beside the module that
// uses them (see src/precompile.ts). A run from source (tsx, the tests in-process) finds none
// and computes them itself.
import { createRequire } from 'node:module';

/**
 * The CommonJS module or JSON file `file` beside the module at `moduleUrl`, or undefined when
 * there is none. A module that is there but fails to load throws.
 */
export function precompiled<T>(moduleUrl: string, file: string): T | undefined {
  const require = createRequire(moduleUrl);
  let path: string;
  try {
    path = require.resolve(file);
  } catch {
    return undefined;
  }
  return require(path) as T;
}
