// Bundles the Worker with esbuild: one minified ES module, small enough for an edge runtime.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

export const WORKER_ENTRY = fileURLToPath(
  new URL('../src/resolver/adapter/worker/index.ts', import.meta.url),
);

/**
 * Properties of the resolver's own objects (routes, lookups, resources, options), shortened
 * in the bundle to keep it within the 10 KB budget. Only names the bundle never reads or
 * writes on an object the runtime or the store hands over or receives (Request, Response, R2
 * objects, env, the stored index.json, problem bodies) may be listed: a listed name is renamed
 * everywhere in the bundle, quoted ones and `'name' in x` included. `ok` and `body` are names
 * of a fetch Response too, but the Worker reads only its status, headers and arrayBuffer(),
 * and hands its own answer's body to new Response() as an argument. The conformance table
 * runs the bundle.
 */
export const INTERNAL_PROPERTY_NAMES = [
  'kind',
  'key',
  'timestamp',
  'encoded',
  'badgeId',
  'resource',
  'target',
  'latestMaxAge',
  'immutableMaxAge',
  'ifNoneMatch',
  'accept',
  'contentType',
  'immutable',
  'reason',
  'problem',
  'fact',
  'expired',
  'page',
  'response',
  'at',
  'style',
  'query',
  'path',
  'ok',
  'body',
];

/** The names to shorten, as esbuild's mangleProps takes them. */
export const internalProperties = (names: readonly string[]): RegExp =>
  new RegExp(`^(${names.join('|')})$`);

export const INTERNAL_PROPERTIES = internalProperties(INTERNAL_PROPERTY_NAMES);

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
    mangleProps: INTERNAL_PROPERTIES,
    mangleQuoted: true,
  });
  return outfile ?? result.outputFiles![0]!.text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? 'dist-worker/worker.js';
  await bundleWorker(out);
  const { statSync } = await import('node:fs');
  process.stdout.write(`worker bundle: ${out} (${statSync(out).size} bytes)\n`);
}
