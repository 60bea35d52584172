// A bot pattern (scan.botPatterns, --bot-pattern): a case-insensitive regular expression.

/** What is wrong with a bot pattern, or undefined. */
export function botPatternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'i');
    return undefined;
  } catch (err) {
    return `not a regular expression (${(err as Error).message})`;
  }
}
