import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, loadThresholdsA } from '../src/config/load.ts';
import { runCli, ROOT, spawnChecked } from './helpers/cli.ts';
import { runCommand } from './helpers/cli-in-process.ts';
import { tempDir } from './helpers/tmp.ts';
import { configProblems } from './helpers/config.ts';

const dir = tempDir();
const DEFAULT = readFileSync(join(ROOT, 'config/thresholds-a.yaml'), 'utf8');
const problemsOf = configProblems(dir, loadThresholdsA);

describe('Shape A thresholds validation', () => {
  it('the defaults load', async () => {
    expect((await problemsOf(DEFAULT)).problems).toEqual([]);
  });

  it('refuses badge ids that differ only in case, naming both', async () => {
    const { file, problems } = await problemsOf(
      DEFAULT.replace('  - id: SECURITY\n', '  - id: Maintenance\n'),
    );
    const line = DEFAULT.split('\n').indexOf('  - id: SECURITY') + 1;
    expect(problems).toEqual([
      `${file}:${line} badges[1].id: badge id "Maintenance" differs from "MAINTENANCE" (badges[0]) only in case: their files would be one on a case-insensitive disk (macOS, Windows); rename one`,
    ]);
  });

  it('refuses overlapping bands, naming file:line and path', async () => {
    const { file, problems } = await problemsOf(
      DEFAULT.replace('{ min: 2, max: 7, status: silver }', '{ min: 1, max: 7, status: silver }'),
    );
    expect(problems).toEqual([
      `${file}:12 rules[0].thresholds[1]: band 1..7 overlaps band 0..1 (thresholds[0])`,
    ]);
  });

  it('refuses a gap, a missing 0 and a bounded last band', async () => {
    expect(
      (
        await problemsOf(
          DEFAULT.replace(
            '{ min: 8, max: 14, status: bronze }',
            '{ min: 9, max: 14, status: bronze }',
          ),
        )
      ).problems[0],
    ).toMatch(/:13 rules\[0\]\.thresholds\[2\]\.min: bands leave a gap: nothing covers 8\.\.8$/);
    expect(
      (
        await problemsOf(
          DEFAULT.replace('{ min: 0, max: 1, status: gold }', '{ min: 1, max: 1, status: gold }'),
        )
      ).problems[0],
    ).toMatch(/rules\[0\]\.thresholds\[0\]\.min: bands leave a gap: nothing covers 0\.\.0$/);
    expect(
      (
        await problemsOf(
          DEFAULT.replace(
            '{ min: 15, max: null, status: fail }',
            '{ min: 15, max: 99, status: fail }',
          ),
        )
      ).problems[0],
    ).toMatch(
      /rules\[0\]\.thresholds\[3\]\.max: bands leave a gap: nothing covers 100\.\.unbounded; end with max: null$/,
    );
  });

  it('refuses a badge that names an unknown rule', async () => {
    const { file, problems } = await problemsOf(
      DEFAULT.replace(
        'criteria: [ISSUE_REACTION_TIME, BUS_FACTOR]',
        'criteria: [ISSUE_REACTION_TIME, BUS_FACTR]',
      ),
    );
    expect(problems).toEqual([
      `${file}:45 badges[0].criteria[1]: unknown rule "BUS_FACTR"; define it under rules or remove it`,
    ]);
  });

  it('refuses a rule id too long for its page segment, naming file:line', async () => {
    const long = 'B'.repeat(256);
    const { file, problems } = await problemsOf(
      DEFAULT.replace('- id: BUS_FACTOR', `- id: ${long}`).replace(
        'ISSUE_REACTION_TIME, BUS_FACTOR]',
        `ISSUE_REACTION_TIME, ${long}]`,
      ),
    );
    expect(problems).toEqual([
      `${file}:15 rules[1].id: rule id encodes to 256 bytes; its page rules/<id>/ is one path segment of at most 255 bytes: shorten the id`,
    ]);
    expect(
      (
        await problemsOf(
          DEFAULT.replace('- id: BUS_FACTOR', `- id: ${long.slice(1)}`).replace(
            'ISSUE_REACTION_TIME, BUS_FACTOR]',
            `ISSUE_REACTION_TIME, ${long.slice(1)}]`,
          ),
        )
      ).problems,
    ).toEqual([]);
  });

  it('refuses wrong types and unknown keys with the path', async () => {
    const { problems } = await problemsOf(
      DEFAULT.replace(
        '{ min: 2, max: 7, status: silver }',
        '{ min: "two", max: 7, status: silverish }',
      ).replace('unit: days', 'unit: days\n    colour: red'),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/:13 rules\[0\]\.thresholds\[1\]\.min: must be integer$/),
        expect.stringMatching(
          /:13 rules\[0\]\.thresholds\[1\]\.status: must be one of "gold", "silver", "bronze", "fail"$/,
        ),
        expect.stringMatching(
          /:10 rules\[0\]\.colour: unknown key; remove it or check its spelling$/,
        ),
      ]),
    );
  });

  it('refuses a boolean rule without statuses and broken YAML', async () => {
    expect(
      (await problemsOf(DEFAULT.replace('    negativeStatus: fail\n', ''))).problems[0],
    ).toMatch(/rules\[2\]: missing required key "negativeStatus"/);
    expect((await problemsOf('rules: [\n')).problems[0]).toMatch(/t\d+\.yaml:\d+: /);
  });

  it('the site config rejects unknown keys and bad values', async () => {
    const file = join(dir, 'site.yaml');
    writeFileSync(file, 'shape: C\nbaseUrl: ftp://x\ncache:\n  latestMaxAge: -1\n');
    await expect(loadSettings(file)).rejects.toMatchObject({
      problems: [
        `${file}:1 shape: must be one of "A", "B"`,
        `${file}:2 baseUrl: must match pattern "^https?://[^\\s?#]+$"`,
        `${file}:4 cache.latestMaxAge: must be >= 0`,
      ],
    });
  });

  it('the CLI exits 2 on bad thresholds and writes nothing', () => {
    const cfg = join(dir, 'cli');
    mkdirSync(cfg, { recursive: true });
    writeFileSync(
      join(cfg, 'thresholds-a.yaml'),
      DEFAULT.replace('{ min: 3, max: 3, status: silver }', '{ min: 2, max: 3, status: silver }'),
    );
    writeFileSync(join(cfg, 'badgepress.yaml'), 'thresholds:\n  A: thresholds-a.yaml\n');
    const out = join(cfg, 'out');
    const r = runCli([
      'build',
      '--config',
      join(cfg, 'badgepress.yaml'),
      '--store',
      join(ROOT, 'examples/store'),
      '--out',
      out,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('configuration problems, nothing written');
    expect(r.stderr).toMatch(
      /thresholds-a\.yaml:\d+ rules\[1\]\.thresholds\[\d\]: band .* overlaps/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a badge id too long for a file name is refused before anything is written (exit 2)', async () => {
    const long = 'B'.repeat(201);
    const { file, problems } = await problemsOf(
      DEFAULT.replace('- id: MAINTENANCE', `- id: ${long}`),
    );
    expect(problems).toEqual([`${file}:43 badges[0].id: longer than 200 characters; shorten it`]);
    expect(
      (await problemsOf(DEFAULT.replace('- id: MAINTENANCE', `- id: ${'B'.repeat(200)}`))).problems,
    ).toEqual([]);
    const cfg = join(dir, 'long-id');
    mkdirSync(cfg, { recursive: true });
    writeFileSync(
      join(cfg, 'thresholds-a.yaml'),
      DEFAULT.replace('- id: MAINTENANCE', `- id: ${'B'.repeat(250)}`),
    );
    writeFileSync(join(cfg, 'badgepress.yaml'), 'thresholds:\n  A: thresholds-a.yaml\n');
    const out = join(cfg, 'out');
    const r = await runCommand([
      'build',
      '--config',
      join(cfg, 'badgepress.yaml'),
      '--store',
      join(ROOT, 'examples/store'),
      '--out',
      out,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /thresholds-a\.yaml:43 badges\[0\]\.id: longer than 200 characters; shorten it/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('YAML anchors and merge keys work; an alias bomb is a config error with file:line', async () => {
    const merged = await problemsOf(
      DEFAULT.replace('  - id: BUS_FACTOR\n', '  - id: BUS_FACTOR\n    <<: {}\n'),
    );
    expect(merged.problems).toEqual([]);
    const site = join(dir, 'anchors.yaml');
    writeFileSync(
      site,
      'cache: &c\n  latestMaxAge: 60\ncolors:\n  <<: {gold: "#ffd700"}\n  silver: "#c0c0c0"\n',
    );
    expect((await loadSettings(site)).colors).toMatchObject({ gold: '#ffd700', silver: '#c0c0c0' });
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const [i, name] of ['b', 'c', 'd', 'e', 'f', 'g'].entries())
      bomb.push(`${name}: &${name} [${Array(9).fill(`*${'abcdef'[i]}`).join(', ')}]`);
    const { file, problems } = await problemsOf(bomb.join('\n'));
    expect(problems).toEqual([
      `${file}:2: YAML aliases expand too far (over 100 expansions: nested aliases?); write the values out instead of aliasing them`,
    ]);
  });

  it('a key given twice names the key, both lines and what to do', async () => {
    // `init` writes `hosts: {}`; a hosts: block appended below it is the second.
    const site = join(dir, 'twice.yaml');
    writeFileSync(
      site,
      [
        'store: store',
        'hosts: {}',
        'sources:',
        '  - url: https://gitlab.example.org/acme',
        'hosts:',
        '  gitlab.example.org: { kind: gitlab }',
        '',
      ].join('\n'),
    );
    await expect(loadSettings(site)).rejects.toMatchObject({
      problems: [
        `${site}:5: hosts: is given twice (lines 2 and 5); merge the two hosts: entries into one`,
      ],
    });
    // Deeper down, a value that is no map: keep one.
    writeFileSync(
      site,
      ['scan:', '  retries: 1', '  concurrency: 2', '  retries: 3', ''].join('\n'),
    );
    await expect(loadSettings(site)).rejects.toMatchObject({
      problems: [`${site}:4: scan.retries: is given twice (lines 2 and 4); keep one of the two`],
    });
  });

  it('a band or a boolean rule cannot give unknown (only a missing value is unknown)', async () => {
    const band = await problemsOf(
      DEFAULT.replace(
        '{ min: 15, max: null, status: fail }',
        '{ min: 15, max: null, status: unknown }',
      ),
    );
    expect(band.problems).toEqual([
      expect.stringMatching(
        /:14 rules\[0\]\.thresholds\[3\]\.status: must be one of "gold", "silver", "bronze", "fail"$/,
      ),
    ]);
    expect(
      (await problemsOf(DEFAULT.replace('negativeStatus: fail', 'negativeStatus: unknown')))
        .problems,
    ).toEqual([
      expect.stringMatching(
        /:31 rules\[2\]\.negativeStatus: must be one of "gold", "silver", "bronze", "fail"$/,
      ),
    ]);
  });

  it('unknownAs: off by default, one of the contract five, anything else a config error with file:line', async () => {
    const file = join(dir, 'unknown-as.yaml');
    writeFileSync(file, 'shape: A\n');
    expect((await loadSettings(file)).unknownAs).toBeNull();
    for (const as of ['gold', 'fail', 'expired'] as const) {
      writeFileSync(file, `unknownAs: ${as}\n`);
      expect((await loadSettings(file)).unknownAs).toBe(as);
    }
    const site = configProblems(dir, loadSettings);
    for (const bad of ['unknown', 'none', 'pass'])
      expect((await site(`shape: A\nunknownAs: ${bad}\n`)).problems).toEqual([
        expect.stringMatching(
          /:2 unknownAs: must be one of "gold", "silver", "bronze", "fail", "expired", null$/,
        ),
      ]);
  });

  it('colors: none (Shape B, nothing granted) is not silver’s grey', async () => {
    const file = join(dir, 'colors.yaml');
    writeFileSync(file, 'shape: B\n');
    const { colors } = await loadSettings(file);
    expect(colors.none).not.toBe(colors.silver);
    expect(new Set(Object.values(colors)).size).toBe(Object.keys(colors).length);
  });

  it('docs/reference/configuration.md shows the real output of a bad thresholds file', () => {
    const page = readFileSync(join(ROOT, 'docs/reference/configuration.md'), 'utf8');
    const shown = /```\n(badgepress: configuration problems, nothing written:\n[\s\S]*?)```/.exec(
      page,
    )![1]!;
    const site = join(dir, 'srv-site');
    mkdirSync(join(site, 'config'), { recursive: true });
    mkdirSync(join(site, 'store'), { recursive: true });
    const edited = DEFAULT.replace(
      '{ min: 2, max: 7, status: silver }',
      '{ min: 1, max: 7, status: silver }',
    ).replace(
      'criteria: [ISSUE_REACTION_TIME, BUS_FACTOR]',
      'criteria: [ISSUE_REACTION_TIME, BUS_FACTR]',
    );
    writeFileSync(join(site, 'config/thresholds-a.yaml'), edited);
    writeFileSync(
      join(site, 'config/badgepress.yaml'),
      'store: ../store\nthresholds:\n  A: thresholds-a.yaml\n',
    );
    // As a user runs it from the site's directory: the bin resolves tsx from the checkout.
    const r = spawnChecked(process.execPath, [join(ROOT, 'bin/badgepress.js'), 'build'], {
      cwd: site,
      timeout: 60_000,
      env: { ...process.env, CI: 'true' },
    });
    expect(r.status).toBe(2);
    expect(r.stderr.split(site).join('/srv/site')).toBe(shown);
  });

  it('flags are checked', async () => {
    // One real process for the flag parser; the other refusals go through the same main() in-process.
    expect(runCli(['build', '--shape', 'C']).stderr).toMatch(/--shape "C": expected A or B/);
    expect((await runCommand(['build', '--now', 'soon'])).code).toBe(2);
    expect((await runCommand(['build', '--bogus'])).stderr).toMatch(/Unknown option '--bogus'/);
  });
});
