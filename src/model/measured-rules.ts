// The rule ids badgepress measures itself (`badgepress scan`). A store holding them is no
// surprise to a build whose thresholds judge fewer: they wait there for a rule added later.

/** Measured from git alone, on every host. */
export const GIT_RULE_IDS: readonly string[] = ['BUS_FACTOR', 'COMMITS', 'RELEASES', 'SECURITY_POLICY'];

/** Measured through a forge's API or a dependency index (`hosts:`, `dependents:`); RELEASES gains forge releases too. */
export const FORGE_RULE_IDS: readonly string[] = ['CI_PIPELINE', 'DEPENDENTS', 'ISSUE_REACTION_TIME', 'PACKAGES'];

/**
 * Every rule id badgepress scan can measure, git's first: `--rules` accepts these, and a scan
 * without --rules measures them all. DEPENDENTS needs a dependency index to ask (`dependents:`
 * in the config): without one (`dependents: false`) it is left out.
 */
export function measuredRuleIds(opts: { dependents: boolean }): string[] {
  return [...GIT_RULE_IDS, ...FORGE_RULE_IDS.filter((id) => id !== 'DEPENDENTS' || opts.dependents)];
}

const MEASURED = new Set<string>(measuredRuleIds({ dependents: true }));

export function isMeasuredRule(ruleId: string): boolean {
  return MEASURED.has(ruleId);
}
