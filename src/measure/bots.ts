// Who is a bot, one definition for git and every forge: commits by bots are left out of the
// commit rules (RULE.commits, RULE.busFactor), issues and reactions by bots out of the reaction
// time. A forge adds its own signs (GitHub's `type: Bot`, GitLab's and Gitea's bot accounts);
// a forge login is tested as a name without an e-mail. Never a bare "bot" substring, which
// would drop people whose names hold it (Abbott, Talbot).
import { compileBotPattern } from '../model/bot-pattern.ts';

/** App addresses that commit without "[bot]" in their name or address. */
const KNOWN_BOT_EMAILS: readonly string[] = [
  'bot@renovateapp.com', // Renovate's hosted app
  'renovate@whitesourcesoftware.com', // Renovate (WhiteSource)
  'support@dependabot.com', // Dependabot before it became a GitHub app
  'action@github.com', // the GitHub Actions default identity
  'noreply@weblate.org', // Weblate's own commits (merges of translations keep the translators)
];

/** Whether a git identity (mailmapped) or a forge login (a name without an e-mail) is a bot's. */
export type BotTest = (identity: { name: string; email?: string }) => boolean;

/** The fixed signs alone, for a forge request that brings no test of its own. */
const FIXED = botTest();

/** Whether a forge login is a bot's by `test` (the scan's), or by the fixed signs without one. */
export function loginIsBot(test: BotTest | undefined, login: string): boolean {
  return (test ?? FIXED)({ name: login });
}

/**
 * `patterns`: extra regular expressions (case-insensitive, RE2 syntax), matched against the
 * name and the e-mail. A pattern that does not compile throws (config and flags check first).
 */
export function botTest(patterns: readonly string[] = []): BotTest {
  const extra = patterns.map((p) => {
    const compiled = compileBotPattern(p);
    if (typeof compiled === 'string')
      throw new Error(`bot pattern ${JSON.stringify(p)} is ${compiled}`);
    return compiled;
  });
  const known = new Set(KNOWN_BOT_EMAILS);
  return ({ name, email }) => {
    const lower = `${name}\n${email ?? ''}`.toLowerCase();
    if (lower.includes('[bot]') || (email !== undefined && known.has(email.toLowerCase())))
      return true;
    return extra.some((r) => r.test(name) || (email !== undefined && r.test(email)));
  };
}
