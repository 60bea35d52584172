// `npm run pack`: the package tarball as an installed package needs it. The checkout's
// package.json names scripts and dev dependencies that use src/, test/ and scripts/, none of
// which is shipped; the packed package.json leaves them out, so every script an installed
// package has runs with what it ships (it has none). lib/ is compiled fresh first. Flags after
// `--` go to `npm pack` (--json, --pack-destination DIR).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, npmCommand } from './compile.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const { scripts, devDependencies, allowScripts, ...shipped } = pkg;
await compile();
const stage = mkdtempSync(join(tmpdir(), 'badgepress-pack-'));
try {
  // Never the state, lease or summaries a build or scan run in the checkout left beside an
  // example store (a scan of examples/ leaves examples/store/.badgepress/scan-lease/).
  const notState = (path) => !path.split(sep).includes('.badgepress');
  for (const entry of [...pkg.files, 'README.md', 'LICENSE'])
    cpSync(join(ROOT, entry), join(stage, entry), { recursive: true, filter: notState });
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(shipped, null, 2)}\n`);
  const args = process.argv.slice(2);
  // A relative destination is the caller's, not the stage's.
  const dest = args.indexOf('--pack-destination');
  if (dest >= 0) args[dest + 1] = resolve(args[dest + 1]);
  else args.push('--pack-destination', process.cwd());
  const npm = npmCommand();
  const r = spawnSync(npm[0], [...npm.slice(1), 'pack', '--ignore-scripts', ...args], {
    cwd: stage,
    stdio: 'inherit',
  });
  process.exitCode = r.status ?? 1;
} finally {
  rmSync(stage, { recursive: true, force: true });
}
