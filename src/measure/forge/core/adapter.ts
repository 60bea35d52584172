// What a forge adapter states about its API: everything the core needs to reach it, so the
// core names no forge. Each folder adapter/<kind>/ exports one (its index.ts), and the
// registry (../registry.ts) lists them; docs/development.md walks through adding one.
import type { HostConfig, SourceFilters } from '../../../config/types.ts';
import type { ForgeRequest } from '../../types.ts';
import type { ApiQuirks, ApiClient } from '../../http/client.ts';
import type { ForgeSource } from './measurer.ts';
import type { ListedRepository, SourceScope } from './discover.ts';

/** A host every deployment knows without configuration: a `hosts:` entry minus its kind. */
export type KnownHost = Omit<HostConfig, 'kind'>;

export interface ForgeAdapter<Kind extends string = string> {
  /** The `kind` a `hosts:` entry names to speak this API. */
  readonly kind: Kind;
  /** The API's name, the start of every failure and of evidence the forge's answers give. */
  readonly label: string;
  /** Hosts known without a `hosts:` entry (one of the same name wins), by host name. */
  readonly knownHosts: Readonly<Record<string, KnownHost>>;
  /**
   * How the API names a repository by its web path: OWNER/NAME, two segments exactly, or
   * GROUP/…/NAME, in groups nested to any depth where "-" starts a page below a project.
   */
  readonly repositoryPaths: 'owner/name' | 'nested-groups';
  /**
   * Whether an app can act for its installations (an app id and private key mint short-lived
   * tokens; the adapter's `open` does it): a `hosts:` entry naming app variables needs it.
   */
  readonly apps?: boolean;
  /** The request header, name and value, that carries a token. */
  authorize(token: string): [name: string, value: string];
  /** How the API pages and limits where it departs from the plain case. */
  readonly quirks: ApiQuirks;
  /**
   * The source for one repository, every request through `http`. Async so an adapter can
   * load a client library on its first call: a scan of hosts without this API never loads it.
   */
  open(http: ApiClient, request: ForgeRequest): Promise<ForgeSource>;
  /**
   * Every repository of a source, page by page (adapter/<kind>/discover.ts). `filters` may
   * narrow what the forge is asked; the core filters every answer again (core/discover.ts).
   */
  discover(
    http: ApiClient,
    scope: SourceScope,
    filters: SourceFilters,
  ): AsyncGenerator<ListedRepository[]>;
  /**
   * The repository at `path` below the host as the forge names it now, a rename or transfer
   * followed (the forge redirects or answers under the new path); undefined when the forge
   * answers 404 (deleted, or not visible to the token).
   */
  locate(http: ApiClient, path: string): Promise<ListedRepository | undefined>;
}
