// What a scan is given: the list of repositories (pure parsing) and the config's scan: section.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTargets } from '../src/measure/targets.ts';
import { loadSettings } from '../src/config/load.ts';
import { tempDir } from './helpers/tmp.ts';
import { configProblems } from './helpers/config.ts';

describe('the list of repositories', () => {
  it('reads URLs, comments and mirror=PATH, and names each bad line with FILE:line', () => {
    const text = [
      '# a comment',
      '',
      'https://GitHub.com/acme/widget   # trailing comment',
      'https://gitlab.example.org:8443/group/sub/tool.git/',
      'ssh://git@codeberg.org/forge/tool.git',
      'https://example.org/me/local mirror=repos/local.git',
      'git@github.com:acme/other.git',
      'file:///srv/repo.git',
      'https://user:secret@example.org/a/b',
      'ssh://git:pw@example.org/a/b',
      'https://example.org/a/b extra=1',
      'https://github.com/acme/widget',
      'https://example.org/',
    ].join('\n');
    const { targets, problems } = parseTargets(text, '/lists/repos.txt');
    expect(
      targets.map(({ url, host, path, mirror, fetchUrl, source }) => ({
        url,
        host,
        path,
        mirror,
        fetchUrl,
        source,
      })),
    ).toEqual([
      {
        url: 'https://github.com/acme/widget',
        host: 'github.com',
        path: 'acme/widget',
        mirror: undefined,
        fetchUrl: 'https://GitHub.com/acme/widget',
        source: '/lists/repos.txt:3',
      },
      {
        url: 'https://gitlab.example.org:8443/group/sub/tool.git/',
        host: 'gitlab.example.org:8443',
        path: 'group/sub/tool',
        mirror: undefined,
        fetchUrl: 'https://gitlab.example.org:8443/group/sub/tool.git/',
        source: '/lists/repos.txt:4',
      },
      // The ssh user fetches; the published URL leaves it out.
      {
        url: 'ssh://codeberg.org/forge/tool.git',
        host: 'codeberg.org',
        path: 'forge/tool',
        mirror: undefined,
        fetchUrl: 'ssh://git@codeberg.org/forge/tool.git',
        source: '/lists/repos.txt:5',
      },
      {
        url: 'https://example.org/me/local',
        host: 'example.org',
        path: 'me/local',
        mirror: '/lists/repos/local.git',
        fetchUrl: 'https://example.org/me/local',
        source: '/lists/repos.txt:6',
      },
    ]);
    expect(problems).toEqual([
      '/lists/repos.txt:7: "git@github.com:acme/other.git" is an scp-like address; write it as ssh://user@host/path; line skipped',
      '/lists/repos.txt:8: the scheme "file" is not supported; use https, http or ssh (a local repository: any URL followed by mirror=PATH); line skipped',
      expect.stringMatching(/^\/lists\/repos\.txt:9: the URL holds credentials .*; line skipped$/),
      expect.stringMatching(/^\/lists\/repos\.txt:10: the URL holds credentials/),
      '/lists/repos.txt:11: unknown option "extra=1" (the only option is mirror=PATH); line skipped',
      '/lists/repos.txt:12: https://github.com/acme/widget is listed already at /lists/repos.txt:3; line skipped',
      expect.stringMatching(/^\/lists\/repos\.txt:13: /),
    ]);
    expect(problems.join('\n')).not.toContain('secret');
  });
});

