import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/errors.ts';
import { loadThresholdsB } from '../src/config/thresholds-b.ts';
import { compileUrlPattern, loadDecisions } from '../src/config/decisions.ts';
import { ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';
import { configProblems } from './helpers/config.ts';

const dir = tempDir();
const DEFAULT = readFileSync(join(ROOT, 'examples/shape-b/thresholds-b.yaml'), 'utf8');
const defaults = await loadThresholdsB(join(ROOT, 'examples/shape-b/thresholds-b.yaml'));
const problemsOf = configProblems(dir, loadThresholdsB);

/** Replaces exactly one occurrence, so a test never passes because its edit missed. */
function edit(text: string, from: string, to: string): string {
  expect(text.split(from).length - 1, from).toBe(1);
  return text.replace(from, to);
}

describe('Shape B example thresholds (the packaged ones and the placeholder DIN-SPEC-XXXX) reproduce the tables of docs/reference/api.md', () => {
  it('rules: id (index), unit, threshold', () => {
    expect(defaults.rules.map((r, i) => [r.id, i, r.unit, r.threshold])).toEqual([
      ['COMMITS', 0, 'commits', { min: 5, timeRangeInMonths: 6 }],
      ['ISSUE_REACTION_TIME', 1, 'days', { max: 7, timeRangeInMonths: 3 }],
      ['RELEASES', 2, 'releases', { min: 1, timeRangeInMonths: 6 }],
      ['PACKAGES', 3, 'packages', { min: 1, timeRangeInMonths: 6 }],
      ['CI_PIPELINE', 4, 'runs', { min: 1, timeRangeInMonths: 6 }],
      ['MANUAL/DIN SPEC XXXX compliant', 5, '', { min: 1 }],
      ['MANUAL/Project is open source', 6, '', { min: 1 }],
    ]);
    expect(defaults.rules.map((r) => r.manual)).toEqual([
      false,
      false,
      false,
      false,
      false,
      true,
      true,
    ]);
  });

  it('badges: ordered levels with the checks each adds, informationUri optional (may be empty)', () => {
    expect(defaults.badges.map((b) => [b.id, b.levels.map((l) => [l.level, l.checks])])).toEqual([
      [
        'MAINTAINED',
        [
          ['BRONZE', ['COMMITS']],
          ['SILVER', ['ISSUE_REACTION_TIME']],
          ['GOLD', ['RELEASES']],
        ],
      ],
      ['REUSED', [['BRONZE', ['PACKAGES', 'CI_PIPELINE']]]],
      ['DIN-SPEC-XXXX', [['BRONZE', ['MANUAL/DIN SPEC XXXX compliant']]]],
      ['OPEN-SOURCE', [['GOLD', ['MANUAL/Project is open source']]]],
    ]);
    // None configured: each defaults to the site's own badge page (docs/reference/api.md, "The human site").
    expect(defaults.badges.map((b) => b.informationUri)).toEqual([
      undefined,
      undefined,
      '',
      undefined,
    ]);
  });
});

describe('Shape B thresholds validation', () => {
  it('the defaults load', async () => {
    expect((await problemsOf(DEFAULT)).problems).toEqual([]);
  });

  it('refuses an unknown rule in a level, naming file:line and path', async () => {
    const { file, problems } = await problemsOf(
      edit(DEFAULT, 'checks: [RELEASES]', 'checks: [RELEASE]'),
    );
    expect(problems).toEqual([
      `${file}:59 badges[0].levels[2].checks[0]: unknown rule "RELEASE"; define it under rules or remove it`,
    ]);
  });

  it('refuses a manual rule id whose encoded form is too long for its page segment', async () => {
    // 'é' encodes to 6 bytes: 50 of them are 300 bytes, though the id is 57 characters.
    const long = `MANUAL/${'é'.repeat(50)}`;
    const { file, problems } = await problemsOf(
      DEFAULT.split('MANUAL/Project is open source').join(long),
    );
    expect(problems).toEqual([
      `${file}:44 rules[6].id: rule id encodes to 309 bytes; its page rules/<id>/ is one path segment of at most 255 bytes: shorten the id`,
    ]);
  });

  it('refuses duplicate rule and badge ids', async () => {
    const { file, problems } = await problemsOf(
      edit(edit(DEFAULT, '- id: RELEASES', '- id: COMMITS'), '- id: REUSED', '- id: MAINTAINED'),
    );
    expect(problems).toEqual([
      `${file}:20 rules[2].id: duplicate rule id "COMMITS" (also rules[0])`,
      // RELEASES is gone now, so the level that names it is refused too.
      `${file}:59 badges[0].levels[2].checks[0]: unknown rule "RELEASES"; define it under rules or remove it`,
      `${file}:60 badges[1].id: duplicate badge id "MAINTAINED" (also badges[0])`,
    ]);
  });

  it('refuses badge ids that differ only in case', async () => {
    const { file, problems } = await problemsOf(edit(DEFAULT, '- id: REUSED', '- id: Maintained'));
    expect(problems).toEqual([
      `${file}:60 badges[1].id: badge id "Maintained" differs from "MAINTAINED" (badges[0]) only in case: their files would be one on a case-insensitive disk (macOS, Windows); rename one`,
    ]);
  });

  it('refuses min above max and a threshold without bounds', async () => {
    const a = await problemsOf(
      edit(DEFAULT, '{ min: 5, timeRangeInMonths: 6 }', '{ min: 5, max: 4, timeRangeInMonths: 6 }'),
    );
    expect(a.problems).toEqual([
      `${a.file}:13 rules[0].threshold.min: min 5 is above max 4; nothing could pass`,
    ]);
    const b = await problemsOf(
      edit(DEFAULT, '{ max: 7, timeRangeInMonths: 3 }', '{ timeRangeInMonths: 3 }'),
    );
    expect(b.problems).toEqual([
      `${b.file}:19 rules[1].threshold: give min, max or both; a threshold without bounds passes everything`,
    ]);
  });

  it('refuses a manual rule with a unit or a time range, and a measured rule without a unit', async () => {
    const withUnit = edit(
      DEFAULT,
      'unit: ""\n    threshold: { min: 1 }\nbadges',
      'unit: licences\n    threshold: { min: 1, timeRangeInMonths: 2 }\nbadges',
    );
    const { file, problems } = await problemsOf(edit(withUnit, 'unit: runs', 'unit: ""'));
    expect(problems).toEqual([
      `${file}:36 rules[4].unit: a measured rule needs a unit (e.g. commits, days); only MANUAL/ rules have none`,
      `${file}:48 rules[6].unit: a manual rule has no unit (its value is 1 when granted, 0 when not); write unit: ""`,
      `${file}:49 rules[6].threshold.timeRangeInMonths: a manual rule is decided by people, not counted; remove timeRangeInMonths`,
    ]);
  });

  it('refuses levels out of order and a check named again in a higher level', async () => {
    const a = await problemsOf(
      edit(
        DEFAULT,
        '- level: SILVER\n        checks: [ISSUE_REACTION_TIME]\n      - level: GOLD',
        '- level: GOLD\n        checks: [ISSUE_REACTION_TIME]\n      - level: SILVER',
      ),
    );
    expect(a.problems).toEqual([
      `${a.file}:58 badges[0].levels[2].level: level SILVER after GOLD: list levels once each, lowest first (BRONZE, SILVER, GOLD)`,
    ]);
    const b = await problemsOf(edit(DEFAULT, 'checks: [RELEASES]', 'checks: [RELEASES, COMMITS]'));
    expect(b.problems).toEqual([
      `${b.file}:59 badges[0].levels[2].checks[1]: "COMMITS" is already a check of BRONZE; higher levels repeat the checks of lower levels, so name it once`,
    ]);
  });

  it('refuses a badge id too long for a file name (<ID>.svg within 255 bytes)', async () => {
    const { file, problems } = await problemsOf(
      edit(DEFAULT, '- id: MAINTAINED', `- id: ${'M'.repeat(201)}`),
    );
    expect(problems).toEqual([`${file}:51 badges[0].id: longer than 200 characters; shorten it`]);
    expect(
      (await problemsOf(edit(DEFAULT, '- id: MAINTAINED', `- id: ${'M'.repeat(200)}`))).problems,
    ).toEqual([]);
  });

  it('refuses wrong types, unknown levels and unknown keys through the schema', async () => {
    const { file, problems } = await problemsOf(
      edit(
        edit(
          DEFAULT,
          '- level: GOLD\n        checks: [RELEASES]',
          '- level: PLATINUM\n        checks: [RELEASES]',
        ),
        '{ min: 1 }\nbadges',
        '{ min: "one" }\n    colour: red\nbadges',
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        `${file}:49 rules[6].threshold.min: must be number`,
        `${file}:50 rules[6].colour: unknown key; remove it or check its spelling`,
        `${file}:59 badges[0].levels[2].level: must be one of "BRONZE", "SILVER", "GOLD"`,
      ]),
    );
  });
});

