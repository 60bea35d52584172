// The package as a stranger gets it: `npm run pack` in a copy of the checkout (tracked files
// only, so lib/ is compiled from nothing), `npm install <tarball>` in an empty directory, then
// `npx badgepress build` with the packaged config and `npx badgepress serve`, answering over a
// real socket (Shape B's build and --help run the installed bin npx resolves to). npm reaches
// the registry for the dependencies; its cache serves them when it has them (--prefer-offline).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyTracked } from './helpers/checkout.ts';
import { childEnv, ROOT, spawnChecked } from './helpers/cli.ts';
import { startServeChild } from './helpers/serve-child.ts';
import { tempDir } from './helpers/tmp.ts';

const work = tempDir('badgepress-pack-');
const checkout = join(work, 'checkout');
const app = join(work, 'app');
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
/** Everything the package may hold; nothing of src/, test/ or scripts/. */
const SHIPPED =
  /^(package\.json|README\.md|LICENSE|bin\/badgepress\.js|lib\/.+\.(js|cjs|json)|config\/[^/]+\.yaml|config\/repositories\.txt|config\/nginx\/badgepress\.conf|templates\/[^/]+|examples\/(store|shape-b|scan)\/(?:[^./][^/]*\/)*[^./][^/]*)$/;
let tarball = '';
let packed: string[] = [];

function npx(args: string[]) {
  return spawnChecked('npx', ['badgepress', ...args], {
    cwd: app,
    env: childEnv(),
    timeout: 120_000,
  });
}

/** What `npx badgepress` resolves to there, without npm's own start (about a second of CPU). */
function installed(args: string[], cwd = app) {
  return spawnChecked(join(app, 'node_modules/.bin/badgepress'), args, {
    cwd,
    env: childEnv(),
    timeout: 120_000,
  });
}

beforeAll(() => {
  copyTracked(checkout);
  // The checkout's devDependencies (TypeScript for prepare), as `npm ci` would have put them.
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  // What a `scan` run in the checkout leaves beside an example store: never packed.
  mkdirSync(join(checkout, 'examples/store/.badgepress/scan-lease'), { recursive: true });
  writeFileSync(join(checkout, 'examples/store/.badgepress/scan-lease/1.json'), '');
  const pack = JSON.parse(
    execFileSync(
      'npm',
      ['run', '--silent', 'pack', '--', '--json', '--pack-destination', work, ...NPM_FLAGS],
      {
        cwd: checkout,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  ) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  tarball = join(work, pack[0]!.filename);
  packed = pack[0]!.files.map((f) => f.path).sort();
  mkdirSync(app);
  execFileSync('npm', ['init', '-y'], { cwd: app, stdio: 'ignore' });
  execFileSync('npm', ['install', tarball, ...NPM_FLAGS], {
    cwd: app,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}, 600_000);

describe('npm pack → npm install <tarball> → npx badgepress', () => {
  it('packs the compiled CLI, the configs, the template and the examples, and nothing else', () => {
    expect(packed.filter((p) => !SHIPPED.test(p))).toEqual([]);
    for (const needed of [
      'bin/badgepress.js',
      'lib/cli.js',
      'lib/commands/main.js',
      'lib/load/record.schema.json',
      'lib/config/schemas/site.schema.json',
      'lib/config/validators-config.cjs',
      'lib/config/validators-record.cjs',
      'lib/config/openapi-template.json',
      'config/badgepress.yaml',
      'templates/openapi.yaml',
      'templates/site.css',
      'examples/store/acme-widget.ndjson',
      'examples/shape-b/badgepress.yaml',
      'examples/shape-b/thresholds-b.yaml',
      'examples/scan/thresholds-git.yaml',
    ]) {
      expect(packed).toContain(needed);
    }
    // tsx and TypeScript stay in the checkout: the installed command runs plain JavaScript.
    expect(existsSync(join(app, 'node_modules/tsx'))).toBe(false);
  });

  it("init writes a config of one's own from the packaged one, which a build there reads", () => {
    const init = installed(['init', 'mine']);
    expect(init.status, init.stderr).toBe(0);
    cpSync(join(app, 'node_modules/badgepress/examples/store'), join(app, 'mine/store'), {
      recursive: true,
    });
    const build = installed(['build', '--now', '1764000000'], join(app, 'mine'));
    expect(build.status, build.stderr).toBe(0);
    expect(build.stdout).toMatch(
      /^badgepress: 4 repositories, 12 scans, .* \(settings: .*\/mine\/config\/badgepress\.yaml\)\n$/,
    );
  });

  it("ships a package.json without the checkout's scripts, and the licence and where the project lives", () => {
    const installedPkg = JSON.parse(
      readFileSync(join(app, 'node_modules/badgepress/package.json'), 'utf8'),
    );
    // Every script of the checkout uses src/, test/ or scripts/, which are not shipped.
    expect(installedPkg.scripts).toBeUndefined();
    expect(installedPkg.devDependencies).toBeUndefined();
    expect(installedPkg).toMatchObject({
      license: 'MIT',
      homepage: 'https://github.com/badgepress/badgepress#readme',
      bugs: { url: 'https://github.com/badgepress/badgepress/issues' },
      repository: { url: 'git+https://github.com/badgepress/badgepress.git' },
    });
    expect(readFileSync(join(app, 'node_modules/badgepress/LICENSE'), 'utf8')).toMatch(
      /^MIT License\n\nCopyright \(c\) 2026 the badgepress authors\n/,
    );
    expect(packed).toContain('LICENSE');
  });

  it('--version and --help answer', () => {
    expect(npx(['--version']).stdout.trim()).toBe(
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
    );
    expect(installed(['--help'])).toMatchObject({
      status: 0,
      stdout: expect.stringContaining('usage: badgepress <command>'),
    });
  });

  it('builds both shapes with the packaged configs and serves the site over a socket', async () => {
    const pkg = join(app, 'node_modules/badgepress');
    const a = npx([
      'build',
      '--config',
      join(pkg, 'config/badgepress.yaml'),
      '--out',
      'site',
      '--now',
      '1764000000',
    ]);
    expect(a.status, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/4 repositories, 12 scans/);
    const b = installed([
      'build',
      '--config',
      join(pkg, 'examples/shape-b/badgepress.yaml'),
      '--out',
      'site-b',
      '--now',
      '1764000000',
    ]);
    expect(b.status, b.stderr).toBe(0);
    expect(existsSync(join(app, 'site-b/api/v1/repositories'))).toBe(true);

    const serving = await startServeChild(
      'npx',
      ['badgepress', 'serve', '--dir', 'site', '--port', '0'],
      {
        cwd: app,
        env: childEnv(),
        detached: true,
      },
    );
    try {
      const repo = `${serving.url}/api/v1/repositories/${encodeURIComponent('https://github.com/acme/widget')}`;
      const badge = await fetch(`${repo}/badges/MAINTENANCE.svg`);
      expect(badge.status).toBe(200);
      expect(badge.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(await badge.text()).toBe(
        readFileSync(
          join(
            app,
            'site/api/v1/repositories',
            encodeURIComponent('https://github.com/acme/widget'),
            'badges/MAINTENANCE.svg',
          ),
          'utf8',
        ),
      );
      expect((await fetch(`${repo}/badges/MAINTENANCE.svg?timestamp=1762000001`)).status).toBe(200);
    } finally {
      await serving.stop();
    }
  });
});
