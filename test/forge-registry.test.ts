// The forge adapters as one registry (issue 32 item 3): a forge is one folder under
// src/measure/forge/adapter/, one line in the registry and a stand-in; no other source file
// names a forge kind, the core names no forge at all, and the config schema's `kind` enum
// (a static JSON file, which cannot import the list) lists the registry's kinds. Expected
// values are written by hand from docs/reference/scan.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import siteSchema from '../src/config/schemas/site.schema.json' with { type: 'json' };
import { forgeFor } from '../src/measure/forge/index.ts';
import { FORGE_ADAPTERS, FORGE_KINDS, KNOWN_HOSTS } from '../src/measure/forge/registry.ts';
import { apiTokenEnv } from '../src/measure/host-token.ts';
import { ROOT } from './helpers/cli.ts';
import { sourceFiles } from './helpers/source-files.ts';

const SRC = join(ROOT, 'src');
const ADAPTERS = 'src/measure/forge/adapter/';
/** The kind names, and Forgejo's (which speaks the `gitea` kind's API). */
const NAMES = ['github', 'gitlab', 'gitea', 'forgejo'];
/** A kind's name as a word of its own: not part of a host, address or path (github.com, .github/). */
const KIND_WORD = new RegExp(`(?<![\\w.@/-])(${NAMES.join('|')})(?![\\w.@/-])`, 'g');

/** "file:line: text" for each line of `files` where `pattern` matches, but those `allowed` lets pass. */
function linesNaming(
  files: string[],
  pattern: RegExp,
  allowed: (file: string, name: string) => boolean,
): string[] {
  const found: string[] = [];
  for (const file of files) {
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(pattern))
          if (!allowed(file, m[1]!.toLowerCase())) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  return [...new Set(found)];
}

describe('forge adapter registry', () => {
  it("names each forge kind in src/ only in its adapter's folder, the registry and the config schema", () => {
    const anywhere = new Set([
      'src/measure/forge/registry.ts',
      'src/config/schemas/site.schema.json',
    ]);
    // Forgejo speaks the gitea kind's API: its adapter names it.
    const folder = (name: string) => `${ADAPTERS}${name === 'forgejo' ? 'gitea' : name}/`;
    const allowed = (file: string, name: string) =>
      anywhere.has(file) || file.startsWith(folder(name));
    expect(linesNaming(sourceFiles(SRC), KIND_WORD, allowed)).toEqual([]);
  });

  it('the core and the HTTP client name no forge, in code or comments', () => {
    const anyCase = new RegExp(`(?<![\\w.@/-])(${NAMES.join('|')})(?![\\w.@/-])`, 'gi');
    const files = [
      ...sourceFiles(join(SRC, 'measure/forge/core')),
      ...sourceFiles(join(SRC, 'measure/http')),
    ];
    expect(linesNaming(files, anyCase, () => false)).toEqual([]);
  });

  it('the forges and the dependency index share the HTTP client, and neither imports the other', () => {
    const crossing = (from: string, to: RegExp) =>
      sourceFiles(join(SRC, from)).flatMap((file) =>
        [...readFileSync(join(ROOT, file), 'utf8').matchAll(/from '([^']+)'/g)]
          .map((m) => m[1]!)
          .filter((path) => to.test(path))
          .map((path) => `${file}: ${path}`),
      );
    expect(crossing('measure/forge', /\/dependents\//)).toEqual([]);
    expect(crossing('measure/dependents', /\/forge\//)).toEqual([]);
  });

  it('one adapter folder per registry line, each with its stand-in', () => {
    const folders = readdirSync(join(ROOT, ADAPTERS)).sort();
    expect([...FORGE_KINDS].sort()).toEqual(folders);
    expect(FORGE_KINDS).toEqual(['github', 'gitlab', 'gitea']);
    const peers = readdirSync(join(ROOT, 'scripts/lib/forge-peers'));
    for (const kind of FORGE_KINDS) expect(peers).toContain(`${kind}.ts`);
  });

  it("the config schema's kind enum is the registry's kinds", () => {
    const host = siteSchema.properties.hosts.additionalProperties.properties.kind;
    expect(host.enum).toEqual([...FORGE_KINDS]);
  });

  it('forgeFor refuses a kind no adapter speaks, naming the host and the kinds there are', () => {
    const hosts = {
      'a.example': { kind: 'gitlab2', apiUrl: 'https://a.example/api/v4' },
      'b.example': { api: false as const, kind: 'nope' },
    };
    expect(() => forgeFor({ hosts }, {})).toThrow(
      expect.objectContaining({
        name: 'ConfigError',
        problems: [
          'hosts: a.example: kind: "gitlab2" is no forge badgepress knows; use one of github, gitlab, gitea',
        ],
      }),
    );
  });

  it('each adapter states its label, known hosts and token header as the reference says', () => {
    const stated = FORGE_ADAPTERS.map((a) => ({
      kind: a.kind,
      label: a.label,
      header: a.authorize('T'),
    }));
    expect(stated).toEqual([
      { kind: 'github', label: 'GitHub API', header: ['authorization', 'Bearer T'] },
      { kind: 'gitlab', label: 'GitLab API', header: ['private-token', 'T'] },
      { kind: 'gitea', label: 'Forgejo/Gitea API', header: ['authorization', 'token T'] },
    ]);
    expect(KNOWN_HOSTS).toEqual({
      'github.com': {
        kind: 'github',
        apiUrl: 'https://api.github.com',
        tokenEnv: 'GITHUB_TOKEN',
        appIdEnv: 'GITHUB_APP_ID',
        appKeyEnv: 'GITHUB_APP_PRIVATE_KEY',
        requestsPerSecond: 10,
      },
      'gitlab.com': {
        kind: 'gitlab',
        apiUrl: 'https://gitlab.com/api/v4',
        tokenEnv: 'GITLAB_TOKEN',
        requestsPerSecond: 5,
      },
      'codeberg.org': {
        kind: 'gitea',
        apiUrl: 'https://codeberg.org/api/v1',
        tokenEnv: 'CODEBERG_TOKEN',
        requestsPerSecond: 2,
      },
    });
  });
});

describe("a host's API token variable", () => {
  const known = { tokenEnv: 'GITHUB_TOKEN' };
  const git = { 'github.com': 'GIT_SIDE' };
  it("is the hosts: entry's own, else scan.tokens' for git, else the known host's", () => {
    const own = { kind: 'github', apiUrl: 'https://ghe.example/api/v3', tokenEnv: 'OWN' };
    const bare = { kind: 'github', apiUrl: 'https://ghe.example/api/v3' };
    expect(apiTokenEnv('github.com', own, known, git)).toBe('OWN');
    expect(apiTokenEnv('github.com', bare, known, git)).toBe('GIT_SIDE');
    // An entry replaces the known host whole: its variable too.
    expect(apiTokenEnv('github.com', bare, known, {})).toBeUndefined();
    expect(apiTokenEnv('github.com', undefined, known, git)).toBe('GIT_SIDE');
    expect(apiTokenEnv('github.com', undefined, known, {})).toBe('GITHUB_TOKEN');
    expect(apiTokenEnv('other.example', undefined, undefined, git)).toBeUndefined();
  });
});
