// What scripts/compile.mjs writes into lib/ once src/ is compiled there: results each start of
// the compiled CLI would otherwise compute again (see src/io/precompiled.ts).
import decisionSchema from './config/schemas/decision.schema.json' with { type: 'json' };
import siteSchema from './config/schemas/site.schema.json' with { type: 'json' };
import thresholdsASchema from './config/schemas/thresholds-a.schema.json' with { type: 'json' };
import thresholdsBSchema from './config/schemas/thresholds-b.schema.json' with { type: 'json' };
import recordSchema from './load/record.schema.json' with { type: 'json' };
import { validatorSources } from './config/validators.ts';
import { openapiTemplateSource } from './config/templates.ts';

export function precompiledFiles(): Array<{ path: string; text: string }> {
  // Every schema the code validates with (validatorOf), in its group.
  const schemas = {
    config: [siteSchema, thresholdsASchema, thresholdsBSchema, decisionSchema],
    record: [recordSchema],
  };
  return [...validatorSources(schemas), openapiTemplateSource()];
}
