// SARIF for GitHub code scanning (`…/code-scanning.sarif`, latest only, opt-in with
// `codeScanning: true`): the same evaluation as the `sarif` endpoint, written with what
// GitHub's ingestion requires and SARIF Multitool's GitHub rules (`--rule-kind Gh`) check.
// The documented `sarif` endpoint keeps its own shape; this one may differ from it freely.
//
// - One result (level `error`) per rule whose measured value fails; rules that pass, and
//   rules nobody measured (Shape A unknown, Shape B open), give no result: a value we did not
//   measure raises no alert on someone's repository, and an upload without them closes theirs.
// - Every result has a location: the file the rule concerns (a rule's `location:` in the
//   thresholds file, e.g. SECURITY.md) or else the repository's README.md, line 1, as
//   repository-level findings need some file for GitHub to show them against.
// - partialFingerprints hash what identifies the finding (repository, rule), never the scan
//   time or value, so GitHub tracks one alert across scans.
// - automationDetails.id is `<tool>/<scan time>/`: GitHub's category is the tool's name.
import { createHash } from 'node:crypto';
import type { RuleA, RuleB, Settings } from '../config/types.ts';
import type { EvaluationA } from '../evaluate/shape-a.ts';
import type { EvaluationB } from '../evaluate/shape-b.ts';
import {
  ORIGINAL_URI_BASE_IDS,
  REPOSITORY_ROOT,
  ruleHelpUri,
  sarifEnvelope,
  versionControlProvenance,
} from './sarif-common.ts';
import type { Revision } from '../model/stored-value.ts';

/** Where a repository-level finding is shown when its rule names no file. */
const DEFAULT_LOCATION = 'README.md';

interface ScanningRule {
  id: string;
  name: string;
  description: string;
  help: string;
  /** Repository-relative file the rule concerns. */
  location?: string;
}

interface ScanningFinding {
  rule: ScanningRule;
  message: string;
}

interface ScanningInput {
  settings: Pick<Settings, 'baseUrl' | 'tool'>;
  repositoryUrl: string;
  timestamp: number;
  /** The commit the scan measured, when its record names it. */
  revision?: Revision;
  rules: readonly ScanningRule[];
  findings: readonly ScanningFinding[];
}

/** Stable across scans: the same repository and rule give the same alert. */
function findingFingerprint(repositoryUrl: string, ruleId: string): string {
  return createHash('sha256').update(`${repositoryUrl}\u0000${ruleId}`).digest('hex');
}

function ruleDescriptor(baseUrl: string, rule: ScanningRule): object {
  return {
    id: rule.id,
    name: pascalName(rule.name, rule.id),
    shortDescription: { text: rule.name },
    fullDescription: { text: rule.description },
    help: { text: rule.help, markdown: rule.help },
    helpUri: ruleHelpUri(baseUrl, rule.id),
    defaultConfiguration: { level: 'error' },
    properties: { tags: ['badgepress'], precision: 'high', 'problem.severity': 'error' },
  };
}

/** SARIF asks for a PascalCase rule name (SARIF2012) that differs from the id (SARIF1001). */
function pascalName(text: string, id: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const name = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  const named = /^[A-Za-z]/.test(name) ? name : `Rule${name}`;
  return named.toLowerCase() === id.toLowerCase() ? `${named}Check` : named;
}

function codeScanningReport(input: ScanningInput): object {
  const { settings } = input;
  const index = new Map(input.rules.map((r, i) => [r.id, i]));
  return sarifEnvelope({
    tool: {
      driver: {
        name: settings.tool.name,
        version: settings.tool.version,
        semanticVersion: settings.tool.version,
        informationUri: settings.tool.informationUri,
        rules: input.rules.map((r) => ruleDescriptor(settings.baseUrl, r)),
      },
    },
    automationDetails: { id: `${settings.tool.name}/${input.timestamp}/` },
    versionControlProvenance: versionControlProvenance(input.repositoryUrl, input.revision),
    results: input.findings.map((f) => ({
      ruleId: f.rule.id,
      ruleIndex: index.get(f.rule.id),
      level: 'error',
      message: { text: f.message },
      locations: [
        {
          physicalLocation: {
            artifactLocation: {
              uri: f.rule.location ?? DEFAULT_LOCATION,
              uriBaseId: REPOSITORY_ROOT,
            },
            region: { startLine: 1 },
          },
        },
      ],
      partialFingerprints: { 'badgepress/v1': findingFingerprint(input.repositoryUrl, f.rule.id) },
    })),
    originalUriBaseIds: ORIGINAL_URI_BASE_IDS,
  });
}

/** Shape A: a measured value whose criterion is not met is a finding; an unknown one is not. */
export function codeScanningA(
  settings: ScanningInput['settings'],
  repositoryUrl: string,
  evaluation: EvaluationA,
  rules: readonly RuleA[],
): object {
  const findings: ScanningFinding[] = evaluation.criteria
    .filter((c) => !c.met && c.value !== null)
    .map((c) => ({ rule: c.rule, message: c.message }));
  return codeScanningReport({
    settings: settings,
    repositoryUrl,
    timestamp: evaluation.timestamp,
    ...(evaluation.revision ? { revision: evaluation.revision } : {}),
    rules,
    findings,
  });
}

/** Shape B: a rule's outcome is the same at every level that repeats it; it is reported once. */
export function codeScanningB(
  settings: ScanningInput['settings'],
  evaluation: EvaluationB,
  rules: readonly RuleB[],
): object {
  const seen = new Set<string>();
  const findings: ScanningFinding[] = [];
  for (const c of evaluation.entries.flatMap((e) => e.criteria)) {
    if (c.status !== 'fail' || seen.has(c.rule.id)) continue;
    seen.add(c.rule.id);
    findings.push({ rule: c.rule, message: c.description });
  }
  return codeScanningReport({
    settings: settings,
    repositoryUrl: evaluation.repositoryUrl,
    timestamp: evaluation.timestamp,
    ...(evaluation.revision ? { revision: evaluation.revision } : {}),
    rules,
    findings,
  });
}
