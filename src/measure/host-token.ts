// A host's token, chosen here alone for git and for the forge's API. Tokens come from the
// environment only, by the variable the config names: `scan.tokens` (host → variable) for
// git, and for the API the `hosts:` entry's own `tokenEnv`, else the same variable as git,
// else the known host's. Never argv, a URL, a mirror's config, the store, a log or a report.
import type { HostEntry, ScanSettings } from '../config/types.ts';

/** The tokens of a pool variable: comma-separated, blanks dropped. */
export function tokenPool(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/**
 * The token git sends to `host` (lower case, with :port when the URL gives one), or
 * undefined: the first of the pool `scan.tokens` names for it (the API uses them in turn).
 */
export function tokenFor(
  host: string,
  settings: Pick<ScanSettings, 'tokens'>,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const variable = Object.hasOwn(settings.tokens, host) ? settings.tokens[host] : undefined;
  return variable === undefined ? undefined : tokenPool(env[variable])[0];
}

/**
 * The variable holding the API's tokens for `host`: the `hosts:` entry's own `tokenEnv`,
 * else the one `scan.tokens` names for git (so both use the same token), else, for a host
 * known without an entry, the known host's.
 */
export function apiTokenEnv(
  host: string,
  configured: HostEntry | undefined,
  known: { tokenEnv?: string } | undefined,
  gitTokens: Readonly<Record<string, string>> = {},
): string | undefined {
  const git = Object.hasOwn(gitTokens, host) ? gitTokens[host] : undefined;
  return configured ? (configured.tokenEnv ?? git) : (git ?? known?.tokenEnv);
}
