// The measured rules as one table (issue 32 item 1): each rule id badgepress measures is written
// in src/ only in its table entry (src/model/measured-rules.ts) and, where it describes a
// setting, the config schema; code and comments elsewhere refer to a rule by its handle. The
// ids below are written by hand from docs/reference/scan.md, not read from the table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  eventRuleIds,
  FORGE_RULE_IDS,
  forgePartNotRead,
  GIT_RULE_IDS,
  MEASURED_RULES,
  measuredAt,
  measuredRuleIds,
  RULE,
  ruleIdsOf,
  windowMonths,
} from '../src/model/measured-rules.ts';
import { ROOT } from './helpers/cli.ts';
import { sourceFiles } from './helpers/source-files.ts';

const IDS = [
  'BUS_FACTOR',
  'CI_PIPELINE',
  'COMMITS',
  'DEPENDENTS',
  'ISSUE_REACTION_TIME',
  'PACKAGES',
  'RELEASES',
  'SECURITY_POLICY',
];
const ALLOWED = new Set(['src/model/measured-rules.ts', 'src/config/schemas/site.schema.json']);

describe('the table of measured rules', () => {
  it('writes each measured rule id in src/ only in the table and the config schema', () => {
    // An id as a word of its own: DEPENDENTS_API_URLS names no rule.
    const word = new RegExp(`(?<![\\w])(${IDS.join('|')})(?![\\w])`, 'g');
    const found: string[] = [];
    for (const file of sourceFiles()) {
      if (ALLOWED.has(file)) continue;
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (word.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
          word.lastIndex = 0;
        });
    }
    expect(found).toEqual([]);
    // The grep sees the table: every id is there.
    const table = readFileSync(join(ROOT, 'src/model/measured-rules.ts'), 'utf8');
    for (const id of IDS) expect([id, table.includes(`'${id}'`)]).toEqual([id, true]);
  });

  it('lists every rule scan measures, by source, kind and window', () => {
    expect(MEASURED_RULES.map((r) => r.id)).toEqual(IDS);
    expect(GIT_RULE_IDS).toEqual(['BUS_FACTOR', 'COMMITS', 'RELEASES', 'SECURITY_POLICY']);
    expect(FORGE_RULE_IDS).toEqual([
      'CI_PIPELINE',
      'DEPENDENTS',
      'ISSUE_REACTION_TIME',
      'PACKAGES',
    ]);
    // A forge's API answers these, in the order its measurer lists them.
    expect(ruleIdsOf('forge')).toEqual([
      'ISSUE_REACTION_TIME',
      'CI_PIPELINE',
      'RELEASES',
      'PACKAGES',
    ]);
    expect(eventRuleIds()).toEqual(['CI_PIPELINE', 'COMMITS', 'PACKAGES', 'RELEASES']);
    expect(measuredRuleIds({ dependents: false })).toEqual([
      'BUS_FACTOR',
      'COMMITS',
      'RELEASES',
      'SECURITY_POLICY',
      'CI_PIPELINE',
      'ISSUE_REACTION_TIME',
      'PACKAGES',
    ]);
    // The reaction time's window: the thresholds' timeRangeInMonths, else 3 months.
    expect(windowMonths(RULE.issueReactionTime, {})).toBe(3);
    expect(windowMonths(RULE.issueReactionTime, { ISSUE_REACTION_TIME: 6 })).toBe(6);
    expect(windowMonths(RULE.commits, { COMMITS: 6 })).toBeUndefined();
    // The bus factor's window is the scan setting busFactorMonths, not the thresholds'.
    expect(windowMonths(RULE.busFactor, { BUS_FACTOR: 6 }, { busFactorMonths: 7 })).toBe(7);
  });

  it('says which scan times a rule is measured at: a latest-only rule at E alone', () => {
    const E = 1795564800;
    const earlier = 1790985600;
    expect(measuredAt('DEPENDENTS', E, E)).toBe(true);
    expect(measuredAt('DEPENDENTS', earlier, E)).toBe(false);
    expect(measuredAt('COMMITS', earlier, E)).toBe(true);
    expect(measuredAt('ISSUE_REACTION_TIME', earlier, E)).toBe(true);
    // A rule another scanner writes is no measured rule of ours: every time is its own.
    expect(measuredAt('SCORECARD_X', earlier, E)).toBe(true);
  });

  it("words a merged rule's failed forge part by the table's name for it", () => {
    expect(forgePartNotRead('RELEASES', 'GitHub API: 403 rate limit, resets 15:17Z')).toBe(
      'forge releases not read: GitHub API: 403 rate limit, resets 15:17Z',
    );
    expect(forgePartNotRead('RELEASES', undefined)).toBe('forge releases not read: no answer');
  });

  it('words each outcome from what the measurement found', () => {
    // 2026-11-25 and 2026-10-03, 00:00 UTC.
    const [E, committedAt] = [1795564800, 1790985600];
    const place = { branch: 'main', commit: '0123456789abcdef0123', committedAt };
    expect(
      RULE.commits.evidence.measured({ months: 12, to: E, commits: 1, byBots: 2, place }),
    ).toBe(
      '1 non-merge commit in the 12 months to 2026-11-25, reachable from main at 0123456789ab (2026-10-03); 2 commits by bots left out',
    );
    expect(
      RULE.busFactor.evidence.measured({
        months: 12,
        to: E,
        contributors: 2,
        people: 1200,
        commits: 1000,
        place: { ...place, mailmapMissing: 'abcdefabcdefabcdef' },
      }),
    ).toBe(
      '2 contributors of 1,200 made at least half of 1,000 non-merge commits in the 12 months to 2026-11-25 (main at 0123456789ab (2026-10-03)); .mailmap (blob abcdefabcdef) not in the mirror, authors taken as recorded',
    );
    expect(RULE.securityPolicy.evidence.noHistory({})).toBe('the default branch has no commits');
    expect(RULE.securityPolicy.evidence.noHistory({ branch: 'x'.repeat(70), by: E })).toBe(
      `${'x'.repeat(57)}... had no commits by 2026-11-25`,
    );
    expect(RULE.dependents.evidence.noPackage({ index: 'deps.dev' })).toBe(
      'deps.dev knows no package published from this repository',
    );
  });

  it('writes each count with its noun in the right number and its digits grouped', () => {
    const E = 1795564800; // 2026-11-25 00:00 UTC
    const one = { months: 1, to: E };
    const many = { months: 12, to: E };
    expect(RULE.ciPipeline.evidence.measured({ ...one, system: 'GitHub Actions', runs: 1 })).toBe(
      'GitHub Actions: 1 run that succeeded or failed in the 1 month to 2026-11-25',
    );
    expect(
      RULE.ciPipeline.evidence.measured({ ...many, system: 'GitLab CI/CD', runs: 12345 }),
    ).toBe('GitLab CI/CD: 12,345 runs that succeeded or failed in the 12 months to 2026-11-25');
    expect(
      RULE.issueReactionTime.evidence.measured({
        ...many,
        issues: 1,
        unanswered: 1,
        unreadable: 1,
      }),
    ).toBe(
      "Mean first maintainer reaction over 1 issue opened in the 12 months to 2026-11-25; 1 without a maintainer's reaction, counted with their age; 1 issue or reaction with a date that does not read left out",
    );
    expect(
      RULE.issueReactionTime.evidence.measured({
        ...many,
        issues: 2500,
        unanswered: 1200,
        unreadable: 3,
      }),
    ).toBe(
      "Mean first maintainer reaction over 2,500 issues opened in the 12 months to 2026-11-25; 1,200 without a maintainer's reaction, counted with their age; 3 issues or reactions with a date that does not read left out",
    );
    expect(RULE.releases.evidence.forge({ ...many, releases: 1 })).toBe(
      '1 forge release whose tag git does not hold, in the 12 months to 2026-11-25',
    );
    expect(RULE.releases.evidence.forge({ ...many, releases: 1000 })).toBe(
      '1,000 forge releases whose tag git does not hold, in the 12 months to 2026-11-25',
    );
    expect(RULE.packages.evidence.measured({ ...many, versions: 1 })).toBe(
      '1 package version first published in the 12 months to 2026-11-25',
    );
    expect(RULE.packages.evidence.measured({ ...many, versions: 1000 })).toBe(
      '1,000 package versions first published in the 12 months to 2026-11-25',
    );
    expect(
      RULE.dependents.evidence.measured({ index: 'deps.dev', dependents: 1, packages: 1 }),
    ).toBe('deps.dev: 1 dependent of 1 package published from this repository');
    expect(
      RULE.dependents.evidence.measured({ index: 'ecosyste.ms', dependents: 48210, packages: 2 }),
    ).toBe('ecosyste.ms: 48,210 dependents of 2 packages published from this repository');
  });

  it("docs/development.md's worked example is the code as it is", () => {
    const doc = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
    const section = doc.slice(
      doc.indexOf('## Adding a measured rule'),
      doc.indexOf('## Commands and the package'),
    );
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(2);
    const code = ['src/model/measured-rules.ts', 'src/measure/git/rules.ts'].map((f) =>
      readFileSync(join(ROOT, f), 'utf8'),
    );
    blocks.forEach((block, i) => expect(code[i]).toContain(block));
  });
});
