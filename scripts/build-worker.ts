// Bundles the Worker with esbuild: one minified ES module, small enough for an edge runtime.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

export const WORKER_ENTRY = fileURLToPath(new URL('../src/resolver/adapter/worker/index.ts', import.meta.url));

export async function bundleWorker(outfile?: string): Promise<string> {
  const result = await build({
    entryPoints: [WORKER_ENTRY],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: outfile !== undefined,
    ...(outfile ? { outfile } : {}),
    legalComments: 'none',
  });
  return outfile ?? result.outputFiles![0]!.text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? 'dist-worker/worker.js';
  await bundleWorker(out);
  const { statSync } = await import('node:fs');
  process.stdout.write(`worker bundle: ${out} (${statSync(out).size} bytes)\n`);
}
