// The rule ids badgepress measures itself (`badgepress scan`). A store holding them is no
// surprise to a build whose thresholds judge fewer: they wait there for a rule added later.

/** Measured from git alone, on every host. */
export const GIT_RULE_IDS: readonly string[] = ['BUS_FACTOR', 'COMMITS', 'RELEASES', 'SECURITY_POLICY'];

/** Measured through a forge's API or a dependency index (`hosts:`, `dependents:`); RELEASES gains forge releases too. */
export const FORGE_RULE_IDS: readonly string[] = ['CI_PIPELINE', 'DEPENDENTS', 'ISSUE_REACTION_TIME', 'PACKAGES'];

const MEASURED = new Set<string>([...GIT_RULE_IDS, ...FORGE_RULE_IDS]);

export function isMeasuredRule(ruleId: string): boolean {
  return MEASURED.has(ruleId);
}
