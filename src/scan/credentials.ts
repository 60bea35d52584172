// Tokens come from the environment only, by the variable the config names for a host, and
// reach git as environment config (GIT_CONFIG_COUNT/KEY/VALUE): never argv, a URL, a mirror's
// config, the store, a log or a report.
import type { ScanSettings } from '../config/types.ts';
import { tokenPool } from '../measure/forge/core/http.ts';

/**
 * The token for `host` (lower case, with :port when the URL gives one), or undefined.
 * The one place that decides which variable holds a host's token: `scan.tokens` today; a
 * forge section naming token variables per host can be consulted here too, so git and the
 * forge's API use the same token.
 */
export function tokenFor(host: string, settings: Pick<ScanSettings, 'tokens'>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const variable = Object.hasOwn(settings.tokens, host) ? settings.tokens[host] : undefined;
  // The forge API uses the same variable as a comma-separated pool; git takes its first token.
  return variable === undefined ? undefined : tokenPool(env[variable])[0];
}

/**
 * Config that sends the token with every HTTP request git makes to that host, and only to it.
 * Basic with the token as the password is what GitHub, GitLab, Gitea/Forgejo and Bitbucket
 * all accept for git over https.
 */
export function gitTokenConfig(scheme: string, host: string, token: string): Array<[string, string]> {
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return [[`http.${scheme}://${host}/.extraHeader`, `Authorization: Basic ${basic}`]];
}
