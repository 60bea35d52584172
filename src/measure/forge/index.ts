// The forge side of a scan: which host speaks which API, and the measurer for a target.
// `forgeFor(settings, env)` is what the scan command calls once per run.
import type { ForgeFor, ForgeMeasurer, ForgeRequest, ForgeResult, Measurement } from '../types.ts';
import type { DependentsConfig, HostConfig, HostEntry } from '../../config/types.ts';
import { ForgeHttp, QueueRegistry, tokenPool, type HostAccess } from './core/http.ts';
import { FORGE_RULES, sourceMeasurer, type ForgeSource } from './core/measurer.ts';
import { GITHUB_LABEL } from './adapter/github/label.ts';
import { GITLAB_LABEL, gitlabSource } from './adapter/gitlab/index.ts';
import { GITEA_LABEL, giteaSource } from './adapter/gitea/index.ts';
import { combined, dependentsMeasurer } from './dependents/index.ts';

export { tokenPool };
export type { HostConfig };

export type ForgeKind = HostConfig['kind'];

/** Hosts every deployment knows without configuration; a `hosts:` entry of the same name wins. */
export const KNOWN_HOSTS: Readonly<Record<string, HostConfig>> = {
  'github.com': { kind: 'github', apiUrl: 'https://api.github.com', tokenEnv: 'GITHUB_TOKEN', requestsPerSecond: 10 },
  'gitlab.com': { kind: 'gitlab', apiUrl: 'https://gitlab.com/api/v4', tokenEnv: 'GITLAB_TOKEN', requestsPerSecond: 5 },
  'codeberg.org': { kind: 'gitea', apiUrl: 'https://codeberg.org/api/v1', tokenEnv: 'CODEBERG_TOKEN', requestsPerSecond: 2 },
};

export const HOST_DEFAULTS = { requestsPerSecond: 5, timeoutSeconds: 30, maxWaitSeconds: 60 } as const;

type Open = (http: ForgeHttp, request: ForgeRequest) => ForgeSource;

/**
 * The GitHub adapter, loaded on its first call: Octokit is most of what a scan would load at
 * start, and a scan of hosts without GitHub's API never needs it.
 */
const githubSource: Open = (http, request) => {
  const source = import('./adapter/github/index.ts').then((m) => m.githubSource(http, request));
  return {
    repository: () => source.then((s) => s.repository()),
    issues: (since) => source.then((s) => s.issues(since)),
    ciRuns: (from, to) => source.then((s) => s.ciRuns(from, to)),
    releases: () => source.then((s) => s.releases()),
    packages: () => source.then((s) => s.packages()),
  };
};
const ADAPTERS: Record<ForgeKind, { label: string; open: Open; authorize: (token: string) => [string, string] }> = {
  github: { label: GITHUB_LABEL, open: githubSource, authorize: (t) => ['authorization', `Bearer ${t}`] },
  gitlab: { label: GITLAB_LABEL, open: gitlabSource, authorize: (t) => ['private-token', t] },
  gitea: { label: GITEA_LABEL, open: giteaSource, authorize: (t) => ['authorization', `token ${t}`] },
};

export function hostAccess(host: HostConfig, env: Readonly<Record<string, string | undefined>>): HostAccess {
  return {
    kind: host.kind,
    apiUrl: host.apiUrl.replace(/\/+$/, ''),
    tokens: tokenPool(host.tokenEnv ? env[host.tokenEnv] : undefined),
    tokenEnv: host.tokenEnv,
    requestsPerSecond: host.requestsPerSecond ?? HOST_DEFAULTS.requestsPerSecond,
    timeoutSeconds: host.timeoutSeconds ?? HOST_DEFAULTS.timeoutSeconds,
    maxWaitSeconds: host.maxWaitSeconds ?? HOST_DEFAULTS.maxWaitSeconds,
    bounds: { maxPagesPerList: host.maxPagesPerList, maxRequestsPerRepository: host.maxRequestsPerRepository, maxSecondsPerRepository: host.maxSecondsPerRepository, maxAnswerBytes: host.maxAnswerBytes },
  };
}

export interface ForgeSettings {
  /** The config's `hosts:` (over the known hosts); an entry with `api: false` is never asked. */
  hosts: Readonly<Record<string, HostEntry>>;
  /** The config's `dependents:`; absent, DEPENDENTS is not measured. */
  dependents?: DependentsConfig;
  /** `scan.tokens` (host → variable git uses): the API uses the same token unless the host names its own. */
  gitTokens?: Readonly<Record<string, string>>;
}

