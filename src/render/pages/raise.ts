// "What would raise it": the smallest change of a value that moves a criterion, or a badge,
// to a better status. Pure, shared by the repository page (per criterion and per badge).
import type { RuleB } from '../../config/types.ts';
import type { BadgeA, CriterionA } from '../../evaluate/shape-a.ts';
import type { BadgeB, CriterionB } from '../../evaluate/shape-b.ts';
import { counted } from '../../model/plural.ts';
import { isBandStatus, STATUS_LEVELS, STATUS_RANK, type StatusA } from '../../model/status.ts';

/** "1 more commit", "2.5 fewer days": the change, rounded to hundredths, with its unit. */
function change(n: number, word: 'more' | 'fewer', unit: string): string {
  return counted(Math.round(n * 100) / 100, unit ? `${word} ${unit}` : word);
}

/** What criterion `c` needs to reach status `target` or better; null when nothing can. */
export function needForA(c: CriterionA, target: StatusA): string | null {
  const rule = c.rule;
  // Whatever status a missing value is published as, only a measurement can move it.
  if (c.value === null) return `a measured value for ${rule.name} (${c.cause ?? 'not measured'})`;
  if (STATUS_RANK[c.status as StatusA] >= STATUS_RANK[target]) return null;
  if (rule.type === 'boolean') {
    if (STATUS_RANK[rule.positiveStatus] >= STATUS_RANK[target] && c.value === false)
      return `${rule.name} present`;
    return null;
  }
  const v = c.value as number;
  let best: { distance: number; text: string } | undefined;
  for (const b of rule.thresholds) {
    if (STATUS_RANK[b.status] < STATUS_RANK[target]) continue;
    let candidate: { distance: number; text: string } | undefined;
    if (v < b.min) candidate = { distance: b.min - v, text: change(b.min - v, 'more', rule.unit) };
    else if (b.max !== null && Math.floor(v) > b.max)
      candidate = { distance: v - b.max, text: change(v - b.max, 'fewer', rule.unit) };
    if (candidate && (!best || candidate.distance < best.distance)) best = candidate;
  }
  return best ? `${best.text} (${rule.name})` : null;
}

/** Per criterion: what the next status up and gold would take, e.g. "2 more contributors for gold". */
export function raiseCriterionA(c: CriterionA): string[] {
  if (c.value === null) return ['a scan that measures it (its value decides the status)'];
  const out: string[] = [];
  const next = STATUS_LEVELS[STATUS_RANK[c.status as StatusA] + 1];
  for (const target of next && next !== 'gold'
    ? [next, 'gold' as const]
    : next
      ? ['gold' as const]
      : []) {
    const need = needForA(c, target);
    if (need) out.push(`${need} for ${target}`);
  }
  return out;
}

/** The next status up for the badge and what each lagging criterion needs for it. */
export function raiseBadgeA(b: BadgeA): { target: StatusA; needs: string[] } | null {
  if (!isBandStatus(b.status)) return null;
  const target = STATUS_LEVELS[STATUS_RANK[b.status] + 1];
  if (!target) return null;
  const needs = b.criteria.map((c) => needForA(c, target)).filter((n): n is string => n !== null);
  return { target, needs };
}

/** What a Shape B criterion lacks to pass. */
export function needForB(c: CriterionB): string | null {
  if (c.status === 'pass') return null;
  const rule: RuleB = c.rule;
  if (rule.manual) {
    return c.status === 'open'
      ? `${rule.name}: decided by people; a grant record or the rule's decision file grants it`
      : `${rule.name}: revoked; a newer grant record would grant it again`;
  }
  // Why it has none is the criterion's evidence, shown beside this.
  if (c.value === null)
    return `${rule.name}: a measured value; the next scan that measures it decides`;
  const { min, max } = rule.threshold;
  if (min !== undefined && c.value < min)
    return `${rule.name}: ${change(min - c.value, 'more', rule.unit)}`;
  if (max !== undefined && c.value > max)
    return `${rule.name}: ${change(c.value - max, 'fewer', rule.unit)}`;
  return null;
}

/** The next level the badge does not hold and the checks it lacks. */
export function raiseBadgeB(b: BadgeB): { target: string; needs: string[] } | null {
  const highest = b.entries.findLastIndex((e) => e.granted);
  const next = b.entries.slice(highest + 1).find((e) => !e.granted);
  if (!next) return null;
  return {
    target: next.level.toLowerCase(),
    needs: next.criteria.map(needForB).filter((n): n is string => n !== null),
  };
}
