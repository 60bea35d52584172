// Hostile input that once hung a build, leaked credentials into a public tree or was refused
// with a message naming the wrong cause (issue 16): decision patterns, special files, YAML
// tags, repository URLs, config addresses, oversized lines and unreadable files.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, NODE_TSX, ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const line = (o: object) => JSON.stringify(o);

let n = 0;
function folder(files: Record<string, string>): string {
  const d = join(dir, `case${++n}`);
  mkdirSync(d, { recursive: true });
  for (const [f, body] of Object.entries(files)) {
    mkdirSync(join(d, f, '..'), { recursive: true });
    writeFileSync(join(d, f), body);
  }
  return d;
}

/** The real command line, killed after `seconds`: a hang shows as code null. */
function cli(args: string[], seconds = 60) {
  const r = spawnSync(NODE_TSX[0], [...NODE_TSX.slice(1), `${ROOT}src/cli.ts`, ...args], { cwd: ROOT, env: childEnv(), encoding: 'utf8', timeout: seconds * 1000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('decision patterns match in linear time (RE2)', () => {
  it('a catastrophic grantedRegex against a long URL ends the build in seconds, and patterns still grant', () => {
    const hostile = `https://github.com/${'a'.repeat(40)}!`;
    const d = folder({
      'badgepress.yaml': `shape: B\nstore: store\nthresholds: {B: ${join(ROOT, 'config/thresholds-b.yaml')}}\ndecisions: decisions\n`,
      'decisions/oss.yaml': "ruleId: MANUAL/Project is open source\ngrantedRegex: ['^https://github\\.com/(a+)+$', '(?i)^https://CODEBERG\\.org/']\n",
      'store/s.ndjson': [
        line({ repositoryUrl: hostile, timestamp: 1760000000, values: { COMMITS: 7 } }),
        line({ repositoryUrl: 'https://codeberg.org/acme/tool', timestamp: 1760000000, values: { COMMITS: 7 } }),
      ].join('\n'),
    });
    const out = join(d, 'out');
    // Backtracking needs about 2^40 steps here: hours. RE2 needs one pass over 60 characters.
    const r = cli(['build', '--config', join(d, 'badgepress.yaml'), '--out', out, '--now', '1760000000'], 30);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const explanation = (url: string) => JSON.parse(readFileSync(join(out, 'api/v1/repositories', encodeURIComponent(url), 'badges/OPEN-SOURCE'), 'utf8')) as unknown;
    expect(JSON.stringify(explanation('https://codeberg.org/acme/tool'))).toContain('the repository matches (?i)^https://CODEBERG\\\\.org/');
    expect(JSON.stringify(explanation(hostile))).not.toContain('Granted manually');
  });
});
