// A loopback ecosyste.ms packages index for scans: /packages/lookup answers one npm package of
// the repository asked about, with `dependentRepos` dependent repositories, every answer
// checked against the documented shapes (test/fixtures/dependents/).
import { fileURLToPath } from 'node:url';
import {
  type ForgeServer,
  loadJson,
  specCheck,
  startForgeServer,
} from '../../scripts/lib/forge-peers/server.ts';

export function startEcosystemsIndex(dependentRepos: number): Promise<ForgeServer> {
  const check = specCheck(
    loadJson(fileURLToPath(new URL('../fixtures/dependents/responses.json', import.meta.url))),
    '#/definitions/Error',
  );
  return startForgeServer(
    [
      {
        template: '/packages/lookup',
        reply: (_p, q) => ({
          status: 200,
          body: [
            {
              name: 'widget',
              ecosystem: 'npm',
              repository_url: q.query.get('repository_url'),
              dependent_packages_count: 2,
              dependent_repos_count: dependentRepos,
            },
          ],
        }),
      },
    ],
    check,
  );
}
