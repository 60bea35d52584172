// How a token reaches git: as environment config (GIT_CONFIG_COUNT/KEY/VALUE), never argv,
// a URL, a mirror's config, the store, a log or a report. Which token a host gets is chosen
// in ../host-token.ts, for git and the forge's API alike.

/**
 * Config that sends the token with every HTTP request git makes to that host, and only to it.
 * Basic with the token as the password is what GitHub, GitLab, Gitea/Forgejo and Bitbucket
 * all accept for git over https.
 */
export function gitTokenConfig(
  scheme: string,
  host: string,
  token: string,
): Array<[string, string]> {
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return [[`http.${scheme}://${host}/.extraHeader`, `Authorization: Basic ${basic}`]];
}
