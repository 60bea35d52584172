// The thresholds a new site starts from (config/, what `badgepress init` copies) and the scan
// example (examples/scan): badges named for what they measure, none failing a project for a
// choice that is not neglect, and no placeholder badge outside an example that says it is one.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadThresholdsB } from '../src/config/thresholds-b.ts';
import { ROOT, runCli } from './helpers/cli.ts';
import { utc, WorkRepo } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';

const yaml = (path: string) =>
  parse(readFileSync(join(ROOT, path), 'utf8')) as {
    rules: Array<{ id: string; name: string }>;
    badges: Array<{ id: string; criteria?: string[] }>;
  };

describe('examples/scan thresholds', () => {
  it('name each badge for the one rule it judges', () => {
    const { badges } = yaml('examples/scan/thresholds-git.yaml');
    for (const badge of badges) {
      expect(badge.criteria).toHaveLength(1);
      // SECURITY judges SECURITY_POLICY; the others carry their rule's name.
      expect(badge.criteria![0]!.replaceAll('_', '-')).toContain(badge.id);
    }
  });

  it('pass an active project that tags no releases on its commits, failing RELEASES alone', () => {
    const dir = tempDir();
    // Twelve commits in the last year by one person, no tag (as libssh2 had: many commits, no tag).
    const asOf = utc(2026, 11, 1);
    const repo = WorkRepo.init(join(dir, 'work'));
    for (let month = 0; month < 12; month++) repo.commit({ at: asOf - (month + 1) * 20 * 86_400 });
    repo.bareClone(join(dir, 'project.git'));
    const url = 'https://example.org/me/untagged';
    writeFileSync(join(dir, 'repositories.txt'), `${url} mirror=project.git\n`);
    const config = join(ROOT, 'examples/scan/badgepress.yaml');
    const scan = runCli([
      'scan',
      '--config',
      config,
      '--repos',
      join(dir, 'repositories.txt'),
      '--store',
      join(dir, 'store'),
      '--as-of',
      String(asOf),
      '--rules',
      'COMMITS,RELEASES,BUS_FACTOR,SECURITY_POLICY',
    ]);
    expect(scan.code, scan.stderr).toBe(0);
    const build = runCli([
      'build',
      '--config',
      config,
      '--store',
      join(dir, 'store'),
      '--out',
      join(dir, 'site'),
      '--now',
      String(asOf),
    ]);
    expect(build.code, build.stderr).toBe(0);
    const badges = join(dir, 'site/api/v1/repositories', encodeURIComponent(url), 'badges');
    const status = (id: string) => JSON.parse(readFileSync(join(badges, id), 'utf8')).badgeStatus;
    // 12 commits: silver (12..49); no release: fail; one person: fail; no SECURITY.md: fail.
    expect(
      Object.fromEntries(
        ['COMMITS', 'RELEASES', 'BUS-FACTOR', 'SECURITY'].map((id) => [id, status(id)]),
      ),
    ).toEqual({
      COMMITS: 'silver',
      RELEASES: 'fail',
      'BUS-FACTOR': 'fail',
      SECURITY: 'fail',
    });
  });
});

describe('starting thresholds (config/)', () => {
  it('publish no placeholder badge; the example that keeps one says it is one', async () => {
    const placeholder = /X{3,}/;
    for (const file of readdirSync(join(ROOT, 'config')).filter((f) =>
      /^thresholds-.*\.yaml$/.test(f),
    )) {
      const { rules, badges } = yaml(`config/${file}`);
      for (const { id, name } of rules)
        expect(`${id} ${name}`, `config/${file}`).not.toMatch(placeholder);
      for (const { id } of badges) expect(id, `config/${file}`).not.toMatch(placeholder);
    }
    // What remains is a valid Shape B file (init --shape B copies it), the open-source check kept.
    const packaged = await loadThresholdsB(join(ROOT, 'config/thresholds-b.yaml'));
    expect(packaged.badges.map((b) => b.id)).toEqual(['MAINTAINED', 'REUSED', 'OPEN-SOURCE']);
    const example = readFileSync(join(ROOT, 'examples/shape-b/thresholds-b.yaml'), 'utf8');
    expect(parse(example).badges.map((b: { id: string }) => b.id)).toContain('DIN-SPEC-XXXX');
    expect(example).toMatch(/^# .*DIN-SPEC-XXXX is a placeholder/m);
  });
});
