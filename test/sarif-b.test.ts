// src/render/sarif-b.ts: the Shape B report and badge explanation, field for field and in a
// fixed key order (the bytes are the JSON as written here by hand); with strictSarif the
// messages are {text} objects and the report is valid SARIF 2.1.0.
import { describe, expect, it } from 'vitest';
import type { BadgeDefB, RuleB, Settings } from '../src/config/types.ts';
import type { BadgeB, BadgeEntryB, CriterionB, EvaluationB } from '../src/evaluate/shape-b.ts';
import { badgeExplanationB, sarifReportB } from '../src/render/sarif-b.ts';
import type { ReportContext } from '../src/render/sarif-common.ts';
import { sarifErrors } from './helpers/sarif.ts';

const REPO = 'https://codeberg.org/acme/tool';
const ENC = encodeURIComponent(REPO);
const settings = (strictSarif: boolean) =>
  ({
    baseUrl: 'https://badges.example',
    strictSarif,
    tool: { name: 'badgepress', version: '1.2.3', informationUri: 'https://tool.example' },
  }) as Settings;
const ctx = (strictSarif: boolean): ReportContext => ({
  settings: settings(strictSarif),
  encoded: ENC,
});

const commits: RuleB = {
  id: 'COMMITS',
  name: 'Commits',
  description: 'Commits lately',
  help: 'Commit',
  unit: 'commits',
  threshold: { min: 5, timeRangeInMonths: 6 },
  manual: false,
};
const review: RuleB = {
  id: 'MANUAL/REVIEW',
  name: 'Review',
  description: 'Reviewed by people',
  help: 'Ask',
  unit: '',
  threshold: {},
  manual: true,
};
const def: BadgeDefB = { id: 'ACTIVE', informationUri: 'https://docs.example/active' } as BadgeDefB;
const crit = (
  rule: RuleB,
  ruleIndex: number,
  level: CriterionB['badgeLevel'],
  c: Partial<CriterionB>,
): CriterionB =>
  ({
    rule,
    ruleIndex,
    badgeId: 'ACTIVE',
    badgeLevel: level,
    value: null,
    valueText: '<nil>',
    status: 'open',
    description: '',
    ...c,
  }) as CriterionB;
const revision = { commit: 'a'.repeat(40), committedAt: 1762000000, branch: 'main' };
const commitsPass = crit(commits, 0, 'BRONZE', {
  value: 12,
  valueText: '12',
  status: 'pass',
  description: 'Commits: at least 5 (12)',
  evidence: '12 commits since 2025-05-01',
  provenance: { evidence: '12 commits since 2025-05-01', revision, scannedAt: 1763000000 },
});
const reviewOpen = crit(review, 1, 'SILVER', {
  description: 'Review: decided by people',
  provenance: { evidence: 'Not decided.', scannedAt: 1763000000 },
});
const bronze: BadgeEntryB = {
  def,
  level: 'BRONZE',
  criteria: [commitsPass],
  granted: true,
  isHighestGranted: true,
};
const silver: BadgeEntryB = {
  def,
  level: 'SILVER',
  criteria: [commitsPass, reviewOpen],
  granted: false,
  isHighestGranted: false,
};
const badge: BadgeB = {
  def,
  entries: [bronze, silver],
  status: 'bronze',
  explainedStatus: 'bronze',
  explained: silver,
  conclusion: 'bronze; silver lacks Review',
};
const evaluation: EvaluationB = {
  timestamp: 1763000000,
  revision,
  repositoryUrl: REPO,
  entries: [bronze, silver],
  badges: [badge],
};

const BADGE_URL = `https://badges.example/api/v1/repositories/${ENC}/badges/ACTIVE.svg?timestamp=1763000000`;
// Measured at a commit 1,000,000 s (11.6 days) before the scan: 11 whole days old.
const COMMITS_PROVENANCE = `{"evidence":"12 commits since 2025-05-01","commit":"${'a'.repeat(40)}","committedAt":1762000000,"branch":"main","dataAgeDays":11,"scannedAt":1763000000}`;
const COMMITS_CRITERION =
  '{"description":"Commits: at least 5 (12)","value":"12","status":"pass","ruleId":"COMMITS","threshold":{"min":5,"timeRangeInMonths":6},"badgeId":"ACTIVE","badgeLevel":"BRONZE","evidence":"12 commits since 2025-05-01",' +
  `"provenance":${COMMITS_PROVENANCE}}`;
const REVIEW_PROVENANCE = '{"evidence":"Not decided.","scannedAt":1763000000}';
const REVIEW_CRITERION = `{"description":"Review: decided by people","value":"<nil>","status":"open","ruleId":"MANUAL/REVIEW","threshold":{},"badgeId":"ACTIVE","badgeLevel":"SILVER","provenance":${REVIEW_PROVENANCE}}`;

