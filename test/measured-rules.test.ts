// The measured rules as one table (issue 32 item 1): each rule id badgepress measures is written
// in src/ only in its table entry (src/model/measured-rules.ts) and, where it describes a
// setting, the config schema; code and comments elsewhere refer to a rule by its handle. The
// ids below are written by hand from docs/reference/scan.md, not read from the table.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  eventRuleIds,
  FORGE_RULE_IDS,
  GIT_RULE_IDS,
  MEASURED_RULES,
  measuredRuleIds,
  RULE,
  ruleIdsOf,
  windowMonths,
} from '../src/model/measured-rules.ts';
import { ROOT } from './helpers/cli.ts';

const IDS = [
  'BUS_FACTOR',
  'CI_PIPELINE',
  'COMMITS',
  'DEPENDENTS',
  'ISSUE_REACTION_TIME',
  'PACKAGES',
  'RELEASES',
  'SECURITY_POLICY',
];
const ALLOWED = new Set(['src/model/measured-rules.ts', 'src/config/schemas/site.schema.json']);

function sourceFiles(): string[] {
  const src = join(ROOT, 'src');
  return (readdirSync(src, { recursive: true }) as string[])
    .filter((f) => /\.(ts|json)$/.test(f))
    .map((f) => relative(ROOT, join(src, f)).split('\\').join('/'))
    .sort();
}

describe('the table of measured rules', () => {
  it('writes each measured rule id in src/ only in the table and the config schema', () => {
    // An id as a word of its own: DEPENDENTS_API_URLS names no rule.
    const word = new RegExp(`(?<![\\w])(${IDS.join('|')})(?![\\w])`, 'g');
    const found: string[] = [];
    for (const file of sourceFiles()) {
      if (ALLOWED.has(file)) continue;
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (word.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
          word.lastIndex = 0;
        });
    }
    expect(found).toEqual([]);
    // The grep sees the table: every id is there.
    const table = readFileSync(join(ROOT, 'src/model/measured-rules.ts'), 'utf8');
    for (const id of IDS) expect([id, table.includes(`'${id}'`)]).toEqual([id, true]);
  });

  it('lists every rule scan measures, by source, kind and window', () => {
    expect(MEASURED_RULES.map((r) => r.id)).toEqual(IDS);
    expect(GIT_RULE_IDS).toEqual(['BUS_FACTOR', 'COMMITS', 'RELEASES', 'SECURITY_POLICY']);
    expect(FORGE_RULE_IDS).toEqual(['CI_PIPELINE', 'DEPENDENTS', 'ISSUE_REACTION_TIME', 'PACKAGES']);
    // A forge's API answers these, in the order its measurer lists them.
    expect(ruleIdsOf('forge')).toEqual(['ISSUE_REACTION_TIME', 'CI_PIPELINE', 'RELEASES', 'PACKAGES']);
    expect(eventRuleIds()).toEqual(['CI_PIPELINE', 'COMMITS', 'PACKAGES', 'RELEASES']);
    expect(measuredRuleIds({ dependents: false })).toEqual([
      'BUS_FACTOR',
      'COMMITS',
      'RELEASES',
      'SECURITY_POLICY',
      'CI_PIPELINE',
      'ISSUE_REACTION_TIME',
      'PACKAGES',
    ]);
    // The reaction time's window: the thresholds' timeRangeInMonths, else 3 months.
    expect(windowMonths(RULE.issueReactionTime, {})).toBe(3);
    expect(windowMonths(RULE.issueReactionTime, { ISSUE_REACTION_TIME: 6 })).toBe(6);
    expect(windowMonths(RULE.commits, { COMMITS: 6 })).toBeUndefined();
  });
});
