// The ajv validators of the project's JSON schemas, in two groups checked with their own
// options. Compiling the schemas costs about half a CPU second, which every start of the CLI
// would pay: scripts/compile.mjs writes each group's code (ajv's standalone output) into lib/
// (src/precompile.ts names the schemas), and the compiled CLI loads it; a run from source
// compiles each schema here, once per process.
import type { Options, ValidateFunction } from 'ajv';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { precompiled } from '../io/precompiled.ts';

type Schema = { $id: string };

const OPTIONS = {
  // Configuration files: every problem at once, so one edit can fix them all.
  config: { allErrors: true, strict: false },
  // Store records: the first problem (a record is refused whole), with the offending value
  // (verbose) so the message can quote it.
  record: { allErrors: false, strict: false, verbose: true },
} satisfies Record<string, Options>;

type SchemaGroup = keyof typeof OPTIONS;

/** The file each group's code is precompiled to, beside this module. */
const sourceFile = (group: SchemaGroup) => `./validators-${group}.cjs`;

const require = createRequire(import.meta.url);

function ajvOf(group: SchemaGroup, schemas: readonly Schema[], code = false) {
  // ajv is loaded only when schemas are compiled here: the compiled CLI never loads it whole.
  const { Ajv } = require('ajv') as typeof import('ajv');
  const ajv = new Ajv({ ...OPTIONS[group], ...(code ? { code: { source: true } } : {}) });
  for (const s of schemas) ajv.addSchema(s);
  return ajv;
}

/** Per group: the precompiled validators by $id, or an ajv that compiles each schema once. */
const groups = new Map<
  SchemaGroup,
  { compiled: Record<string, ValidateFunction> } | { ajv: ReturnType<typeof ajvOf> }
>();

/** The validator of `schema`, with `group`'s options. */
export function validatorOf(group: SchemaGroup, schema: Schema): ValidateFunction {
  let found = groups.get(group);
  if (!found) {
    const compiled = precompiled<Record<string, ValidateFunction>>(
      import.meta.url,
      sourceFile(group),
    );
    found = compiled ? { compiled } : { ajv: ajvOf(group, []) };
    groups.set(group, found);
  }
  if ('compiled' in found) {
    const validate = found.compiled[schema.$id];
    if (!validate)
      throw new Error(`schema ${schema.$id} is not precompiled: name it in src/precompile.ts`);
    return validate;
  }
  return found.ajv.getSchema(schema.$id) ?? found.ajv.compile(schema);
}

/** For scripts/compile.mjs: each group's validator code (CommonJS, exported by $id), by file. */
export function validatorSources(
  schemas: Record<SchemaGroup, readonly Schema[]>,
): Array<{ path: string; text: string }> {
  const standalone = require('ajv/dist/standalone') as typeof import('ajv/dist/standalone');
  return (Object.keys(OPTIONS) as SchemaGroup[]).map((group) => ({
    path: fileURLToPath(new URL(sourceFile(group), import.meta.url)),
    text: standalone.default(ajvOf(group, schemas[group], true)),
  }));
}
