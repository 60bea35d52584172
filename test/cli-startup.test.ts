// The command line starts like a command line: --help, --version and serve load neither svgo,
// the AWS SDK nor the build pipeline. The compiled CLI runs with a module hook that notes every
// module it imports (test/helpers/trace-modules.mjs); a build, which must load them, shows the
// trace can see them.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI, childEnv, ROOT, runCli, spawnChecked } from './helpers/cli.ts';
import { startServeChild } from './helpers/serve-child.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const TRACE_HOOK = join(ROOT, 'test/helpers/trace-modules.mjs');
/** What only a build needs: svgo, the AWS SDK, and the modules of load, evaluate, render and publish
 *  (but load/regular-file.js, the small reader config files go through, serve's config too). */
const HEAVY = [
  /\/node_modules\/svgo\//,
  /\/node_modules\/@aws-sdk\//,
  /\/lib\/pipeline\//,
  /\/lib\/(load|evaluate|render|publish)\/(?!regular-file\.js$)/,
  /\/lib\/s3\/client\.js$/,
  /\/lib\/commands\/(build|plan|setup|demo)\.js$/,
];
let traces = 0;

/** Node's arguments that run the compiled CLI with the trace hook, and the file the trace goes to. */
function traced(): { args: string[]; env: NodeJS.ProcessEnv; modules: () => string[] } {
  const file = join(dir, `trace-${traces++}.txt`);
  writeFileSync(file, '');
  return {
    args: ['--import', TRACE_HOOK, ...CLI.slice(1)],
    env: childEnv({ BADGEPRESS_MODULE_TRACE: file }),
    modules: () => [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))],
  };
}

function runTraced(args: string[]): { code: number | null; stdout: string; modules: string[] } {
  const t = traced();
  const r = spawnChecked(CLI[0], [...t.args, ...args], { cwd: dir, env: t.env, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, modules: t.modules() };
}

const heavy = (modules: string[]) => modules.filter((m) => HEAVY.some((h) => h.test(m)));

describe('badgepress startup', () => {
  it('--version prints the version of package.json', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const r = runTraced(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${version}\n` });
    expect(r.modules.filter((m) => m.includes('/node_modules/'))).toEqual([]);
  });

  it('a scan of hosts without a GitHub API loads no Octokit; the GitHub adapter loads it on its first call', async () => {
    const repos = join(dir, 'scan-repos.txt');
    writeFileSync(repos, '# none\n');
    const r = runTraced([
      'scan',
      '--repos',
      repos,
      '--store',
      join(dir, 'scan-store'),
      '--as-of',
      '2026-11-01',
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(r.modules).toContain(`file://${ROOT}lib/measure/forge/index.js`);
    expect(r.modules.filter((m) => m.includes('/@octokit/'))).toEqual([]);
    // The seam still reaches the adapter: a GitHub source opened lazily answers (here: no server).
    const { forgeFor } = await import('../src/measure/forge/index.ts');
    const target = {
      url: 'https://github.com/acme/widget',
      host: 'github.com',
      path: 'acme/widget',
      source: 'repos.txt:1',
    };
    const settings = {
      hosts: {
        'github.com': { kind: 'github' as const, apiUrl: 'http://127.0.0.1:9', timeoutSeconds: 2 },
      },
    };
    const result = await forgeFor(
      settings,
      {},
    )(target)!.measure({
      target,
      times: [1793491200],
      asOf: 1793491200,
      git: { tagNames: new Set() },
      windowMonths: {},
      horizonMonths: 12,
    });
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]).toMatch(/^GitHub API: /);
  });

  it('--help loads the dispatcher and no dependency at all', () => {
    const r = runTraced(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: badgepress <command>');
    expect(r.modules).toContain(`file://${ROOT}lib/commands/main.js`);
    expect(r.modules.filter((m) => m.includes('/node_modules/'))).toEqual([]);
  });

  it('serve answers a badge and an unknown path without loading svgo, the AWS SDK or the build', async () => {
    const site = join(dir, 'site');
    expect(
      runCli([
        'build',
        '--store',
        join(ROOT, 'examples/store'),
        '--out',
        site,
        '--now',
        '1764000000',
      ]).code,
    ).toBe(0);
    const t = traced();
    const serving = await startServeChild(
      CLI[0],
      [...t.args, 'serve', '--dir', site, '--port', '0'],
      {
        cwd: dir,
        env: t.env,
      },
    );
    try {
      const repo = `${serving.url}/api/v1/repositories/${encodeURIComponent('https://github.com/acme/widget')}`;
      const badge = await fetch(`${repo}/badges/MAINTENANCE.svg`);
      expect(badge.status).toBe(200);
      expect(await badge.text()).toMatch(/^<svg/);
      // an error answer draws an error badge: still no svgo
      expect((await fetch(`${repo}/badges/NO_SUCH_BADGE.svg`)).status).toBe(404);
    } finally {
      expect(await serving.stop()).toBe(0);
    }
    const modules = t.modules();
    expect(modules).toContain(`file://${ROOT}lib/resolver/core.js`);
    expect(heavy(modules)).toEqual([]);
  });

  it('build loads what serve must not (the trace sees those modules)', () => {
    const r = runTraced([
      'build',
      '--store',
      join(ROOT, 'examples/store'),
      '--out',
      join(dir, 'built'),
      '--now',
      '1764000000',
    ]);
    expect(r.code).toBe(0);
    expect(heavy(r.modules)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\/node_modules\/svgo\//),
        `file://${ROOT}lib/pipeline/loop.js`,
      ]),
    );
  });

  it('build uses the validators and OpenAPI template compiled into lib/: ajv compiles nothing at run time', () => {
    const r = runTraced([
      'build',
      '--store',
      join(ROOT, 'examples/store'),
      '--out',
      join(dir, 'built-precompiled'),
      '--now',
      '1764000000',
    ]);
    expect(r.code).toBe(0);
    expect(r.modules).toEqual(
      expect.arrayContaining([
        `file://${ROOT}lib/config/validators-config.cjs`,
        `file://${ROOT}lib/config/validators-record.cjs`,
        `file://${ROOT}lib/config/openapi-template.json`,
      ]),
    );
    // ajv's compiler (its core) is what costs half a second at every start.
    expect(r.modules.filter((m) => /\/node_modules\/ajv\/dist\/(core|ajv)\.js$/.test(m))).toEqual(
      [],
    );
    // What lib/ holds is what the sources say.
    const template = JSON.parse(
      readFileSync(join(ROOT, 'lib/config/openapi-template.json'), 'utf8'),
    );
    expect(template).toEqual(parse(readFileSync(join(ROOT, 'templates/openapi.yaml'), 'utf8')));
  });
});

/** A Node older than 22 on this machine (e.g. the system's /usr/bin/node), if there is one. */
const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find((n) => {
  if (!existsSync(n)) return false;
  const v = spawnChecked(n, ['--version']);
  return v.status === 0 && Number(/^v(\d+)/.exec(v.stdout)?.[1]) < 22;
});

describe('the bin on an unsupported Node', () => {
  it.skipIf(oldNode === undefined)(
    'refuses it by name, with exit 2, before running anything',
    () => {
      const r = spawnChecked(oldNode!, [join(ROOT, 'bin/badgepress.js'), '--version']);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^badgepress: Node 2?\d\.\d+\.\d+ \(.+\) is not supported: run it with Node 22, 24 or 26\n$/,
      );
    },
  );
});
