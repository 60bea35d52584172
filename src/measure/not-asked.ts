// Measurers that ask no server: the rules they answer are null with the evidence "not asked:
// <why>" (--forge never, --fetch never, a host's `api: false`, no forge API known, no
// dependency index chosen), never a failure, so a record says why it holds no value.
import { measuredAt } from '../model/measured-rules.ts';
import type { Measurement } from '../model/stored-value.ts';
import type { ForgeFor, ForgeMeasurer, ForgeRequest, ForgeResult } from './types.ts';

/**
 * A measurer that asks no server: the rules `answers` names are null at every time they are
 * measured at (a latest-only rule at E alone) with the evidence "not asked: <why>", and the
 * result says so (never a failure).
 */
export function notAskedMeasurer(answers: ForgeMeasurer['answers'], why: string): ForgeMeasurer {
  const rules = [...answers];
  return {
    answers,
    notAsked: rules,
    async measure(request: ForgeRequest): Promise<ForgeResult> {
      const evidence = `not asked: ${why}`;
      const measurements = request.times.map((t): Measurement => {
        const here = rules.filter((r) => measuredAt(r, t, request.asOf));
        return {
          values: Object.fromEntries(here.map((r) => [r, null])),
          evidence: Object.fromEntries(here.map((r) => [r, evidence])),
        };
      });
      return { measurements, rules, failures: [], requests: 0, notAsked: [{ rules, why }] };
    },
  };
}

/** `forgeFor` with no server asked (`--forge never`, `--fetch never`): each target's rules not asked, for `why`. */
export function noneAsked(forgeFor: ForgeFor, why: string): ForgeFor {
  const measurers = new Map<ForgeMeasurer, ForgeMeasurer>();
  return (target) => {
    const m = forgeFor(target);
    if (!m) return undefined;
    let off = measurers.get(m);
    if (!off) measurers.set(m, (off = notAskedMeasurer(m.answers, why)));
    return off;
  };
}
