// DEPENDENTS from deps.dev or ecosyste.ms, against loopback stand-ins shaped by their documented
// answers (test/fixtures/dependents/). Off by default: then no measurer answers for it.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { measurersFor } from '../src/measure/index.ts';
import { noneAsked } from '../src/measure/not-asked.ts';
import type { ForgeRequest } from '../src/measure/types.ts';
import {
  loadJson,
  specCheck,
  startForgeServer,
  type ForgeServer,
  type Reply,
} from '../scripts/lib/forge-peers/server.ts';

const check = specCheck(
  loadJson(fileURLToPath(new URL('./fixtures/dependents/responses.json', import.meta.url))),
  '#/definitions/Error',
);
const E1 = Date.parse('2026-10-25T00:00:00Z') / 1000;
const E = Date.parse('2026-11-25T00:00:00Z') / 1000;
/** The rules a forge answers, in the table's order; git.example has none badgepress knows. */
const FORGE_RULES = ['ISSUE_REACTION_TIME', 'CI_PIPELINE', 'RELEASES', 'PACKAGES'];
const NO_FORGE_API =
  'no forge API is known for git.example; to measure it, name its kind (github, gitlab or gitea) and apiUrl under hosts: in the config';
const NOT_ASKED = Object.fromEntries(FORGE_RULES.map((r) => [r, null]));
const notAskedBecause = (why: string) =>
  Object.fromEntries(FORGE_RULES.map((r) => [r, `not asked: ${why}`]));

let server: ForgeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const request = (host: string): ForgeRequest => ({
  target: { url: `https://${host}/acme/widget`, host, path: 'acme/widget', source: 'repos.txt:1' },
  times: [E1, E],
  asOf: E,
  git: { tagNames: new Set() },
  windowMonths: {},
  horizonMonths: 12,
});

const version = (system: string, name: string, v: string, isDefault: boolean) => ({
  versionKey: { system, name, version: v },
  publishedAt: '2026-01-01T00:00:00Z',
  isDefault,
});