describe('badgeExplanationB', () => {
  it('shows the explained level: its criteria, then the conclusion; evidence only where there is some', () => {
    expect(JSON.stringify(badgeExplanationB(ctx(false), evaluation, badge))).toBe(
      `{"badgeUrl":"${BADGE_URL}","badgeId":"ACTIVE","badgeStatus":"bronze","badgeInformationUri":"https://docs.example/active",` +
        `"badgeExplanation":{"criteria":[${COMMITS_CRITERION},${REVIEW_CRITERION}],"conclusion":"bronze; silver lacks Review"}}`,
    );
  });
});

describe('sarifReportB', () => {
  const entry = (e: BadgeEntryB, criteria: string) =>
    `{"badgeId":"ACTIVE","badgeLevel":"${e.level}","badgeUrl":"${BADGE_URL}","badgeGranted":${e.granted},"badgeInformationUri":"https://docs.example/active",` +
    `"isHighestGrantedBadge":${e.isHighestGranted},"badgeExplanation":{"criteria":[${criteria}]}}`;
  const result = (
    kind: string,
    message: string,
    ruleId: string,
    ruleIndex: number,
    level: string,
    evidence: string,
    threshold: string,
    value: string,
    provenance: string,
  ) =>
    `{"kind":"${kind}","message":${message},"ruleId":"${ruleId}","ruleIndex":${ruleIndex},"properties":{"badgeId":"ACTIVE","badgeLevel":"${level}","evidence":"${evidence}","threshold":${threshold},"value":"${value}","provenance":${provenance}}}`;
  const expected = (msg: (s: string) => string) =>
    '{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{' +
    '"tool":{"driver":{"name":"badgepress","informationUri":"https://tool.example","rules":[' +
    '{"id":"COMMITS","name":"Commits","fullDescription":{"text":"Commits lately"},"help":{"text":"Commit"},"helpUri":"https://badges.example/rules/COMMITS/","properties":{"unit":"commits","threshold":{"min":5,"timeRangeInMonths":6}}},' +
    '{"id":"MANUAL/REVIEW","name":"Review","fullDescription":{"text":"Reviewed by people"},"help":{"text":"Ask"},"helpUri":"https://badges.example/rules/MANUAL%2FREVIEW/","properties":{"unit":"","threshold":{}}}]}},' +
    `"versionControlProvenance":[{"repositoryUri":"${REPO}","revisionId":"${'a'.repeat(40)}","branch":"main","mappedTo":{"uriBaseId":"%SRCROOT%"}}],` +
    '"originalUriBaseIds":{"%SRCROOT%":{"description":{"text":"The root of the scanned repository."}}},' +
    `"properties":{"badges":[${entry(bronze, COMMITS_CRITERION)},${entry(silver, `${COMMITS_CRITERION},${REVIEW_CRITERION}`)}],"testedRepository":"${REPO}"},` +
    '"results":[' +
    // One result per criterion of every entry: the bronze check shows again under silver.
    [
      result(
        'pass',
        msg('Commits: at least 5 (12)'),
        'COMMITS',
        0,
        'BRONZE',
        '12 commits since 2025-05-01',
        '{"min":5,"timeRangeInMonths":6}',
        '12',
        COMMITS_PROVENANCE,
      ),
      result(
        'pass',
        msg('Commits: at least 5 (12)'),
        'COMMITS',
        0,
        'BRONZE',
        '12 commits since 2025-05-01',
        '{"min":5,"timeRangeInMonths":6}',
        '12',
        COMMITS_PROVENANCE,
      ),
      result(
        'open',
        msg('Review: decided by people'),
        'MANUAL/REVIEW',
        1,
        'SILVER',
        '',
        '{}',
        '<nil>',
        REVIEW_PROVENANCE,
      ),
    ].join(',') +
    ']}]}';

  it('writes messages as plain strings, as documented', () => {
    expect(JSON.stringify(sarifReportB(ctx(false), evaluation, [commits, review]))).toBe(
      expected((s) => `"${s}"`),
    );
  });

  it('with strictSarif writes {text} messages, and the report is valid SARIF 2.1.0', () => {
    const strict = sarifReportB(ctx(true), evaluation, [commits, review]);
    expect(JSON.stringify(strict)).toBe(expected((s) => `{"text":"${s}"}`));
    expect(sarifErrors(strict)).toEqual([]);
    // The plain-string form is what strict SARIF tools refuse.
    expect(sarifErrors(sarifReportB(ctx(false), evaluation, [commits, review]))).not.toEqual([]);
  });
});
