// vitest globalSetup: the tests run the compiled CLI (lib/cli.js), as an install does, so it is
// compiled once before any test when a source changed since (about a second; a spawn through
// tsx costs that much every time).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const script = fileURLToPath(new URL('../../scripts/compile.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [script, '--if-stale'], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`compiling the CLI for the tests failed:\n${r.stdout}${r.stderr}`);
}
