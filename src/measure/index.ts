// The measurers of a scan beside git's: each target's forge measurer (measure/forge/) and the
// dependency index (measure/dependents/) when the config chooses one, combined into one per
// target. `measurersFor(settings, env)` is what the scan command calls once per run.
import type { DependentsConfig } from '../config/types.ts';
import { RULE } from '../model/measured-rules.ts';
import { dependentsMeasurer } from './dependents/index.ts';
import { type ForgeSettings, forgeFor } from './forge/index.ts';
import { QueueRegistry } from './http/client.ts';
import { notAskedMeasurer } from './not-asked.ts';
import type { ForgeFor, ForgeMeasurer } from './types.ts';

interface MeasurerSettings extends ForgeSettings {
  /** The config's `dependents:`; absent, the dependents rule is not measured. */
  dependents?: DependentsConfig;
}

/**
 * The measurer for each target: its host's forge measurer (`forgeFor`) and the dependency
 * index when one is chosen. One queue per host and token for the whole run, however many
 * repositories share them.
 */
export function measurersFor(
  settings: MeasurerSettings,
  env: Readonly<Record<string, string | undefined>>,
): ForgeFor {
  const registry = new QueueRegistry();
  const forges = forgeFor(settings, env, registry);
  if (!settings.dependents) return forges;
  const dependents = dependentsMeasurer(settings.dependents, registry);
  const measurers = new Map<ForgeMeasurer | undefined, ForgeMeasurer>();
  return (target) => {
    const m = forges(target);
    let both = measurers.get(m);
    if (!both) measurers.set(m, (both = m ? combined(m, dependents) : dependents));
    return both;
  };
}

/** Both measurers' rules for one request: their rules never overlap. */
function combined(a: ForgeMeasurer, b: ForgeMeasurer): ForgeMeasurer {
  return {
    answers: [...a.answers, ...b.answers],
    ...(a.notAsked || b.notAsked
      ? { notAsked: [...(a.notAsked ?? []), ...(b.notAsked ?? [])] }
      : {}),
    ...(a.inFlight ? { inFlight: a.inFlight } : {}),
    async measure(request) {
      const [x, y] = [await a.measure(request), await b.measure(request)];
      return {
        measurements: x.measurements.map((m, i) => ({
          values: { ...m.values, ...y.measurements[i]!.values },
          evidence: { ...m.evidence, ...y.measurements[i]!.evidence },
        })),
        rules: [...x.rules, ...y.rules],
        failures: [...x.failures, ...y.failures],
        requests: x.requests + y.requests,
        notModified: (x.notModified ?? 0) + (y.notModified ?? 0),
        counted: (x.counted ?? x.requests) + (y.counted ?? y.requests),
        notAsked: [...(x.notAsked ?? []), ...(y.notAsked ?? [])],
        ...(x.notes || y.notes ? { notes: [...(x.notes ?? []), ...(y.notes ?? [])] } : {}),
      };
    },
  };
}

/** Why the dependents rule is not asked when the config chooses no dependency index, and what to do. */
const NO_DEPENDENTS_SOURCE =
  'no dependents: source in the config; to measure it, add one naming ecosyste.ms or deps.dev';

/**
 * `forgeFor` for a config without `dependents:` whose scan wants the dependents rule (judged
 * or asked for): each target's measurer with that rule beside it, not asked (null at E with
 * "not asked: <why>", never a failure), alone on a host with no forge. So the record says why
 * it holds no count, as it does for the forge rules under `--forge never`.
 */
export function dependentsNotAsked(forgeFor: ForgeFor): ForgeFor {
  const rule = RULE.dependents.id;
  const notAsked = notAskedMeasurer([rule], NO_DEPENDENTS_SOURCE);
  const measurers = new Map<ForgeMeasurer | undefined, ForgeMeasurer>();
  return (target) => {
    const m = forgeFor(target);
    if (m?.answers.includes(rule)) return m;
    let both = measurers.get(m);
    if (!both) measurers.set(m, (both = m ? combined(m, notAsked) : notAsked));
    return both;
  };
}
