// Sources: the repositories of an organisation, user, group or instance, listed by its
// forge's adapter (adapter/<kind>/discover.ts), filtered (core/discover.ts), in the scan
// list's form. A source that fails is named and the others go on. URLs the caller already
// knows (the repos file) that a source no longer lists are looked up once each: a rename or
// transfer is reported old → new, a repository gone or left out says why.
import type { SourceSetting } from '../../config/types.ts';
import { counted } from '../../model/plural.ts';
import { checkRepositoryUrl } from '../../model/repository-url.ts';
import type { ListedTarget } from '../targets.ts';
import { apiTokenEnv } from '../host-token.ts';
import type { ForgeAdapter } from './core/adapter.ts';
import { excludedBy, type ListedRepository, type SourceScope } from './core/discover.ts';
import { ConditionalAnswers, MAX_STORED_LISTING_BYTES } from '../http/conditional-answers.ts';
import { describeFailure, redact } from '../http/errors.ts';
import { ApiClient, QueueRegistry } from '../http/client.ts';
import { mirrorPath } from '../git/mirror.ts';
import { hostAccess, type ForgeSettings } from './index.ts';
import { forgeAdapter, KNOWN_HOSTS } from './registry.ts';

export interface Discovery {
  /** Every repository the sources keep, by URL (code-unit order), each once. */
  targets: ListedTarget[];
  /** A source that could not be listed (whole or in part), or a listed URL refused. */
  problems: string[];
  /** A known URL the sources list under another name: "old → new (why)". */
  moved: Array<{ from: string; to: string }>;
  /** A known URL on a source's scope the sources no longer list, and why. */
  left: Array<{ url: string; why: string }>;
  /** Requests sent to the forges, lookups included. */
  requests: number;
  /** Of `requests`, the listing pages answered 304 Not Modified (the last listing's answer reused). */
  notModified: number;
}

interface Opened {
  source: SourceSetting;
  host: string;
  adapter: ForgeAdapter;
  scope: SourceScope;
  http: (answers?: ConditionalAnswers) => ApiClient;
}

