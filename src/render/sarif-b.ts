// Shape B report and badge explanations, field for field as docs/reference/api.md documents them.
// `message` is a plain string as documented; `strictSarif` writes `{text}` so that strict
// SARIF tools accept the report.
import type { RuleB, ThresholdB } from '../config/types.ts';
import type { BadgeB, BadgeEntryB, CriterionB, EvaluationB } from '../evaluate/shape-b.ts';
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

/** Only the bounds that exist, in a fixed order. */
function thresholdObject(t: ThresholdB): ThresholdB {
  return {
    ...(t.min !== undefined ? { min: t.min } : {}),
    ...(t.max !== undefined ? { max: t.max } : {}),
    ...(t.timeRangeInMonths !== undefined ? { timeRangeInMonths: t.timeRangeInMonths } : {}),
  };
}

function ruleDescriptor(rule: RuleB, baseUrl: string): object {
  return {
    id: rule.id,
    name: rule.name,
    fullDescription: { text: rule.description },
    help: { text: rule.help },
    helpUri: ruleHelpUri(baseUrl, rule.id),
    properties: { unit: rule.unit, threshold: thresholdObject(rule.threshold) },
  };
}

function criterionObject(c: CriterionB): object {
  return {
    description: c.description,
    value: c.valueText,
    status: c.status,
    ruleId: c.rule.id,
    threshold: thresholdObject(c.rule.threshold),
    badgeId: c.badgeId,
    badgeLevel: c.badgeLevel,
    ...(c.evidence !== undefined ? { evidence: c.evidence } : {}),
    provenance: provenanceObject(c.provenance),
  };
}

function badgeUrl(ctx: ReportContext, evaluation: EvaluationB, badgeId: string): string {
  return publicBadgeUrl(ctx.settings.baseUrl, ctx.encoded, badgeId, evaluation.timestamp);
}

function badgeEntryObject(ctx: ReportContext, evaluation: EvaluationB, e: BadgeEntryB): object {
  return {
    badgeId: e.def.id,
    badgeLevel: e.level,
    badgeUrl: badgeUrl(ctx, evaluation, e.def.id),
    badgeGranted: e.granted,
    badgeInformationUri: badgeInformationUri(ctx.settings.baseUrl, e.def),
    isHighestGrantedBadge: e.isHighestGranted,
    badgeExplanation: { criteria: e.criteria.map(criterionObject) },
  };
}

/** The explanation endpoint's body: the badge's status and the criteria of its highest level. */
export function badgeExplanationB(
  ctx: ReportContext,
  evaluation: EvaluationB,
  badge: BadgeB,
): object {
  return {
    badgeUrl: badgeUrl(ctx, evaluation, badge.def.id),
    badgeId: badge.def.id,
    // `unknownAs` maps unknown for clients that accept only the contract's five statuses.
    badgeStatus:
      badge.explainedStatus === 'unknown'
        ? (ctx.settings.unknownAs ?? 'unknown')
        : badge.explainedStatus,
    badgeInformationUri: badgeInformationUri(ctx.settings.baseUrl, badge.def),
    badgeExplanation: {
      criteria: badge.explained.criteria.map(criterionObject),
      conclusion: badge.conclusion,
    },
  };
}

function resultObject(c: CriterionB, strictSarif: boolean): object {
  return {
    kind: c.status,
    message: strictSarif ? { text: c.description } : c.description,
    ruleId: c.rule.id,
    ruleIndex: c.ruleIndex,
    properties: {
      badgeId: c.badgeId,
      badgeLevel: c.badgeLevel,
      evidence: c.evidence ?? '',
      threshold: thresholdObject(c.rule.threshold),
      value: c.valueText,
      provenance: provenanceObject(c.provenance),
    },
  };
}

export function sarifReportB(ctx: ReportContext, evaluation: EvaluationB, rules: RuleB[]): object {
  const { tool, strictSarif } = ctx.settings;
  return sarifEnvelope({
    tool: {
      driver: {
        name: tool.name,
        informationUri: tool.informationUri,
        rules: rules.map((r) => ruleDescriptor(r, ctx.settings.baseUrl)),
      },
    },
    versionControlProvenance: versionControlProvenance(
      evaluation.repositoryUrl,
      evaluation.revision,
    ),
    originalUriBaseIds: ORIGINAL_URI_BASE_IDS,
    properties: {
      badges: evaluation.entries.map((e) => badgeEntryObject(ctx, evaluation, e)),
      testedRepository: evaluation.repositoryUrl,
    },
    results: evaluation.entries.flatMap((e) => e.criteria.map((c) => resultObject(c, strictSarif))),
  });
}
