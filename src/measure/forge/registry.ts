// The forge adapters, one line each (Renovate's platform list is the model): the only place
// outside adapter/<kind>/ that names a forge. The kinds a `hosts:` entry may name, the hosts
// known without configuration and the header a token travels in all come from here; the
// config schema's `kind` enum lists the same kinds (test/forge-registry.test.ts holds them so).
import type { ForgeAdapter, KnownHost } from './core/adapter.ts';
import { adapter as github } from './adapter/github/index.ts';
import { adapter as gitlab } from './adapter/gitlab/index.ts';
import { adapter as gitea } from './adapter/gitea/index.ts';

export const FORGE_ADAPTERS = [github, gitlab, gitea] as const;

export type ForgeKind = (typeof FORGE_ADAPTERS)[number]['kind'];

/** The kinds a `hosts:` entry may name, in the registry's order. */
export const FORGE_KINDS: readonly ForgeKind[] = FORGE_ADAPTERS.map((a) => a.kind);

/** The adapter for a `hosts:` entry's kind; undefined for a kind no adapter speaks. */
export function forgeAdapter(kind: string): ForgeAdapter | undefined {
  return FORGE_ADAPTERS.find((a) => a.kind === kind);
}

const known: Record<string, KnownHost & { kind: ForgeKind }> = {};
for (const a of FORGE_ADAPTERS)
  for (const [host, h] of Object.entries(a.knownHosts)) known[host] = { kind: a.kind, ...h };

/** Hosts every deployment knows without configuration; a `hosts:` entry of the same name wins. */
export const KNOWN_HOSTS: Readonly<typeof known> = known;
