// The GitHub adapter (github.com and GitHub Enterprise Server): what the core needs to reach
// its REST API. The source itself (source.ts, through Octokit) loads on the first repository.
import { discover, locate } from './discover.ts';
import type { ForgeAdapter } from '../../core/adapter.ts';

export const adapter: ForgeAdapter<'github'> = {
  kind: 'github',
  label: 'GitHub API',
  knownHosts: { 'github.com': { apiUrl: 'https://api.github.com', tokenEnv: 'GITHUB_TOKEN', requestsPerSecond: 10 } },
  repositoryPaths: 'owner/name',
  authorize: (token) => ['authorization', `Bearer ${token}`],
  quirks: {
    // GitHub answers 403 (or 429) past its primary limit: the request after the last allowed
    // one is taken as refused with 403.
    exhaustedStatus: 403,
    // Secondary limits come with Retry-After while requests remain in the hour.
    secondaryLimits: true,
  },
  open: async (http, request) => (await import('./source.ts')).githubSource(http, request),
  discover,
  locate,
};
