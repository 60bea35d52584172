// `npm run lint:layers`: checks the imports of src/ against the layers in
// .dependency-cruiser.cjs. The files are named one by one: without the TypeScript compiler
// API (TypeScript 7 has none) dependency-cruiser does not find .ts files in a folder itself,
// though it reads their imports.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const files = readdirSync(join(ROOT, 'src'), { recursive: true })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => join('src', f))
  .sort();
const cli = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const r = spawnSync(
  process.execPath,
  [cli, '--config', '.dependency-cruiser.cjs', '--output-type', 'err', ...files],
  {
    cwd: ROOT,
    stdio: 'inherit',
  },
);
process.exit(r.status ?? 1);