describe('DEPENDENTS', () => {
  it('ecosyste.ms: the dependent repositories of every package from the repository, at E only', async () => {
    server = await startForgeServer(
      [
        {
          template: '/packages/lookup',
          reply: (_p, q) =>
            q.query.get('repository_url') === 'https://git.example/acme/widget'
              ? {
                  status: 200,
                  body: [
                    {
                      name: 'widget',
                      ecosystem: 'npm',
                      repository_url: 'https://git.example/acme/widget',
                      dependent_packages_count: 4,
                      dependent_repos_count: 12,
                    },
                    {
                      name: 'widget-cli',
                      ecosystem: 'pypi',
                      repository_url: 'https://git.example/acme/widget',
                      dependent_packages_count: 0,
                      dependent_repos_count: null,
                    },
                    {
                      name: 'widget-go',
                      ecosystem: 'go',
                      repository_url: 'https://git.example/acme/widget',
                      dependent_packages_count: 1,
                      dependent_repos_count: 3,
                    },
                  ],
                }
              : { status: 200, body: [] },
        },
      ],
      check,
    );
    // An unknown host: no forge adapter (its rules not asked), but the index answers for any
    // repository URL.
    const forge = measurersFor(
      { hosts: {}, dependents: { source: 'ecosyste.ms', apiUrl: server.url } },
      {},
    );
    const r = await forge(request('git.example').target)!.measure(request('git.example'));
    expect(server.violations).toEqual([]);
    expect(r.rules).toEqual([...FORGE_RULES, 'DEPENDENTS']);
    expect(r.notAsked).toEqual([{ rules: FORGE_RULES, why: NO_FORGE_API }]);
    // 12 + 0 (null) + 3.
    expect(r.measurements[1]!.values).toEqual({ ...NOT_ASKED, DEPENDENTS: 15 });
    expect(r.measurements[1]!.evidence.DEPENDENTS).toBe(
      'ecosyste.ms: 15 dependents of 3 packages published from this repository',
    );
    expect(r.measurements[0]!.values).toEqual(NOT_ASKED);
    expect(r.requests).toBe(1);
  });

  it("deps.dev: direct dependents of each package's default version; 404 is none known; 500 a failure", async () => {
    let projectAnswer: Reply | undefined;
    server = await startForgeServer(
      [
        {
          template: '/v3alpha/projects/{projectKey}:packageversions',
          reply: (p) =>
            projectAnswer ??
            (p.projectKey === 'git.example/acme/widget'
              ? {
                  status: 200,
                  body: {
                    versions: [
                      {
                        versionKey: { system: 'NPM', name: '@acme/widget', version: '1.0.0' },
                        relationType: 'SOURCE_REPO',
                        relationProvenance: 'UNVERIFIED_METADATA',
                      },
                      {
                        versionKey: { system: 'NPM', name: '@acme/widget', version: '1.1.0' },
                        relationType: 'SOURCE_REPO',
                        relationProvenance: 'UNVERIFIED_METADATA',
                      },
                      {
                        versionKey: { system: 'PYPI', name: 'widget', version: '0.3.0' },
                        relationType: 'SOURCE_REPO',
                        relationProvenance: 'UNVERIFIED_METADATA',
                      },
                    ],
                  },
                }
              : { status: 404, body: { code: 5, message: 'project not found' } }),
        },
        {
          template: '/v3/systems/{system}/packages/{name}',
          reply: (p) => ({
            status: 200,
            body: {
              packageKey: { system: p.system, name: p.name },
              versions:
                p.system === 'NPM'
                  ? [
                      version('NPM', p.name!, '1.0.0', false),
                      version('NPM', p.name!, '1.1.0', true),
                    ]
                  : [version('PYPI', p.name!, '0.3.0', true)],
            },
          }),
        },
        {
          template: '/v3alpha/systems/{system}/packages/{name}/versions/{version}:dependents',
          reply: (p) => ({
            status: 200,
            body:
              p.system === 'NPM' && p.version === '1.1.0'
                ? { dependentCount: 40, directDependentCount: 9, indirectDependentCount: 31 }
                : p.system === 'PYPI'
                  ? { dependentCount: 2, directDependentCount: 2, indirectDependentCount: 0 }
                  : { dependentCount: 999, directDependentCount: 999, indirectDependentCount: 0 },
          }),
        },
      ],
      check,
    );
    const settings = { hosts: {}, dependents: { source: 'deps.dev' as const, apiUrl: server.url } };
    const target = request('git.example').target;
    const r = await measurersFor(settings, {})(target)!.measure(request('git.example'));
    expect(server.violations).toEqual([]);
    // 9 (the npm package's default, 1.1.0) + 2 (PyPI): the other versions are not asked.
    expect(r.measurements[1]!.values.DEPENDENTS).toBe(11);
    expect(r.rules).toContain('DEPENDENTS');
    expect(server.requests.map((q) => q.path)).toEqual([
      '/v3alpha/projects/git.example%2Facme%2Fwidget:packageversions',
      '/v3/systems/NPM/packages/%40acme%2Fwidget',
      '/v3alpha/systems/NPM/packages/%40acme%2Fwidget/versions/1.1.0:dependents',
      '/v3/systems/PYPI/packages/widget',
      '/v3alpha/systems/PYPI/packages/widget/versions/0.3.0:dependents',
    ]);

    const other = { ...target, path: 'acme/other', url: 'https://git.example/acme/other' };
    const unknown = await measurersFor(
      settings,
      {},
    )(other)!.measure({ ...request('git.example'), target: other });
    expect(unknown.measurements[1]!.values).toEqual({ ...NOT_ASKED, DEPENDENTS: 0 });
    expect(unknown.failures).toEqual([]);

    projectAnswer = { status: 500, body: { code: 13, message: 'internal' } };
    const failed = await measurersFor(
      settings,
      {},
    )(other)!.measure({ ...request('git.example'), target: other });
    expect(failed.measurements[1]!.values).toEqual({ ...NOT_ASKED, DEPENDENTS: null });
    expect(failed.failures).toEqual(['deps.dev API: 500 server error']);
  });

  it('an earlier time measured again without E gets no DEPENDENTS: the index knows no past count', async () => {
    let asked = 0;
    server = await startForgeServer(
      [{ template: '/packages/lookup', reply: () => (asked++, { status: 200, body: [] }) }],
      check,
    );
    const settings = {
      hosts: {},
      dependents: { source: 'ecosyste.ms' as const, apiUrl: server.url },
    };
    // A scan at E whose record at E1 had a failed rule measures E1 again, and E not.
    const again = { ...request('git.example'), times: [E1], asOf: E };
    const r = await measurersFor(settings, {})(again.target)!.measure(again);
    // git.example's forge rules are not asked; DEPENDENTS is not there at all.
    expect(r.measurements).toEqual([
      { values: NOT_ASKED, evidence: notAskedBecause(NO_FORGE_API) },
    ]);
    expect([asked, r.requests]).toEqual([0, 0]);
    // Not asked (--forge never) says so at E alone too.
    const off = await noneAsked(
      measurersFor(settings, {}),
      '--forge never',
    )(again.target)!.measure(again);
    expect(off.measurements).toEqual([
      { values: NOT_ASKED, evidence: notAskedBecause('--forge never') },
    ]);
  });

  it('is off by default: an unknown host gets its forge rules not asked, a known one no DEPENDENTS', () => {
    const forge = measurersFor({ hosts: {} }, {});
    const unknown = forge(request('git.example').target)!;
    expect([unknown.answers, unknown.notAsked]).toEqual([FORGE_RULES, FORGE_RULES]);
    expect(forge(request('github.com').target)!.answers).not.toContain('DEPENDENTS');
  });
});