/**
 * The measurer for each target: its host's forge adapter (the config's `hosts:` over the known
 * ones) and the dependency index when one is chosen; undefined when neither applies (a host
 * with no known forge gets the git rules only). One queue per host and token for the whole
 * run, however many repositories share them.
 */
export function forgeFor(settings: ForgeSettings, env: Readonly<Record<string, string | undefined>>): ForgeFor {
  const registry = new QueueRegistry();
  const all: Record<string, HostEntry> = { ...KNOWN_HOSTS, ...settings.hosts };
  for (const [host, variable] of Object.entries(settings.gitTokens ?? {})) {
    const h = all[host];
    if (h && h.api !== false && !settings.hosts[host]?.tokenEnv) all[host] = { ...h, tokenEnv: variable };
  }
  const dependents = settings.dependents ? dependentsMeasurer(settings.dependents, registry) : undefined;
  const measurers = new Map<string, ForgeMeasurer | undefined>();
  return (target) => {
    const host = all[target.host];
    // A host named git alone (api: false) may give no kind: its URLs follow no forge's form.
    if (host?.kind) {
      const problem = repositoryPathProblem(host.kind, target.path);
      if (problem) throw new Error(`${problem}; list the repository's own URL (https://${target.host}/${host.kind === 'gitlab' ? 'GROUP/…/NAME' : 'OWNER/NAME'}), not a page below it`);
    }
    if (measurers.has(target.host)) return measurers.get(target.host);
    let m: ForgeMeasurer | undefined;
    if (host?.api === false) m = notAskedMeasurer({ always: FORGE_RULES, latest: [] }, `hosts: ${target.host}: api: false (git alone)`);
    else if (host) {
      const access = hostAccess(host, env);
      const adapter = ADAPTERS[host.kind];
      m = sourceMeasurer((signal) => new ForgeHttp(access, adapter.label, registry, adapter.authorize, signal), adapter.open);
    }
    if (dependents) m = m ? combined(m, dependents) : dependents;
    measurers.set(target.host, m);
    return m;
  };
}

/**
 * A measurer that asks no server: the rules `answers` names are null at every time (E alone
 * for `latest`) with the evidence "not asked: <why>", and the result says so (never a failure).
 */
export function notAskedMeasurer(answers: ForgeMeasurer['answers'], why: string): ForgeMeasurer {
  const rules = [...answers.always, ...answers.latest];
  return {
    answers,
    async measure(request: ForgeRequest): Promise<ForgeResult> {
      const evidence = `not asked: ${why}`;
      const measurements = request.times.map((_, i): Measurement => {
        const here = i === request.times.length - 1 ? rules : answers.always;
        return { values: Object.fromEntries(here.map((r) => [r, null])), evidence: Object.fromEntries(here.map((r) => [r, evidence])) };
      });
      return { measurements, rules, failures: [], requests: 0, notAsked: [{ rules, why }] };
    },
  };
}

/** `forgeFor` with no server asked (`--forge never`, `--fetch never`): each target's rules not asked, for `why`. */
export function noneAsked(forgeFor: ForgeFor, why: string): ForgeFor {
  const measurers = new Map<ForgeMeasurer, ForgeMeasurer>();
  return (target) => {
    const m = forgeFor(target);
    if (!m) return undefined;
    let off = measurers.get(m);
    if (!off) measurers.set(m, (off = notAskedMeasurer(m.answers, why)));
    return off;
  };
}

/**
 * Why `path` names no repository of a forge of this kind, or undefined: GitHub's and Gitea's
 * API address a repository as /repos/{owner}/{repo}, two segments exactly; GitLab's projects
 * sit in groups nested to any depth (group/sub/…/name), and "-" starts a page below a project
 * (/-/tree/…), never a group or project of its own.
 */
export function repositoryPathProblem(kind: ForgeKind, path: string): string | undefined {
  const segments = path.split('/');
  const label = ADAPTERS[kind].label;
  if (kind === 'gitlab') {
    if (segments.length < 2) return `the ${label} names a project GROUP/…/NAME, and "${path}" has 1 path segment`;
    if (segments.includes('-')) return `the ${label} names a project GROUP/…/NAME, and "${path}" holds "/-/", which starts a page below a project`;
    return undefined;
  }
  if (segments.length !== 2) return `the ${label} names a repository OWNER/NAME, and "${path}" has ${segments.length} path ${segments.length === 1 ? 'segment' : 'segments'}`;
  return undefined;
}
