// Loads Shape B's thresholds (rules, and badges as ordered levels of checks), validated like
// Shape A's: the JSON Schema first, then the checks a schema cannot make, every problem with
// file:line and the path inside the file.
import thresholdsBSchema from './schemas/thresholds-b.schema.json' with { type: 'json' };
import { readYamlFile, formatPath, type LocatedData, type PathPart } from './yaml-file.ts';
import { badgeIdProblems, ruleIdProblem, schemaProblems, throwIfAny } from './validate.ts';
import type { BadgeDefB, LevelB, RuleB, ThresholdsB } from './types.ts';

const LEVELS_B: readonly LevelB[] = ['BRONZE', 'SILVER', 'GOLD'];
const MANUAL_PREFIX = 'MANUAL/';

function isManualRuleId(id: string): boolean {
  return id.startsWith(MANUAL_PREFIX);
}

export async function loadThresholdsB(file: string): Promise<ThresholdsB> {
  const located = await readYamlFile(file);
  throwIfAny(schemaProblems(thresholdsBSchema, located));
  const raw = located.data as { rules: Array<Omit<RuleB, 'manual'>>; badges: BadgeDefB[] };
  const rules: RuleB[] = raw.rules.map((r) => ({ ...r, manual: isManualRuleId(r.id) }));
  throwIfAny(thresholdsBProblems(located, rules, raw.badges));
  return { shape: 'B', rules, badges: raw.badges };
}

function thresholdsBProblems(located: LocatedData, rules: RuleB[], badges: BadgeDefB[]): string[] {
  const problems: string[] = [];
  const say = (path: PathPart[], msg: string) =>
    problems.push(`${located.where(path)} ${formatPath(path)}: ${msg}`);
  const ruleAt = new Map<string, number>();
  rules.forEach((rule, i) => {
    const at = ruleAt.get(rule.id);
    if (at !== undefined)
      say(['rules', i, 'id'], `duplicate rule id ${JSON.stringify(rule.id)} (also rules[${at}])`);
    else ruleAt.set(rule.id, i);
    const tooLong = ruleIdProblem(rule.id);
    if (tooLong) say(['rules', i, 'id'], tooLong);
    const { min, max, timeRangeInMonths } = rule.threshold;
    if (min === undefined && max === undefined)
      say(
        ['rules', i, 'threshold'],
        'give min, max or both; a threshold without bounds passes everything',
      );
    if (min !== undefined && max !== undefined && min > max)
      say(['rules', i, 'threshold', 'min'], `min ${min} is above max ${max}; nothing could pass`);
    if (rule.manual) {
      if (rule.unit !== '')
        say(
          ['rules', i, 'unit'],
          `a manual rule has no unit (its value is 1 when granted, 0 when not); write unit: ""`,
        );
      if (timeRangeInMonths !== undefined)
        say(
          ['rules', i, 'threshold', 'timeRangeInMonths'],
          'a manual rule is decided by people, not counted; remove timeRangeInMonths',
        );
    } else if (rule.unit === '') {
      say(
        ['rules', i, 'unit'],
        `a measured rule needs a unit (e.g. commits, days); only ${MANUAL_PREFIX} rules have none`,
      );
    }
  });
  const badgeIds = badgeIdProblems(badges.map((b) => b.id));
  badges.forEach((badge, i) => {
    const repeated = badgeIds.get(i);
    if (repeated) say(['badges', i, 'id'], repeated);
    // Which level first named a check: a higher level repeats it by itself, so naming it twice is a slip.
    const checkedAt = new Map<string, LevelB>();
    badge.levels.forEach((level, j) => {
      const prev = badge.levels[j - 1];
      if (prev && LEVELS_B.indexOf(level.level) <= LEVELS_B.indexOf(prev.level)) {
        say(
          ['badges', i, 'levels', j, 'level'],
          `level ${level.level} after ${prev.level}: list levels once each, lowest first (${LEVELS_B.join(', ')})`,
        );
      }
      level.checks.forEach((ruleId, k) => {
        const path = ['badges', i, 'levels', j, 'checks', k];
        if (!ruleAt.has(ruleId))
          say(path, `unknown rule ${JSON.stringify(ruleId)}; define it under rules or remove it`);
        const first = checkedAt.get(ruleId);
        if (first !== undefined) {
          say(
            path,
            `${JSON.stringify(ruleId)} is already a check of ${first}; higher levels repeat the checks of lower levels, so name it once`,
          );
        } else checkedAt.set(ruleId, level.level);
      });
    });
  });
  return problems;
}
