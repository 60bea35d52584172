// `npm start`: build the example store into dist/ and serve it, with a badge line to paste.
import { readdirSync } from 'node:fs';
import { buildCommand } from './build.ts';
import { startServing, waitForSignal } from './serve.ts';

export const DEMO_USAGE = 'usage: badgepress demo   (builds examples/store into dist/ and serves it on http://127.0.0.1:8787)';

export async function demoCommand(argv: string[]): Promise<number> {
  const built = await buildCommand(['--out', 'dist', ...argv]);
  if (built === 2) return built;
  const serving = await startServing('dist', 8787, '127.0.0.1');
  const repos = readdirSync('dist/api/v1/repositories').sort();
  const base = `${serving.url}/api/v1/repositories`;
  process.stdout.write(`badgepress: the site is in dist/ and served at ${base}/ (Ctrl+C stops)\n`);
  if (repos[0]) {
    process.stdout.write(
      `\nTry:\n  curl ${base}/${repos[0]}/sarif\n  curl -i "${base}/${repos[0]}/badges/MAINTENANCE.svg?timestamp=1762000000"\n` +
        `\nREADME badge line:\n  [![MAINTENANCE](${base}/${repos[0]}/badges/MAINTENANCE.svg)](${base}/${repos[0]}/badges/MAINTENANCE)\n`,
    );
  }
  await waitForSignal();
  await serving.close();
  return 0;
}
