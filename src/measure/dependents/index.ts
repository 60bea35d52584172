// The dependents rule (RULE.dependents) from a dependency index, when the config chooses one
// (deps.dev or ecosyste.ms): the projects that depend on the packages published from the
// repository, as the index counts them today. Only the scan time E gets it (the table's
// latestOnly): an index tells no past counts. No forge: it asks over the HTTP client the
// forges use too (src/measure/http/: queues, bounds, JSON checks), with no token.
import type { DependentsConfig } from '../../config/types.ts';
import { measuredAt, RULE } from '../../model/measured-rules.ts';
import type { ForgeMeasurer, ForgeRequest, ForgeResult, ScanTarget } from '../types.ts';
import { describeFailure, ApiError } from '../http/errors.ts';
import { ApiClient, type QueueRegistry } from '../http/client.ts';

const DEPENDENTS_API_URLS: Record<DependentsConfig['source'], string> = {
  'deps.dev': 'https://api.deps.dev',
  'ecosyste.ms': 'https://packages.ecosyste.ms/api/v1',
};

interface Count {
  dependents: number;
  packages: number;
}

/** ecosyste.ms: the packages whose repository is this one, each with the repositories depending on it. */
async function ecosystems(http: ApiClient, target: ScanTarget): Promise<Count> {
  const { body } = await http.getJson<Array<{ dependent_repos_count?: number | null }>>(
    '/packages/lookup',
    {
      repository_url: target.url,
    },
  );
  return {
    dependents: body.reduce((n, p) => n + (p.dependent_repos_count ?? 0), 0),
    packages: body.length,
  };
}

/** deps.dev: the package versions built from this project; per package its default version's direct dependents. */
async function depsDev(http: ApiClient, target: ScanTarget): Promise<Count> {
  const project = encodeURIComponent(`${target.host}/${target.path}`);
  const { body } = await http.getJson<{
    versions?: Array<{ versionKey: { system: string; name: string } }>;
  }>(`/v3alpha/projects/${project}:packageversions`);
  const packages = new Map<string, { system: string; name: string }>();
  for (const v of body.versions ?? [])
    packages.set(`${v.versionKey.system}\0${v.versionKey.name}`, v.versionKey);
  let dependents = 0;
  for (const { system, name } of packages.values()) {
    const pkg = `/v3/systems/${encodeURIComponent(system)}/packages/${encodeURIComponent(name)}`;
    const { body: info } = await http.getJson<{
      versions?: Array<{ versionKey: { version: string }; isDefault?: boolean }>;
    }>(pkg);
    const version = (info.versions ?? []).find((v) => v.isDefault)?.versionKey.version;
    if (version === undefined) continue;
    const { body: count } = await http.getJson<{ directDependentCount?: number }>(
      `/v3alpha/systems/${encodeURIComponent(system)}/packages/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}:dependents`,
    );
    dependents += count.directDependentCount ?? 0;
  }
  return { dependents, packages: packages.size };
}

/** The rule measured here, by the table's handle: its id and evidence wording. */
const { dependents: rule } = RULE;

export function dependentsMeasurer(
  config: DependentsConfig,
  registry: QueueRegistry,
): ForgeMeasurer {
  const label = `${config.source} API`;
  const access = {
    apiUrl: (config.apiUrl ?? DEPENDENTS_API_URLS[config.source]).replace(/\/+$/, ''),
    tokens: [],
    requestsPerSecond: 5,
    timeoutSeconds: config.timeoutSeconds ?? 30,
    maxWaitSeconds: 60,
  };
  const count = config.source === 'deps.dev' ? depsDev : ecosystems;
  return {
    answers: [rule.id],
    async measure(request: ForgeRequest): Promise<ForgeResult> {
      const http = new ApiClient(access, label, registry, () => ['x-unused', ''], request.signal);
      const measurements = request.times.map(
        () => ({ values: {}, evidence: {} }) as ForgeResult['measurements'][number],
      );
      // The times the table measures the rule at: E alone (latest-only), when E is asked for;
      // an earlier time measured again without E gets nothing, as the index tells no past count.
      const last = measurements.find((_, i) =>
        measuredAt(rule.id, request.times[i]!, request.asOf),
      );
      const failures: string[] = [];
      if (last) {
        try {
          const c = await count(http, request.target);
          last.values[rule.id] = c.dependents;
          last.evidence[rule.id] = rule.evidence.measured({ index: config.source, ...c });
        } catch (error) {
          // The index answers 404 for a project it has no package of: none known, not a failure.
          const unknown = error instanceof ApiError && error.kind === 'not-found';
          const cause = unknown ? undefined : describeFailure(label, error);
          if (cause) failures.push(cause);
          last.values[rule.id] = cause ? null : 0;
          last.evidence[rule.id] = cause ?? rule.evidence.noPackage({ index: config.source });
        }
      }
      return { measurements, rules: [rule.id], failures, requests: http.requests };
    },
  };
}
