// A bot pattern (scan.botPatterns, --bot-pattern): a case-insensitive regular expression,
// run on RE2 (re2js) as decisions' patterns are: matching is linear in the name's length
// whatever the pattern, so `^(\w+\s?)+-ci$` cannot hold a scan (and its lease) for minutes
// the way a backtracking engine does on a 30-character author name.
import { RE2JS } from 're2js';

interface BotPattern {
  test(text: string): boolean;
}

/** The pattern compiled (an unanchored, case-insensitive search), or what is wrong with it. */
export function compileBotPattern(pattern: string): BotPattern | string {
  try {
    const re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
    return { test: (text) => re.test(text) };
  } catch (err) {
    const message = (err as Error).message.replace(/^error parsing regexp: /, '');
    return `not a regular expression RE2 accepts (${message}); backreferences and lookaround are not supported`;
  }
}

/** What is wrong with a bot pattern, or undefined. */
export function botPatternProblem(pattern: string): string | undefined {
  const compiled = compileBotPattern(pattern);
  return typeof compiled === 'string' ? compiled : undefined;
}
