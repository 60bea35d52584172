// The forge side of a scan: which host speaks which API (the registry's adapters), and the
// forge measurer for a target. src/measure/index.ts adds the dependency index beside it.
import type { ForgeFor, ForgeMeasurer, ScanTarget } from '../types.ts';
import type { HostConfig, HostEntry } from '../../config/types.ts';
import { ConfigError } from '../../errors.ts';
import { counted } from '../../model/plural.ts';
import { mirrorPath } from '../git/mirror.ts';
import { notAskedMeasurer } from '../not-asked.ts';
import { apiTokenEnv, tokenPool } from '../host-token.ts';
import type { ForgeAdapter } from './core/adapter.ts';
import { ApiClient, QueueRegistry, type HostAccess } from '../http/client.ts';
import { FORGE_RULES, type KeptAnswers, sourceMeasurer } from './core/measurer.ts';
import { FORGE_KINDS, forgeAdapter, KNOWN_HOSTS } from './registry.ts';

const HOST_DEFAULTS = {
  requestsPerSecond: 5,
  timeoutSeconds: 30,
  maxWaitSeconds: 60,
} as const;

/** How to reach `host`'s API: its entry with the defaults filled in, its tokens from `env`. */
export function hostAccess(
  host: HostConfig,
  adapter: ForgeAdapter,
  env: Readonly<Record<string, string | undefined>>,
): HostAccess {
  return {
    app: appOf(host, adapter, env),
    quirks: adapter.quirks,
    apiUrl: host.apiUrl.replace(/\/+$/, ''),
    tokens: tokenPool(host.tokenEnv ? env[host.tokenEnv] : undefined),
    tokenEnv: host.tokenEnv,
    requestsPerSecond: host.requestsPerSecond ?? HOST_DEFAULTS.requestsPerSecond,
    timeoutSeconds: host.timeoutSeconds ?? HOST_DEFAULTS.timeoutSeconds,
    maxWaitSeconds: host.maxWaitSeconds ?? HOST_DEFAULTS.maxWaitSeconds,
    bounds: {
      maxPagesPerList: host.maxPagesPerList,
      maxRequestsPerRepository: host.maxRequestsPerRepository,
      maxSecondsPerRepository: host.maxSecondsPerRepository,
      maxAnswerBytes: host.maxAnswerBytes,
    },
  };
}

/**
 * The app a host's entry names (its id and private key from the environment), when both
 * variables are set; one without the other is an error naming the missing one.
 */
function appOf(
  host: HostConfig,
  adapter: ForgeAdapter,
  env: Readonly<Record<string, string | undefined>>,
): HostAccess['app'] {
  const { appIdEnv: idEnv, appKeyEnv: keyEnv } = host;
  if (!idEnv && !keyEnv) return undefined;
  if (!adapter.apps)
    throw new ConfigError([
      `hosts: appIdEnv/appKeyEnv: the ${adapter.label} has no apps that act for installations; give a token through tokenEnv`,
    ]);
  const id = idEnv ? env[idEnv]?.trim() : undefined;
  const privateKey = keyEnv ? env[keyEnv] : undefined;
  if (!id && !privateKey) return undefined;
  if (!id || !privateKey || !idEnv || !keyEnv) {
    const missing = !id ? (idEnv ?? 'appIdEnv') : (keyEnv ?? 'appKeyEnv');
    throw new Error(
      `the ${adapter.label} app needs both its id and its private key: ${missing} is not set (set it, or unset the other to use tokens)`,
    );
  }
  return { id, privateKey, idEnv, keyEnv };
}

export interface ForgeSettings {
  /** The config's `hosts:` (over the known hosts); an entry with `api: false` is never asked. */
  hosts: Readonly<Record<string, HostEntry>>;
  /** `scan.tokens` (host → variable git uses): the API uses the same token unless the host names its own. */
  gitTokens?: Readonly<Record<string, string>>;
  /**
   * Where each repository's forge answers are kept for its next scan (the mirrors folder,
   * forgeAnswersPath); undefined: none kept, none asked conditionally.
   */
  answersDir?: string;
  /** Bytes of kept bodies a repository's file holds at most (default MAX_STORED_ANSWER_BYTES). */
  keptAnswerBytes?: number;
}

/**
 * The file beside a repository's mirror holding its forge answers (ETags and the fields read)
 * of the last scan, and the adapters' findings (an unchanged issue's reactions): <mirrors>/<host>/<name>-<hash>.forge.json (in the mirrors folder even for a
 * `mirror=` repository, which is not ours to write beside).
 */
export function forgeAnswersPath(mirrors: string, target: ScanTarget): string {
  return mirrorPath(mirrors, target.url, target.host, target.path).replace(/\.git$/, '.forge.json');
}

