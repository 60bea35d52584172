// The configuration is read once and every stage sees the same settings: a decision file that
// the site's URL schemes accept is accepted by the pages and the build state as by the
// evaluator; a failure to write --out is said once, never nested in itself.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from './helpers/cli-in-process.ts';
import { tempDir } from './helpers/tmp.ts';

const THRESHOLDS_B = resolve('examples/shape-b/thresholds-b.yaml');

describe('one resolved configuration', () => {
  it('repositoryUrlSchemes [https, git] and a decision granting a git:// URL: the build accepts it everywhere', async () => {
    const d = tempDir();
    mkdirSync(join(d, 'decisions'));
    mkdirSync(join(d, 'store'));
    writeFileSync(
      join(d, 'badgepress.yaml'),
      `shape: B\nstore: store\nout: site\nthresholds:\n  B: ${JSON.stringify(THRESHOLDS_B)}\ndecisions: decisions\nrepositoryUrlSchemes: [https, git]\n`,
    );
    writeFileSync(
      join(d, 'decisions', 'din.yaml'),
      'ruleId: MANUAL/DIN SPEC XXXX compliant\ngranted:\n  - git://example.org/acme/tool\n',
    );
    writeFileSync(
      join(d, 'store', 'tool.ndjson'),
      `${JSON.stringify({ repositoryUrl: 'git://example.org/acme/tool', timestamp: 1763000000, values: { COMMITS: 3 } })}\n`,
    );
    const r = await runCommand([
      'build',
      '--config',
      join(d, 'badgepress.yaml'),
      '--now',
      '1764000000',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The grant reached the report: the manual rule passes for the granted repository.
    const sarif = JSON.parse(
      readFileSync(
        join(
          d,
          'site',
          'api',
          'v1',
          'repositories',
          encodeURIComponent('git://example.org/acme/tool'),
          'sarif',
        ),
        'utf8',
      ),
    ) as { runs: Array<{ results: Array<{ ruleId: string; kind: string }> }> };
    expect(
      sarif.runs[0]!.results.find((r) => r.ruleId === 'MANUAL/DIN SPEC XXXX compliant')?.kind,
    ).toBe('pass');
    // The repository page (written from the same settings) exists too.
    expect(
      readFileSync(
        join(
          d,
          'site',
          'repositories',
          encodeURIComponent('git://example.org/acme/tool'),
          'index.html',
        ),
        'utf8',
      ),
    ).toContain('git://example.org/acme/tool');
  });
});

describe('errors are said once', () => {
  /** The example store copied, and a regular file where --out should name a directory. */
  function outIsARegularFile(): { store: string; file: string } {
    const d = tempDir();
    cpSync('examples/store', join(d, 'store'), { recursive: true });
    writeFileSync(join(d, 'site'), 'not a directory');
    return { store: join(d, 'store'), file: join(d, 'site') };
  }

  it('--out naming a regular file: one message naming --out, the key and what to check', async () => {
    const { store, file } = outIsARegularFile();
    const r = await runCommand(['build', '--store', store, '--out', file, '--now', '1764000000']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(
      `badgepress: --out ${file}: cannot write .badgepress/lease.json (ENOTDIR); check that --out names a writable directory on a disk with free space\n`,
    );
  });

  it('plan with --out naming a regular file: one message naming --out and what to check, not a bare errno', async () => {
    const { store, file } = outIsARegularFile();
    const r = await runCommand(['plan', '--store', store, '--out', file, '--now', '1764000000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `^badgepress: --out ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot read [^ ]+ \\(ENOTDIR\\); check that --out names a directory\n$`,
      ),
    );
  });
});
