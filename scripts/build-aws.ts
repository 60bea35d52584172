// Bundles the AWS edge adapters with esbuild:
// - the CloudFront Function: one script defining `function handler(event)`, in the subset of
//   JavaScript that cloudfront-js-2.0 runs (esbuild refuses to emit anything outside it), and
//   within CloudFront's 10 KB code limit;
// - the Lambda@Edge handler: one ES module (index.mjs, handler "index.handler"); the AWS SDK
//   is left out because the Lambda Node.js runtime provides it.
import { build } from 'esbuild';
import { INTERNAL_PROPERTY_NAMES, internalProperties } from './build-worker.ts';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const adapter = (name: string) =>
  fileURLToPath(new URL(`../src/resolver/adapter/${name}`, import.meta.url));

/** Syntax CloudFront Functions do not run (beyond ES 5.1 they add let/const, arrows, rest
 * parameters, template literals, `**` and async/await): esbuild fails the build on any. */
const NOT_IN_CLOUDFRONT_FUNCTIONS = {
  'object-extensions': false,
  destructuring: false,
  'for-of': false,
  'default-argument': false,
  'object-rest-spread': false,
  'optional-chain': false,
  'nullish-coalescing': false,
  'logical-assignment': false,
  class: false,
  generator: false,
  'regexp-lookbehind-assertions': false,
  'regexp-named-capture-groups': false,
  'regexp-sticky-and-unicode-flags': false,
  'regexp-dot-all-flag': false,
} as const;

const BUNDLE = { bundle: true, minify: true, write: false, legalComments: 'none' } as const;

/** The resolver's own property names, shortened as in the Worker, less `timestamp`: the
 *  function hands CloudFront a query string object keyed by it. */
// CloudFront's query object is keyed by timestamp and its answer carries body: those stay whole.
const CLOUDFRONT_INTERNAL_PROPERTIES = internalProperties(
  INTERNAL_PROPERTY_NAMES.filter((n) => n !== 'timestamp' && n !== 'body'),
);

export async function bundleCloudFrontFunction(outfile?: string): Promise<string> {
  const result = await build({
    ...BUNDLE,
    entryPoints: [adapter('cloudfront/viewer-request.ts')],
    // An ES module whose one export becomes the top-level function CloudFront calls, named
    // `handler`: an IIFE with a global name costs esbuild's export helpers.
    format: 'esm',
    platform: 'neutral',
    target: 'es2020',
    supported: NOT_IN_CLOUDFRONT_FUNCTIONS,
    // Within 8 KB, headroom under CloudFront's 10 KB limit (a test holds it there).
    mangleProps: CLOUDFRONT_INTERNAL_PROPERTIES,
    mangleQuoted: true,
  });
  // CloudFront calls a top-level function named `handler` and runs no modules: the export
  // statement esbuild ends the module with becomes that function.
  const code = result.outputFiles[0]!.text;
  const exported = /export\s*\{\s*([\w$]+) as handler\s*\};?\s*$/.exec(code);
  if (!exported)
    throw new Error('the CloudFront Function bundle does not end by exporting handler');
  return emit(
    `${code.slice(0, exported.index)}function handler(event){return ${exported[1]}(event)}\n`,
    outfile,
  );
}

export async function bundleLambdaEdge(outfile?: string): Promise<string> {
  const result = await build({
    ...BUNDLE,
    entryPoints: [adapter('lambda-edge/index.ts')],
    format: 'esm',
    platform: 'node',
    target: 'node22',
    external: ['@aws-sdk/*'],
  });
  return emit(result.outputFiles[0]!.text, outfile);
}

function emit(code: string, outfile: string | undefined): string {
  if (outfile) {
    mkdirSync(dirname(outfile), { recursive: true });
    writeFileSync(outfile, code);
  }
  return code;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? 'dist-aws';
  const cf = join(out, 'cloudfront-function.js');
  const lambda = join(out, 'lambda-edge/index.mjs');
  await bundleCloudFrontFunction(cf);
  await bundleLambdaEdge(lambda);
  process.stdout.write(
    `CloudFront Function: ${cf} (${statSync(cf).size} bytes; the limit is 10240)\nLambda@Edge: ${lambda} (${statSync(lambda).size} bytes; zip its folder, handler index.handler)\n`,
  );
}
