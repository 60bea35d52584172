// The GitHub adapter (github.com and GitHub Enterprise Server): what the core needs to reach
// its REST API. The source itself (source.ts, through Octokit) loads on the first repository.
import { discover, locate } from './discover.ts';
import { keptShape } from './kept.ts';
import type { ForgeAdapter } from '../../core/adapter.ts';

export const adapter: ForgeAdapter<'github'> = {
  kind: 'github',
  label: 'GitHub API',
  knownHosts: {
    'github.com': {
      apiUrl: 'https://api.github.com',
      tokenEnv: 'GITHUB_TOKEN',
      appIdEnv: 'GITHUB_APP_ID',
      appKeyEnv: 'GITHUB_APP_PRIVATE_KEY',
      requestsPerSecond: 10,
    },
  },
  // A GitHub App's installation tokens (app.ts), minted with its id and private key.
  apps: true,
  repositoryPaths: 'owner/name',
  authorize: (token) => ['authorization', `Bearer ${token}`],
  quirks: {
    // GitHub answers 403 (or 429) past its primary limit: the request after the last allowed
    // one is taken as refused with 403.
    exhaustedStatus: 403,
    // Secondary limits come with Retry-After while requests remain in the hour.
    secondaryLimits: true,
    // Every REST answer carries an ETag and an If-None-Match naming it is answered 304: "Making
    // a conditional request does not count against your primary rate limit if a 304 response
    // is returned and the request was made while correctly authorized" (REST best practices,
    // Use conditional requests if appropriate). A kept answer holds the fields read (kept.ts).
    conditional: { notModifiedIsFree: true, kept: keptShape },
    // REST and GraphQL are limited apart (x-ratelimit-resource core, graphql): a spent GraphQL
    // budget holds the token's queries alone, its REST requests go on.
    limitResource: (url) => (url.pathname.endsWith('/graphql') ? 'graphql' : 'core'),
  },
  open: async (http, request) => (await import('./source.ts')).githubSource(http, request),
  discover,
  locate,
};