/** Where `settings` keeps each repository's forge answers, if anywhere. */
function keptAnswers({ answersDir, keptAnswerBytes }: ForgeSettings): KeptAnswers | undefined {
  if (answersDir === undefined) return undefined;
  return {
    file: (target) => forgeAnswersPath(answersDir, target),
    ...(keptAnswerBytes !== undefined ? { maxBytes: keptAnswerBytes } : {}),
  };
}

/**
 * Why the forge rules are not asked for a repository on `host`, a host no `hosts:` entry names
 * and badgepress does not know (a plain git server, or a forge nobody said the kind of), and
 * what to do.
 */
function noForgeApiKnown(host: string): string {
  const kinds = `${FORGE_KINDS.slice(0, -1).join(', ')} or ${FORGE_KINDS.at(-1)}`;
  return `no forge API is known for ${host}; to measure it, name its kind (${kinds}) and apiUrl under hosts: in the config`;
}

/**
 * The forge measurer for each target: its host's forge adapter (the config's `hosts:` over the
 * known ones). A host whose entry says `api: false`, and one with no known forge (a plain git
 * server), gets the forge rules null as not asked, saying why. One queue per host and token
 * for the whole run (`registry`), however many repositories share them.
 */
export function forgeFor(
  settings: ForgeSettings,
  env: Readonly<Record<string, string | undefined>>,
  registry = new QueueRegistry(),
): ForgeFor {
  const kept = keptAnswers(settings);
  const all: Record<string, HostEntry> = { ...KNOWN_HOSTS, ...settings.hosts };
  // The config schema allows only the registry's kinds; a caller of this function may not.
  const unknown = Object.entries(settings.hosts).filter(
    ([, h]) => h.api !== false && !forgeAdapter(h.kind),
  );
  if (unknown.length > 0)
    throw new ConfigError(
      unknown.map(
        ([host, h]) =>
          `hosts: ${host}: kind: ${JSON.stringify(h.kind)} is no forge badgepress knows; use one of ${FORGE_KINDS.join(', ')}`,
      ),
    );
  const measurers = new Map<string, ForgeMeasurer | undefined>();
  return (target) => {
    const host = all[target.host];
    // A host named git alone (api: false) may give no kind: its URLs follow no forge's form.
    const pathAdapter = host?.kind ? forgeAdapter(host.kind) : undefined;
    if (pathAdapter) {
      const problem = repositoryPathProblem(pathAdapter, target.path);
      const form = pathAdapter.repositoryPaths === 'nested-groups' ? 'GROUP/…/NAME' : 'OWNER/NAME';
      if (problem)
        throw new Error(
          `${problem}; list the repository's own URL (https://${target.host}/${form}), not a page below it`,
        );
    }
    if (measurers.has(target.host)) return measurers.get(target.host);
    let m: ForgeMeasurer;
    if (host?.api === false)
      m = notAskedMeasurer(FORGE_RULES, `hosts: ${target.host}: api: false (git alone)`);
    // Held, not left out: the record says why, and a scan at the same time once the host is
    // named finds it complete (as after --forge never), never "incomplete".
    else if (!host) m = notAskedMeasurer(FORGE_RULES, noForgeApiKnown(target.host));
    else {
      const adapter = forgeAdapter(host.kind)!;
      const tokenEnv = apiTokenEnv(
        target.host,
        settings.hosts[target.host],
        KNOWN_HOSTS[target.host],
        settings.gitTokens,
      );
      const access = hostAccess({ ...host, tokenEnv }, adapter, env);
      m = {
        ...sourceMeasurer(
          (signal, answers) =>
            new ApiClient(access, adapter.label, registry, adapter.authorize, signal, answers),
          adapter.open,
          kept,
        ),
        inFlight: (ceiling) =>
          registry.inFlight(
            access.apiUrl,
            access.tokens.length,
            access.requestsPerSecond,
            ceiling,
            access.app !== undefined,
          ),
      };
    }
    measurers.set(target.host, m);
    return m;
  };
}

/**
 * Why `path` names no repository of the adapter's forge, or undefined: an OWNER/NAME API
 * addresses a repository as /repos/{owner}/{repo}, two segments exactly; projects in nested
 * groups sit at any depth (group/sub/…/name), and "-" starts a page below a project
 * (/-/tree/…), never a group or project of its own.
 */
function repositoryPathProblem(adapter: ForgeAdapter, path: string): string | undefined {
  const segments = path.split('/');
  const label = adapter.label;
  if (adapter.repositoryPaths === 'nested-groups') {
    if (segments.length < 2)
      return `the ${label} names a project GROUP/…/NAME, and "${path}" has 1 path segment`;
    if (segments.includes('-'))
      return `the ${label} names a project GROUP/…/NAME, and "${path}" holds "/-/", which starts a page below a project`;
    return undefined;
  }
  if (segments.length !== 2)
    return `the ${label} names a repository OWNER/NAME, and "${path}" has ${counted(segments.length, 'path segment', 'path segments')}`;
  return undefined;
}
