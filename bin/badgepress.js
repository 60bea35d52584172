#!/usr/bin/env node
// Runs the compiled CLI (lib/, made by `npm install` in a checkout and by `npm pack`): no
// TypeScript compiler stands between the command and its first line of output. In a checkout,
// `npx tsx src/cli.ts` runs the sources directly.
import { existsSync } from 'node:fs';

const compiled = new URL('../lib/cli.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write('badgepress: lib/cli.js is missing; in a checkout, run "npm install" (or "npm run compile") first\n');
  process.exit(2);
}
await import(compiled.href);