describe('a line that names its repository badly', () => {
  it('mirror= given twice is refused with FILE:line, naming both, not read as the last', () => {
    const { targets, problems } = parseTargets(
      'https://example.org/a/b mirror=one.git mirror=two.git\nhttps://example.org/a/c mirror=c.git\n',
      '/lists/repos.txt',
    );
    expect(problems).toEqual([
      '/lists/repos.txt:1: mirror= is given twice (mirror=one.git, mirror=two.git); a repository is read from one mirror: keep one; line skipped',
    ]);
    expect(targets.map((t) => [t.url, t.mirror])).toEqual([
      ['https://example.org/a/c', '/lists/c.git'],
    ]);
  });

  it('a page below a GitHub or Gitea repository is refused; a GitLab URL of nested groups is a project', async () => {
    const { forgeFor } = await import('../src/measure/forge/index.ts');
    const hosts = {
      'forge.test': { kind: 'github', apiUrl: 'http://127.0.0.1:9/api' },
      'tea.test': { kind: 'gitea', apiUrl: 'http://127.0.0.1:9/api/v1' },
      'lab.test': { kind: 'gitlab', apiUrl: 'http://127.0.0.1:9/api/v4' },
    } as const;
    const forge = forgeFor({ hosts }, {});
    const lines = [
      'https://forge.test/acme/widget/extra',
      'https://forge.test/acme',
      'https://tea.test/acme/widget/src/branch/main',
      'https://lab.test/acme/widget/-/tree/main',
      'https://lab.test/top/sub/deep/tool',
      'https://forge.test/acme/widget',
      'https://tea.test/acme/widget',
    ];
    const outcome = parseTargets(lines.join('\n'), '/lists/repos.txt').targets.map((t) => {
      try {
        return forge(t) ? 'measured' : 'no forge';
      } catch (err) {
        return (err as Error).message;
      }
    });
    expect(outcome).toEqual([
      `the GitHub API names a repository OWNER/NAME, and "acme/widget/extra" has 3 path segments; list the repository's own URL (https://forge.test/OWNER/NAME), not a page below it`,
      `the GitHub API names a repository OWNER/NAME, and "acme" has 1 path segment; list the repository's own URL (https://forge.test/OWNER/NAME), not a page below it`,
      `the Forgejo/Gitea API names a repository OWNER/NAME, and "acme/widget/src/branch/main" has 5 path segments; list the repository's own URL (https://tea.test/OWNER/NAME), not a page below it`,
      `the GitLab API names a project GROUP/…/NAME, and "acme/widget/-/tree/main" holds "/-/", which starts a page below a project; list the repository's own URL (https://lab.test/GROUP/…/NAME), not a page below it`,
      'measured',
      'measured',
      'measured',
    ]);
  });
});

describe('scan: in the config', () => {
  const dir = tempDir('badgepress-scan-config-');
  const problemsOf = configProblems(dir, (f) => loadSettings(f));

  it('names a bad key with file:line, and resolves mirrors beside the file', async () => {
    const bad = await problemsOf(
      'store: s\nscan:\n  concurrency: 0\n  botPatterns: ["(unclosed"]\n  tokens:\n    github.com: "not a name"\n  fetch: yes\n',
    );
    expect(bad.problems).toEqual([
      `${bad.file}:7 scan.fetch: unknown key; remove it or check its spelling`,
      `${bad.file}:3 scan.concurrency: must be >= 1`,
      `${bad.file}:6 scan.tokens.github.com: must match pattern "^[A-Za-z_][A-Za-z0-9_]*$"`,
    ]);
    const patterns = await problemsOf('store: s\nscan:\n  botPatterns: ["ok", "(unclosed"]\n');
    expect(patterns.problems).toEqual([
      expect.stringMatching(/:3 scan\.botPatterns\[1\]: "\(unclosed" is not a regular expression/),
    ]);
    const file = join(dir, 'good.yaml');
    writeFileSync(file, 'store: s\nscan:\n  mirrors: m\n  perHost: 3\n');
    const settings = await loadSettings(file);
    expect(settings.scan).toMatchObject({
      mirrors: join(dir, 'm'),
      perHost: 3,
      concurrency: 4,
      horizonMonths: 12,
      busFactorMonths: 12,
      retries: 2,
      timeoutSeconds: 600,
      tokens: {},
    });
  });
});

describe('the directory store writer', () => {
  it('appends each record on a line of its own, after a file that ended mid-line', async () => {
    const { DirectoryStoreWriter } = await import('../src/store/writer.ts');
    const dir = tempDir('badgepress-scan-writer-');
    const { mkdirSync, readFileSync } = await import('node:fs');
    mkdirSync(join(dir, 'h'));
    writeFileSync(
      join(dir, 'h/r.ndjson'),
      '{"repositoryUrl":"https://h/r","timestamp":1,"values":{}}',
    );
    const writer = new DirectoryStoreWriter(dir);
    expect(await writer.storedTimes('h/r.ndjson', 'https://h/r')).toEqual(
      new Map([[1, { rules: new Set(), used: { values: {}, evidence: {}, failed: [] } }]]),
    );
    await writer.append('h/r.ndjson', ['{"a":2}\n', '{"a":3}\n']);
    await writer.append('h/new.ndjson', ['{"a":4}\n']);
    expect(readFileSync(join(dir, 'h/r.ndjson'), 'utf8')).toBe(
      '{"repositoryUrl":"https://h/r","timestamp":1,"values":{}}\n{"a":2}\n{"a":3}\n',
    );
    expect(readFileSync(join(dir, 'h/new.ndjson'), 'utf8')).toBe('{"a":4}\n');
  });
});
