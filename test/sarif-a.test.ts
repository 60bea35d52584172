// src/render/sarif-a.ts: the Shape A report and badge explanation, field for field and in a
// fixed key order (the bytes are the JSON as written here by hand), and valid SARIF 2.1.0.
import { describe, expect, it } from 'vitest';
import type { BooleanRuleA, NumericRuleA, Settings } from '../src/config/types.ts';
import type { BadgeA, CriterionA, EvaluationA } from '../src/evaluate/shape-a.ts';
import { badgeObjectA, sarifReportA } from '../src/render/sarif-a.ts';
import type { ReportContext } from '../src/render/sarif-common.ts';
import { sarifErrors } from './helpers/sarif.ts';

const ENC = 'https%3A%2F%2Fgithub.com%2Facme%2Fwidget';
const ctx = {
  settings: {
    baseUrl: 'https://badges.example',
    tool: { name: 'badgepress', version: '1.2.3', informationUri: 'https://tool.example' },
  } as Settings,
  encoded: ENC,
} satisfies ReportContext;
const busFactor: NumericRuleA = {
  id: 'BUS_FACTOR',
  name: 'Bus factor',
  description: 'People who wrote half the code',
  help: 'More people',
  type: 'numeric',
  unit: 'people',
  thresholds: [
    { min: 0, max: 1, status: 'fail' },
    { min: 2, max: null, status: 'gold' },
  ],
  timeRangeInMonths: 12,
};
const policy: BooleanRuleA = {
  id: 'SECURITY_POLICY',
  name: 'Security policy',
  description: 'A SECURITY.md',
  help: 'Add one',
  type: 'boolean',
  positiveStatus: 'gold',
  negativeStatus: 'fail',
};
// Measured at a commit of 2025-08-22, scanned 2025-11-13: the data is 83 days old.
const revision = {
  commit: '5c61e16a0b8f4c2d9e7f1a3b5c7d9e1f2a4b6c8d',
  committedAt: 1755820800,
  branch: 'master',
};
const bus: CriterionA = {
  rule: busFactor,
  value: 3,
  status: 'gold',
  range: { min: 2, max: null },
  met: true,
  description: 'Bus factor is 3 people',
  message: 'Bus factor is 3 people: gold (2+ people).',
  provenance: {
    evidence: '3 contributors of 5 made at least half of 40 commits',
    revision,
    scannedAt: 1763000000,
  },
};
const noPolicy: CriterionA = {
  rule: policy,
  value: false,
  status: 'fail',
  met: false,
  description: 'No security policy',
  message: 'No security policy: fail.',
  provenance: { evidence: 'no SECURITY.md', revision, scannedAt: 1763000000 },
};
const badge: BadgeA = {
  def: { id: 'MAINT', criteria: ['BUS_FACTOR', 'SECURITY_POLICY'] },
  status: 'fail',
  criteria: [bus, noPolicy],
  conclusion: 'fail: Security policy is fail',
};
const evaluation: EvaluationA = {
  timestamp: 1763000000,
  revision,
  criteria: [bus, noPolicy],
  badges: [badge],
};
const PROV = (evidence: string) =>
  `"provenance":{"evidence":"${evidence}","commit":"5c61e16a0b8f4c2d9e7f1a3b5c7d9e1f2a4b6c8d","committedAt":1755820800,"branch":"master","dataAgeDays":83,"scannedAt":1763000000}`;

const EXPLANATION =
  '{"badgeUrl":"https://badges.example/api/v1/repositories/https%3A%2F%2Fgithub.com%2Facme%2Fwidget/badges/MAINT.svg?timestamp=1763000000",' +
  '"badgeId":"MAINT","badgeStatus":"fail","badgeInformationUri":"https://badges.example/badges/MAINT/",' +
  '"badgeExplanation":{"criteria":[' +
  `{"description":"Bus factor is 3 people","ruleId":"BUS_FACTOR","value":3,"status":"gold","range":{"min":2,"max":null},${PROV('3 contributors of 5 made at least half of 40 commits')}},` +
  `{"description":"No security policy","ruleId":"SECURITY_POLICY","value":false,"status":"fail",${PROV('no SECURITY.md')}}],` +
  '"conclusion":"fail: Security policy is fail"}}';

describe('badgeObjectA', () => {
  it('is the explanation, key for key; a range only where the criterion has one', () => {
    expect(JSON.stringify(badgeObjectA(ctx, evaluation, badge))).toBe(EXPLANATION);
  });

  it('points to the configured information address when the badge names one', () => {
    const named = { ...badge, def: { ...badge.def, informationUri: 'https://docs.example/maint' } };
    expect(badgeObjectA(ctx, evaluation, named)).toMatchObject({
      badgeInformationUri: 'https://docs.example/maint',
    });
  });
});

describe('sarifReportA', () => {
  const report = sarifReportA(ctx, evaluation, [busFactor, policy]);

  it('writes the envelope, the rules, the badges and one result per criterion, in that order', () => {
    const expected =
      '{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{' +
      '"tool":{"driver":{"name":"badgepress","version":"1.2.3","informationUri":"https://tool.example","rules":[' +
      '{"id":"BUS_FACTOR","name":"Bus factor","fullDescription":{"text":"People who wrote half the code"},"help":{"text":"More people"},' +
      '"helpUri":"https://badges.example/rules/BUS_FACTOR/","properties":{"unit":"people","thresholds":[{"min":0,"max":1,"status":"fail"},{"min":2,"max":null,"status":"gold"}],"timeRangeInMonths":12}},' +
      '{"id":"SECURITY_POLICY","name":"Security policy","fullDescription":{"text":"A SECURITY.md"},"help":{"text":"Add one"},' +
      '"helpUri":"https://badges.example/rules/SECURITY_POLICY/","properties":{"type":"boolean","positiveStatus":"gold","negativeStatus":"fail"}}]}},' +
      '"versionControlProvenance":[{"repositoryUri":"https://github.com/acme/widget","revisionId":"5c61e16a0b8f4c2d9e7f1a3b5c7d9e1f2a4b6c8d","branch":"master","mappedTo":{"uriBaseId":"%SRCROOT%"}}],' +
      '"originalUriBaseIds":{"%SRCROOT%":{"description":{"text":"The root of the scanned repository."}}},' +
      `"properties":{"timestamp":1763000000,"badges":[${EXPLANATION}]},` +
      '"results":[' +
      `{"ruleId":"BUS_FACTOR","level":"note","message":{"text":"Bus factor is 3 people: gold (2+ people)."},"properties":{"value":3,"status":"gold","unit":"people","range":{"min":2,"max":null},"evidence":"3 contributors of 5 made at least half of 40 commits",${PROV('3 contributors of 5 made at least half of 40 commits')}}},` +
      `{"ruleId":"SECURITY_POLICY","level":"warning","message":{"text":"No security policy: fail."},"properties":{"value":false,"status":"fail","evidence":"no SECURITY.md",${PROV('no SECURITY.md')}}}]}]}`;
    expect(JSON.stringify(report)).toBe(expected);
  });

  it('is valid SARIF 2.1.0', () => {
    expect(sarifErrors(report)).toEqual([]);
  });
});
