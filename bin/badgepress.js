#!/usr/bin/env -S node --max-semi-space-size=8
// Runs the compiled CLI (lib/, made by `npm install` in a checkout and by `npm pack`): no
// TypeScript compiler stands between the command and its first line of output. In a checkout,
// `npx tsx src/cli.ts` runs the sources directly.
//
// --max-semi-space-size=8 halves V8's young generation (16 of 32 MB): a build allocates fast
// and keeps little, so the larger one only raises the peak (10,000 × 10: 179 → 163 MB) for
// about the same CPU. V8 reads it once, at start-up: only the command line can set it (an `env`
// without -S, e.g. BusyBox's, cannot run this line: run `node bin/badgepress.js` there).
import { existsSync } from 'node:fs';

// Node 20 and older lack what lib/ uses (and 20 is out of maintenance): refuse them by name
// rather than fail later, or worse, not at all (a scheduled run on an old /usr/bin/node).
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `badgepress: Node ${process.versions.node} (${process.execPath}) is not supported: run it with Node 22, 24 or 26\n`,
  );
  process.exit(2);
}

const compiled = new URL('../lib/cli.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write(
    'badgepress: lib/cli.js is missing; in a checkout, run "npm install" (or "npm run compile") first\n',
  );
  process.exit(2);
}
await import(compiled.href);
