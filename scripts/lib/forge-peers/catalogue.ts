// The repositories a forge stand-in holds for discovery tests: each with its path (in the
// forge's own case), visibility, archived, fork and mirror flags and topics; renamed paths;
// owners that are users rather than organisations. Each stand-in answers its forge's list
// endpoints from it as that forge documents (github.ts, gitlab.ts, gitea.ts). A request
// with a token sees every repository (the token's owner is a member of everything); one
// without sees the public ones, as on the forges.
import type { RequestSeen } from './server.ts';

export type CatalogueVisibility = 'public' | 'internal' | 'private';

export interface CatalogueRepo {
  /** owner/name, or group/sub/…/name, in the forge's own case. */
  path: string;
  visibility?: CatalogueVisibility;
  archived?: boolean;
  fork?: boolean;
  mirror?: boolean;
  topics?: string[];
}

export interface Catalogue {
  /** Where the forge's web pages are: https://gitlab.example (html_url/web_url start with it). */
  web: string;
  repos: readonly CatalogueRepo[];
  /** Old path → new path, for repositories renamed or transferred (old paths redirect). */
  renamed?: Readonly<Record<string, string>>;
  /** Owners that are users, not organisations or groups. */
  users?: readonly string[];
  /**
   * Owners whose profile signed-in users alone may see (Gitea's and Forgejo's `limited`): their
   * repositories listed `internal` are not private, yet no anonymous visitor sees them.
   */
  limitedOwners?: readonly string[];
}

/** A repository of the catalogue with its id (its place, from 1) and defaults filled in. */
export interface Held extends Required<CatalogueRepo> {
  id: number;
  owner: string;
  name: string;
}

export function held(c: Catalogue): Held[] {
  return c.repos.map((r, i) => {
    const cut = r.path.lastIndexOf('/');
    return {
      visibility: 'public',
      archived: false,
      fork: false,
      mirror: false,
      topics: [],
      ...r,
      id: i + 1,
      owner: r.path.slice(0, cut),
      name: r.path.slice(cut + 1),
    };
  });
}

/** Whether the request carries a token (the stand-ins take any token as a member's). */
export function signedIn(req: RequestSeen): boolean {
  return req.headers.authorization !== undefined || req.headers['private-token'] !== undefined;
}

/** The repositories the request may see. */
export function visibleTo(repos: readonly Held[], req: RequestSeen): Held[] {
  return signedIn(req) ? [...repos] : repos.filter((r) => r.visibility === 'public');
}

/** The repository at `path` (case aside, as the forges look paths up), following a rename. */
export function find(
  c: Catalogue,
  repos: readonly Held[],
  path: string,
): { repo?: Held; movedFrom?: string } {
  const lower = path.toLowerCase();
  const direct = repos.find((r) => r.path.toLowerCase() === lower);
  if (direct) return { repo: direct };
  const old = Object.entries(c.renamed ?? {}).find(([from]) => from.toLowerCase() === lower);
  if (!old) return {};
  return {
    repo: repos.find((r) => r.path.toLowerCase() === old[1].toLowerCase()),
    movedFrom: old[0],
  };
}

export const sameOwner = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
