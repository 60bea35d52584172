// What discovery shares between forges: where a source points (an owner, a group or a whole
// instance), what a forge's list says of each repository, and the filters that decide which
// of them are scanned. Each adapter lists its own way (adapter/<kind>/discover.ts); the
// filters run here, on every answer, whatever the forge was asked: a forge that ignores a
// query parameter (or a token that sees more than the public) never widens the list.
import type { RepositoryVisibility, SourceFilters } from '../../../config/types.ts';
import { ApiError } from '../../http/errors.ts';
import type { RegistryStates } from '../../types.ts';

export type Visibility = RepositoryVisibility;
/** Where a source's URL points, below its host. */
export type SourceScope =
  /** `https://host/NAME`: an organisation or a user (the adapter tells which). */
  | { kind: 'owner'; name: string }
  /** `https://host/GROUP/SUB`: a group with every subgroup (nested-groups forges only). */
  | { kind: 'group'; path: string }
  /** `https://host/`: every repository of the instance the token may list. */
  | { kind: 'instance' };

/** One repository as a forge's list gives it. */
export interface ListedRepository {
  /** The web address the forge gives (html_url, web_url), in the forge's own case. */
  url: string;
  archived: boolean;
  fork: boolean;
  mirror: boolean;
  visibility: Visibility;
  topics: readonly string[];
  /**
   * Whether issues are on, when the list says (the field the adapter's lookup reads): a scan
   * of the repository from this source then asks no lookup of its own.
   */
  issuesEnabled?: boolean;
  /** Whether its package registries are on, when the list says (the fields the lookup reads). */
  registries?: RegistryStates;
}

/** Why `repo` (at `path` below its host) is left out by `filters`, or undefined when it is kept. */
export function excludedBy(
  repo: ListedRepository,
  path: string,
  filters: SourceFilters,
): string | undefined {
  if (!filters.visibility.includes(repo.visibility))
    return `${repo.visibility} (the source keeps ${filters.visibility.join(', ')})`;
  if (repo.archived && !filters.archived) return 'archived (the source leaves archived ones out)';
  if (repo.fork && !filters.forks) return 'a fork (the source leaves forks out)';
  if (repo.mirror && !filters.mirrors) return 'a mirror (the source leaves mirrors out)';
  if (filters.topics.length > 0 && !repo.topics.some((t) => filters.topics.includes(t)))
    return `without any of the topics ${filters.topics.join(', ')}`;
  if (filters.include.length > 0 && !filters.include.some((p) => p.test(path)))
    return `its path matches no include pattern`;
  const out = filters.exclude.find((p) => p.test(path));
  if (out) return `its path matches the exclude pattern ${JSON.stringify(out.source)}`;
  return undefined;
}

/** A 404 of the forge's: an owner, group or repository that does not exist or is not visible. */
export const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.kind === 'not-found';

/** What `lookup` answers, or undefined when the forge answers 404. */
export async function unlessNotFound<T>(lookup: Promise<T>): Promise<T | undefined> {
  try {
    return await lookup;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}
