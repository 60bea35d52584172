// The config's `hosts:` and `dependents:` sections: loaded as written, refused with file:line.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../src/config/load.ts';
import { tempDir } from './helpers/tmp.ts';
import { tokenFor } from '../src/measure/host-token.ts';
import { runCommand } from './helpers/cli-in-process.ts';

const dir = tempDir();

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, `store: s\n${text}`);
  return file;
}

describe('hosts: and dependents:', () => {
  it('loads hosts as written, without a trailing slash, and no dependents by default', async () => {
    const file = write(
      'ok.yaml',
      'hosts:\n  git.example:8443:\n    kind: gitea\n    apiUrl: https://git.example:8443/api/v1/\n    tokenEnv: GIT_EXAMPLE_TOKEN\n    requestsPerSecond: 2\n',
    );
    const config = await loadSettings(file);
    expect(config.hosts).toEqual({
      'git.example:8443': {
        kind: 'gitea',
        apiUrl: 'https://git.example:8443/api/v1',
        tokenEnv: 'GIT_EXAMPLE_TOKEN',
        requestsPerSecond: 2,
      },
    });
    expect(config.dependents).toBeUndefined();
    const none = await loadSettings(write('none.yaml', ''));
    expect(none.hosts).toEqual({});
    const deps = await loadSettings(write('deps.yaml', 'dependents:\n  source: ecosyste.ms\n'));
    expect(deps.dependents).toEqual({ source: 'ecosyste.ms' });
  });

  it('loads a host with api: false without kind or apiUrl; any other entry still needs both', async () => {
    const off = await loadSettings(write('off.yaml', 'hosts:\n  github.com:\n    api: false\n'));
    expect(off.hosts).toEqual({ 'github.com': { api: false } });
    const file = write(
      'half.yaml',
      'hosts:\n  x.example:\n    apiUrl: https://x.example/api/v1\n  z.example:\n    api: true\n    kind: gitea\n',
    );
    const err = (await loadSettings(file).catch((e: { problems: string[] }) => e)) as {
      problems: string[];
    };
    expect(err.problems).toEqual([
      `${file}:4 hosts.x.example: missing required key "kind"`,
      `${file}:6 hosts.z.example: missing required key "apiUrl"`,
    ]);
  });

  it("loads the bounds on a repository's forge work; refuses one out of range with file:line", async () => {
    const bounds =
      '    maxPagesPerList: 50\n    maxRequestsPerRepository: 400\n    maxSecondsPerRepository: 120\n    maxAnswerBytes: 1048576\n';
    const config = await loadSettings(
      write(
        'bounds.yaml',
        `hosts:\n  git.example:\n    kind: gitea\n    apiUrl: https://git.example/api/v1\n${bounds}`,
      ),
    );
    expect(config.hosts['git.example']).toEqual({
      kind: 'gitea',
      apiUrl: 'https://git.example/api/v1',
      maxPagesPerList: 50,
      maxRequestsPerRepository: 400,
      maxSecondsPerRepository: 120,
      maxAnswerBytes: 1048576,
    });
    const bad = write(
      'bad-bounds.yaml',
      'hosts:\n  git.example:\n    kind: gitea\n    apiUrl: https://git.example/api/v1\n    maxPagesPerList: 0\n',
    );
    await expect(loadSettings(bad)).rejects.toThrow(/bad-bounds\.yaml:6.*maxPagesPerList/s);
  });

  it('refuses a bad host entry with file:line, and a pasted token without echoing it', async () => {
    const token = 'ghp_' + 'A1b2C3d4'.repeat(4);
    const file = write(
      'bad.yaml',
      [
        'hosts:',
        '  gitlab.example:',
        '    kind: gitlab2',
        '    apiUrl: https://user:pw@gitlab.example/api/v4',
        '  ghe.example:',
        '    kind: github',
        '    apiUrl: https://ghe.example/api/v3',
        `    tokenEnv: ${token}`,
        '    rate: 3',
        'dependents:',
        '  source: libraries.io',
        '',
      ].join('\n'),
    );
    const err = await loadSettings(file).catch((e: { problems: string[] }) => e);
    const problems = (err as { problems: string[] }).problems;
    expect(problems).toEqual([
      `${file}:4 hosts.gitlab.example.kind: must be one of "github", "gitlab", "gitea"`,
      `${file}:10 hosts.ghe.example.rate: unknown key; remove it or check its spelling`,
      `${file}:12 dependents.source: must be one of "deps.dev", "ecosyste.ms"`,
    ]);
    const fixed = write(
      'bad2.yaml',
      `hosts:\n  ghe.example:\n    kind: github\n    apiUrl: https://user:pw@ghe.example/api/v3\n    tokenEnv: ${token}\n`,
    );
    const second = (await loadSettings(fixed).catch((e: { problems: string[] }) => e)) as {
      problems: string[];
    };
    expect(second.problems).toEqual([
      `${fixed}:5 hosts.ghe.example.apiUrl: "https://***@ghe.example/api/v3" must not hold credentials (user:password@); give the token through tokenEnv (the name of an environment variable holding it), and revoke the one in this file`,
      `${fixed}:6 hosts.ghe.example.tokenEnv: looks like a token, not the name of an environment variable; put the token in a variable and name the variable here (and revoke the token shown in this file)`,
    ]);
    expect(JSON.stringify(second.problems)).not.toContain(token);
  });

  it('a credential in apiUrl or a token in scan.tokens is refused by name, never echoed (scan exits 2)', async () => {
    const token = 'ghp_' + 'Z9y8X7w6'.repeat(4);
    const file = write(
      'secret.yaml',
      `scan:\n  tokens:\n    github.com: ${token}\nhosts:\n  x.example:\n    kind: gitea\n    apiUrl: "https://tok:SECRETpw@x.example/api/v1"\n`,
    );
    const repos = join(dir, 'secret-repos.txt');
    writeFileSync(repos, 'https://x.example/acme/widget\n');
    const r = await runCommand([
      'scan',
      '--config',
      file,
      '--repos',
      repos,
      '--store',
      join(dir, 'secret-store'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${file}:4 scan.tokens.github.com: looks like a token, not the name of an environment variable`,
    );
    expect(r.stderr).toContain(
      `${file}:8 hosts.x.example.apiUrl: "https://***@x.example/api/v1" must not hold credentials (user:password@); give the token through tokenEnv`,
    );
    for (const secret of ['SECRETpw', 'tok:', token])
      expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it('git takes the first token of a pool the forge API uses in turn', () => {
    const settings = { tokens: { 'github.com': 'POOL' } };
    expect(tokenFor('github.com', settings, { POOL: ' tok-a , tok-b' })).toBe('tok-a');
    expect(tokenFor('github.com', settings, { POOL: '' })).toBeUndefined();
    expect(tokenFor('gitlab.com', settings, { POOL: 'tok-a' })).toBeUndefined();
  });
});