describe('decision files', () => {
  let k = 0;
  async function decisionProblems(
    files: Record<string, string>,
  ): Promise<{ dir: string; problems: string[] }> {
    const d = join(dir, `decisions${++k}`);
    mkdirSync(d);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
    try {
      await loadDecisions(d, defaults);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return { dir: d, problems: (err as ConfigError).problems };
    }
    return { dir: d, problems: [] };
  }

  it('load YAML and JSON files, canonicalise URLs and compile patterns; other files are ignored', async () => {
    const d = join(dir, 'decisions-ok');
    mkdirSync(d);
    writeFileSync(
      join(d, 'din.yaml'),
      'ruleId: MANUAL/DIN SPEC XXXX compliant\nby: Board\ngranted: [HTTPS://Example.ORG/Team/Repo]\ngrantedRegex: ["^https://codeberg\\\\.org/"]\n',
    );
    writeFileSync(join(d, 'oss.json'), '{"ruleId":"MANUAL/Project is open source"}');
    writeFileSync(join(d, 'README.md'), 'not a decision file');
    const decisions = await loadDecisions(d, defaults);
    expect([...decisions.keys()]).toEqual([
      'MANUAL/DIN SPEC XXXX compliant',
      'MANUAL/Project is open source',
    ]);
    const din = decisions.get('MANUAL/DIN SPEC XXXX compliant')!;
    expect(din).toMatchObject({
      name: 'din.yaml',
      by: 'Board',
      granted: ['https://example.org/Team/Repo'],
    });
    expect(din.grantedRegex.map((r) => r.source)).toEqual(['^https://codeberg\\.org/']);
    expect(decisions.get('MANUAL/Project is open source')).toMatchObject({
      granted: [],
      grantedRegex: [],
    });
  });

  it('an invalid regex is a config error naming file:line', async () => {
    const { dir: d, problems } = await decisionProblems({
      'din.yaml':
        'ruleId: MANUAL/DIN SPEC XXXX compliant\ngrantedRegex:\n  - ^https://ok/\n  - "^https://(broken"\n',
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      new RegExp(
        `^${join(d, 'din.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4 grantedRegex\\[1\\]: invalid regular expression \\(RE2 syntax\\): `,
      ),
    );
  });

  it('patterns are RE2: (?i) and \\- are accepted, lookaround and backreferences refused with file:line', async () => {
    const { dir: d, problems } = await decisionProblems({
      'din.yaml':
        "ruleId: MANUAL/DIN SPEC XXXX compliant\ngrantedRegex:\n  - '^https://a\\-b/'\n  - '(?i)^https://github.com/'\n  - '^https://(?=x)'\n  - '^https://(a)\\1'\n",
    });
    const file = join(d, 'din.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${file}:5 grantedRegex\\[2\\]: invalid regular expression \\(RE2 syntax\\): .*\\(\\?=.*lookaround are not supported$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^${file}:6 grantedRegex\\[3\\]: invalid regular expression \\(RE2 syntax\\): .*\\\\1`,
        ),
      ),
    ]);
    const ok = join(dir, 'decisions-re2');
    mkdirSync(ok);
    writeFileSync(
      join(ok, 'din.yaml'),
      "ruleId: MANUAL/DIN SPEC XXXX compliant\ngrantedRegex: ['^https://a\\-b/', '(?i)^https://github.com/ACME/']\n",
    );
    const [dash, caseless] = (await loadDecisions(ok, defaults)).get(
      'MANUAL/DIN SPEC XXXX compliant',
    )!.grantedRegex;
    expect(dash!.test('https://a-b/x')).toBe(true);
    expect(caseless!.test('https://github.com/acme/widget')).toBe(true);
    expect(caseless!.test('https://gitlab.com/acme/widget')).toBe(false);
  });

  it('the RE2 forms docs/reference/configuration.md names: \\x{e9}, \\p{Greek}, \\/ accepted; \\u00e9, \\p{Script=Greek} refused', () => {
    const caf = compileUrlPattern('^https://caf\\x{e9}\\.example/');
    const greek = compileUrlPattern('\\p{Greek}');
    const slash = compileUrlPattern('^https://h\\.org\\/a$');
    expect([caf, greek, slash].map((r) => typeof r)).toEqual(['object', 'object', 'object']);
    expect(typeof caf === 'object' && caf.test('https://caf\u00e9.example/x')).toBe(true);
    expect(typeof greek === 'object' && greek.test('https://h.org/\u03b1')).toBe(true);
    expect(typeof slash === 'object' && slash.test('https://h.org/a')).toBe(true);
    for (const refused of ['\\u00e9', '\\p{Script=Greek}'])
      expect(compileUrlPattern(refused)).toMatch(/^invalid regular expression \(RE2 syntax\): /);
  });

  it('refuses an unknown or non-manual rule, a second file for a rule, and a bad URL', async () => {
    const { dir: d, problems } = await decisionProblems({
      'a.yaml':
        'ruleId: MANUAL/Project is open source\ngranted:\n  - https://github.com/acme/widget\n  - not a url\n',
      'b.json': '{\n  "ruleId": "MANUAL/Project is open source"\n}',
      'c.yaml': 'ruleId: MANUAL/Unknown check\n',
      'd.yaml': 'ruleId: COMMITS\n',
    });
    expect(problems).toEqual([
      `${join(d, 'a.yaml')}:4 granted[1]: repositoryUrl "not a url" is not of the form <scheme>://<host>/<path>`,
      `${join(d, 'b.json')}:2 ruleId: "MANUAL/Project is open source" is already decided by a.yaml; keep one file per manual rule`,
      `${join(d, 'c.yaml')}:1 ruleId: "MANUAL/Unknown check" is not a manual rule of the Shape B thresholds; known: "MANUAL/DIN SPEC XXXX compliant", "MANUAL/Project is open source"`,
      `${join(d, 'd.yaml')}:1 ruleId: must match pattern "^MANUAL/.+$"`,
    ]);
  });

  it('a missing directory is a config error that says what to check', async () => {
    await expect(loadDecisions(join(dir, 'nope'), defaults)).rejects.toThrow(
      /cannot read the decisions directory \(ENOENT\); check decisions: in the site config/,
    );
  });
});
