// Shape A report and badge explanations, field for field as docs/reference/api.md documents them.
import type { RuleA } from '../config/types.ts';
import type { BadgeA, CriterionA, EvaluationA } from '../evaluate/shape-a.ts';
import { UNKNOWN } from '../model/status.ts';
import {
  badgeInformationUri,
  provenanceObject,
  publicBadgeUrl,
  ruleHelpUri,
  sarifEnvelope,
  ORIGINAL_URI_BASE_IDS,
  versionControlProvenance,
  type ReportContext,
} from './sarif-common.ts';

function ruleDescriptor(rule: RuleA, baseUrl: string): object {
  const properties =
    rule.type === 'boolean'
      ? {
          type: 'boolean',
          positiveStatus: rule.positiveStatus,
          negativeStatus: rule.negativeStatus,
        }
      : {
          unit: rule.unit,
          thresholds: rule.thresholds.map((b) => ({ min: b.min, max: b.max, status: b.status })),
          ...(rule.timeRangeInMonths !== undefined
            ? { timeRangeInMonths: rule.timeRangeInMonths }
            : {}),
        };
  return {
    id: rule.id,
    name: rule.name,
    fullDescription: { text: rule.description },
    help: { text: rule.help },
    helpUri: ruleHelpUri(baseUrl, rule.id),
    properties,
  };
}

function criterion(c: CriterionA): object {
  return {
    description: c.description,
    ruleId: c.rule.id,
    value: c.value,
    status: c.status,
    ...(c.range ? { range: c.range } : {}),
    provenance: provenanceObject(c.provenance),
  };
}

/** The badge object of the report; the explanation endpoint serves exactly this object. */
export function badgeObjectA(ctx: ReportContext, evaluation: EvaluationA, badge: BadgeA): object {
  return {
    badgeUrl: publicBadgeUrl(ctx.settings.baseUrl, ctx.encoded, badge.def.id, evaluation.timestamp),
    badgeId: badge.def.id,
    badgeStatus: badge.status,
    badgeInformationUri: badgeInformationUri(ctx.settings.baseUrl, badge.def),
    badgeExplanation: { criteria: badge.criteria.map(criterion), conclusion: badge.conclusion },
  };
}

/**
 * A rule nobody measured is neither met nor not met: SARIF's kind `open` ("the tool could not
 * determine whether the rule is met"), whose level must be `none`. With `unknownAs`, the
 * deployment asked for the contract's statuses, and the level follows the status published.
 */
function resultKind(c: CriterionA): { kind?: 'open'; level: 'note' | 'warning' | 'none' } {
  if (c.status === UNKNOWN) return { kind: 'open', level: 'none' };
  return { level: c.met ? 'note' : 'warning' };
}

function result(c: CriterionA): object {
  return {
    ruleId: c.rule.id,
    ...resultKind(c),
    message: { text: c.message },
    properties: {
      value: c.value,
      status: c.status,
      ...(c.rule.type === 'numeric' ? { unit: c.rule.unit } : {}),
      ...(c.range ? { range: c.range } : {}),
      evidence: c.provenance.evidence,
      provenance: provenanceObject(c.provenance),
    },
  };
}

export function sarifReportA(ctx: ReportContext, evaluation: EvaluationA, rules: RuleA[]): object {
  const { tool } = ctx.settings;
  return sarifEnvelope({
    tool: {
      driver: {
        name: tool.name,
        version: tool.version,
        informationUri: tool.informationUri,
        rules: rules.map((r) => ruleDescriptor(r, ctx.settings.baseUrl)),
      },
    },
    versionControlProvenance: versionControlProvenance(
      decodeURIComponent(ctx.encoded),
      evaluation.revision,
    ),
    originalUriBaseIds: ORIGINAL_URI_BASE_IDS,
    properties: {
      timestamp: evaluation.timestamp,
      badges: evaluation.badges.map((b) => badgeObjectA(ctx, evaluation, b)),
    },
    results: evaluation.criteria.map(result),
  });
}
