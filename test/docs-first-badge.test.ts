// docs/guides/first-badge.md, run as written: its shell steps (all but `serve`, which keeps
// running) in an empty folder beside the checkout's examples/, then the README line's badge.
import { readFileSync, symlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, spawnChecked } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

const guide = readFileSync(join(ROOT, 'docs/guides/first-badge.md'), 'utf8');

describe('docs/guides/first-badge.md', () => {
  it('goes from a list of repositories to a served badge', async () => {
    const base = tempDir('badgepress-first-badge-');
    symlinkSync(join(ROOT, 'examples'), join(base, 'examples'));
    const steps = [...guide.matchAll(/```sh\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .filter((s) => !s.includes('badgepress serve'));
    expect(steps).toHaveLength(4);
    // The steps run one after another in one shell (the first one cds into tutorial/); npx
    // badgepress is the checkout's bin, as npx resolves it there.
    const script = ['set -e', ...steps]
      .join('\n')
      .replaceAll('npx badgepress ', `'${process.execPath}' '${join(ROOT, 'bin/badgepress.js')}' `);
    const r = spawnChecked('sh', ['-c', script], {
      cwd: base,
      env: { PATH: process.env.PATH!, HOME: base, CI: 'true', GIT_CONFIG_NOSYSTEM: '1' },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^badgepress scan: 1 repository, 1 measured, 0 already stored, 1 record written, 0 failed, [\d.]+ s → store\n/,
    );
    const record = JSON.parse(
      readFileSync(join(base, 'tutorial/store/example.org/me/my-project.ndjson'), 'utf8'),
    );
    expect(record.values).toMatchObject({ BUS_FACTOR: 1, SECURITY_POLICY: true });
    expect(record.values.COMMITS.events).toHaveLength(1);
    // The README line's badge: its image path under site/, gold as the guide says.
    const line =
      /\[!\[SECURITY\]\(http:\/\/127\.0\.0\.1:8787\/(api\/v1\/repositories\/[^)]+\.svg)\)\]/.exec(
        guide,
      )![1]!;
    // On disk the encoded URL is the folder's name, as the resolver serves it.
    const svg = readFileSync(join(base, 'tutorial/site', line), 'utf8');
    expect(svg).toContain('gold');
    const explanation = JSON.parse(
      readFileSync(
        join(
          base,
          'tutorial/site/api/v1/repositories',
          encodeURIComponent('https://example.org/me/my-project'),
          'badges/COMMITS',
        ),
        'utf8',
      ),
    );
    expect(explanation.badgeStatus).toBe('bronze');
    const status = (badge: string) =>
      JSON.parse(
        readFileSync(
          join(
            base,
            'tutorial/site/api/v1/repositories',
            encodeURIComponent('https://example.org/me/my-project'),
            `badges/${badge}`,
          ),
          'utf8',
        ),
      ).badgeStatus;
    // As the guide says: SECURITY gold, COMMITS and RELEASES bronze, BUS-FACTOR fail.
    expect(['SECURITY', 'COMMITS', 'RELEASES', 'BUS-FACTOR'].map(status)).toEqual([
      'gold',
      'bronze',
      'bronze',
      'fail',
    ]);

    // "Run it again a second or more later and it writes a second record"; at a time the store
    // holds (the same --as-of), nothing.
    const scan = steps
      .find((s) => s.startsWith('npx badgepress scan '))!
      .trim()
      .replace('npx badgepress ', '');
    const cli = (args: string) =>
      spawnChecked(
        'sh',
        ['-c', `'${process.execPath}' '${join(ROOT, 'bin/badgepress.js')}' ${args}`],
        {
          cwd: join(base, 'tutorial'),
          env: { PATH: process.env.PATH!, HOME: base, CI: 'true', GIT_CONFIG_NOSYSTEM: '1' },
        },
      );
    const records = () =>
      readFileSync(join(base, 'tutorial/store/example.org/me/my-project.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { timestamp: number });
    await sleep(1100);
    const again = cli(scan);
    expect(again.stdout, again.stderr).toContain(', 1 record written,');
    const [first, second] = records();
    expect(second!.timestamp).toBeGreaterThan(first!.timestamp);
    const same = cli(`${scan} --as-of ${second!.timestamp}`);
    expect(same.stdout, same.stderr).toContain('1 already stored, 0 records written');
    expect(records()).toHaveLength(2);
    // "Here that line writes nothing, ... 0 already stored, 0 records written": the repository
    // was made today, after today's midnight (unless this ran across midnight).
    const today = cli(`${scan} --as-of "$(date -u +%F)"`);
    if (
      new Date(first!.timestamp * 1000).toISOString().slice(0, 10) ===
      new Date().toISOString().slice(0, 10)
    ) {
      expect(today.stdout, today.stderr).toContain(
        '1 measured, 0 already stored, 0 records written',
      );
      expect(records()).toHaveLength(2);
    }
  });
});