/** The source's host, adapter and scope, or what is wrong with its URL. */
function openSource(
  source: SourceSetting,
  settings: ForgeSettings,
  env: Readonly<Record<string, string | undefined>>,
  registry: QueueRegistry,
): Opened | string {
  const at = `${source.where}: ${source.url}`;
  let url: URL;
  try {
    url = new URL(source.url);
  } catch {
    return `${at}: not a URL; name an organisation's, group's or instance's web address (https://host/NAME)`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `${at}: the scheme must be https (or http)`;
  if (url.username || url.password)
    return `${at}: the URL holds credentials; name the token's environment variable under hosts: instead`;
  if (url.search || url.hash) return `${at}: a source's URL has no query or fragment`;
  const host = url.host.toLowerCase();
  const entry = Object.hasOwn(settings.hosts, host) ? settings.hosts[host] : KNOWN_HOSTS[host];
  if (!entry)
    return `${at}: no forge API is known for ${host}; add hosts: ${host}: { kind: …, apiUrl: … } to the config`;
  if (entry.api === false || !entry.kind)
    return `${at}: hosts: ${host} has api: false; a source is listed through the forge's API`;
  const adapter = forgeAdapter(entry.kind)!;
  let segments: string[];
  try {
    segments = decodeURIComponent(url.pathname)
      .split('/')
      .filter((s) => s !== '');
  } catch {
    return `${at}: the path is not valid percent-encoding`;
  }
  let scope: SourceScope;
  if (segments.length === 0) {
    // A public forge's every repository (millions): never what an operator means.
    if (!Object.hasOwn(settings.hosts, host))
      return `${at}: names every repository of ${host}, a public forge; name an organisation, user or group (https://${host}/NAME)`;
    scope = { kind: 'instance' };
  } else if (adapter.repositoryPaths === 'nested-groups') {
    if (segments.includes('-'))
      return `${at}: "/-/" starts a page below a project; name the group's own address`;
    scope = { kind: 'group', path: segments.join('/') };
  } else if (segments.length === 1) scope = { kind: 'owner', name: segments[0]! };
  else
    return `${at}: names a repository, not an organisation or user; list it in the repos file, or name https://${host}/${segments[0]}`;
  const tokenEnv = apiTokenEnv(host, settings.hosts[host], KNOWN_HOSTS[host], settings.gitTokens);
  const access = hostAccess(
    { ...entry, kind: entry.kind, apiUrl: entry.apiUrl!, tokenEnv },
    adapter,
    env,
  );
  return {
    source,
    host,
    adapter,
    scope,
    http: (answers) =>
      new ApiClient(access, adapter.label, registry, adapter.authorize, undefined, answers),
  };
}

/**
 * The file holding a source's listing answers (ETags and bodies) of the last listing, beside
 * the mirrors as a repository's are: <mirrors>/<host>/<name>-<hash>.listing.json.
 */
export function listingAnswersPath(mirrors: string, host: string, sourceUrl: string): string {
  const path = new URL(sourceUrl).pathname.replace(/\/+$/, '') || 'instance';
  return mirrorPath(mirrors, sourceUrl, host, path).replace(/\.git$/, '.listing.json');
}

/** The path below the host of a URL on `host`, or undefined for one elsewhere. */
function pathOn(host: string, url: string): string | undefined {
  const checked = checkRepositoryUrl(url);
  if (!checked.ok) return undefined;
  const rest = checked.url.slice(checked.url.indexOf('://') + 3);
  const slash = rest.indexOf('/');
  if (rest.slice(0, slash) !== host) return undefined;
  const path = rest.slice(slash + 1).replace(/\/+$/, '');
  return path === '' ? undefined : path;
}

/** Whether a repository at `path` belongs to the scope (paths compared as the forges do: case aside). */
function inScope(scope: SourceScope, path: string): boolean {
  const p = path.toLowerCase();
  if (scope.kind === 'instance') return true;
  const prefix = `${(scope.kind === 'owner' ? scope.name : scope.path).toLowerCase()}/`;
  return p.startsWith(prefix);
}

/**
 * Lists every source's repositories and keeps those its filters allow. `known`: the URLs the
 * caller lists already (the repos file); those a source's scope holds but no source lists
 * are looked up (one request each) to tell a rename from a departure.
 */
export async function discoverSources(
  sources: readonly SourceSetting[],
  settings: ForgeSettings,
  env: Readonly<Record<string, string | undefined>>,
  /** The URLs known already, or how to find them once the sources' repositories are known. */
  known: readonly string[] | ((listed: readonly ListedTarget[]) => Promise<readonly string[]>) = [],
  /** Told the repositories kept so far after each page, and once more when the listing ends. */
  onListed?: (kept: number, done: boolean) => void,
  /**
   * Where each source's listing answers are kept for the next listing (the mirrors folder):
   * its pages are asked with If-None-Match; undefined: none kept, none asked so.
   */
  answersDir?: string,
): Promise<Discovery> {
  const registry = new QueueRegistry();
  const out: Discovery = {
    targets: [],
    problems: [],
    moved: [],
    left: [],
    requests: 0,
    notModified: 0,
  };
  const byUrl = new Map<string, ListedTarget>();
  const opened: Opened[] = [];
  for (const source of sources) {
    const o = openSource(source, settings, env, registry);
    if (typeof o === 'string') out.problems.push(o);
    else opened.push(o);
  }
  for (const o of opened) {
    const file =
      answersDir === undefined ? undefined : listingAnswersPath(answersDir, o.host, o.source.url);
    const answers =
      file === undefined
        ? undefined
        : await ConditionalAnswers.load(file, MAX_STORED_LISTING_BYTES);
    const http = o.http(answers);
    let listed = 0;
    try {
      for await (const page of o.adapter.discover(http, o.scope, o.source)) {
        for (const repo of page) {
          listed++;
          const target = targetOf(repo, o);
          if (typeof target === 'string') out.problems.push(target);
          else if (target && !byUrl.has(target.url)) byUrl.set(target.url, target);
        }
        onListed?.(byUrl.size, false);
      }
    } catch (error) {
      const tokens = http.access.tokens;
      out.problems.push(
        `${o.source.where}: ${o.source.url}: ${redact(describeFailure(http.label, error), tokens)}${listed > 0 ? ` after ${counted(listed, 'repository', 'repositories')}; those are kept, the rest is not listed` : '; nothing listed'}`,
      );
    }
    out.requests += http.requests;
    out.notModified += http.notModified;
    // Keeps the pages read this time (a listing cut short, those it reached); a file that
    // cannot be written is reported, and the next listing asks every page whole.
    if (answers && file && http.requests > 0)
      await answers
        .save(file)
        .catch((error: unknown) =>
          out.problems.push(
            `${o.source.where}: ${o.source.url}: the listing's answers were not kept for the next scan (${file}): ${(error as Error).message}`,
          ),
        );
  }
  onListed?.(byUrl.size, true);
  out.targets = [...byUrl.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  await lookUpDepartures(
    opened,
    byUrl,
    typeof known === 'function' ? await known(out.targets) : known,
    out,
  );
  return out;
}

/** The target a listed repository makes, undefined when the source's filters leave it out, or why its URL is refused. */
function targetOf(repo: ListedRepository, o: Opened): ListedTarget | string | undefined {
  const path = pathOn(o.host, repo.url);
  if (path === undefined)
    return `${o.source.where}: ${o.source.url}: the forge listed ${JSON.stringify(repo.url)}, not a repository address on ${o.host}; left out`;
  if (excludedBy(repo, path, o.source) !== undefined) return undefined;
  const url = checkRepositoryUrl(repo.url);
  if (!url.ok) return undefined;
  return {
    url: url.url.replace(/\/+$/, ''),
    host: o.host,
    path,
    source: `${o.source.where} ${o.source.url}`,
    fetchUrl: repo.url,
    ...(repo.issuesEnabled !== undefined ? { issuesEnabled: repo.issuesEnabled } : {}),
    ...(repo.registries ? { registries: repo.registries } : {}),
  };
}

async function lookUpDepartures(
  opened: readonly Opened[],
  byUrl: Map<string, ListedTarget>,
  known: readonly string[],
  out: Discovery,
): Promise<void> {
  const lower = new Map([...byUrl.keys()].map((u) => [u.toLowerCase(), u]));
  for (const url of [...new Set(known)].sort()) {
    if (byUrl.has(url)) continue;
    // The same repository in another case, or with `.git` (two store keys, one repository).
    const same = lower.get(url.toLowerCase()) ?? lower.get(url.toLowerCase().replace(/\.git$/, ''));
    if (same) {
      out.moved.push({ from: url, to: same });
      continue;
    }
    const o = opened.find((s) => {
      const path = pathOn(s.host, url);
      return path !== undefined && inScope(s.scope, path);
    });
    if (!o) continue;
    const http = o.http();
    try {
      const now = await o.adapter.locate(http, pathOn(o.host, url)!);
      if (!now)
        out.left.push({
          url,
          why: 'the forge answers 404: deleted, or not visible to the token (made private?)',
        });
      else {
        const path = pathOn(o.host, now.url);
        const moved = lower.get(now.url.replace(/\/+$/, '').toLowerCase());
        if (moved) out.moved.push({ from: url, to: moved });
        else if (path === undefined || !inScope(o.scope, path))
          out.left.push({ url, why: `moved out of the source to ${now.url}` });
        else
          out.left.push({
            url,
            why: excludedBy(now, path, o.source) ?? 'the source no longer lists it',
          });
      }
    } catch (error) {
      out.problems.push(
        `${url}: no longer listed by ${o.source.url}, and the lookup failed: ${redact(describeFailure(http.label, error), http.access.tokens)}`,
      );
    }
    out.requests += http.requests;
  }
}

/** A warning for each source that keeps internal or private repositories: their names get published. */
export function sourceWarnings(sources: readonly SourceSetting[]): string[] {
  return sources
    .filter((s) => s.visibility.some((v) => v !== 'public'))
    .map((s) => {
      const which = s.visibility.filter((v) => v !== 'public').join(' and ');
      return `${s.where}: ${s.url} keeps ${which} repositories: the site publishes their names, URLs and badges to anyone who can read it`;
    });
}

/**
 * A live line for a terminal ("discover: N repositories listed"), at most ten redraws a
 * second, cleared when the listing ends; undefined when `stream` is no terminal (or in CI).
 */
export function listingProgress(
  stream: NodeJS.WriteStream,
  shown: boolean,
): ((kept: number, done: boolean) => void) | undefined {
  if (!shown) return undefined;
  let drawn = 0;
  return (kept, done) => {
    if (done) return void stream.write('\r\x1b[K');
    const now = Date.now();
    if (now - drawn < 100) return;
    drawn = now;
    stream.write(`\r\x1b[Kdiscover: ${counted(kept, 'repository', 'repositories')} listed`);
  };
}
