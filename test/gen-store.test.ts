// scripts/gen-store.ts as a user runs it: bad flags say what is wrong and the usage, exit 2.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NODE_TSX, ROOT, spawnChecked } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

const dir = tempDir();
const genStore = (args: string[]) => {
  const r = spawnChecked(
    NODE_TSX[0],
    [...NODE_TSX.slice(1), join(ROOT, 'scripts/gen-store.ts'), ...args],
    {
      cwd: ROOT,
      timeout: 60_000,
    },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};
const USAGE =
  'usage: npm run gen-store -- --repos N --scans M --out DIR [--seed S] [--shape A|B]\n';

describe('gen-store flags', () => {
  it.each([
    [['--repos', 'abc', '--out', join(dir, 'x')], '--repos "abc": expected a whole number'],
    [['--repo', '5', '--out', join(dir, 'x')], "Unknown option '--repo'"],
    [['--scans=-1', '--out', join(dir, 'x')], '--scans "-1": expected a whole number'],
    [['--scans', '-1', '--out', join(dir, 'x')], "Option '--scans' argument is ambiguous."],
    [
      ['--out', join(dir, 'x'), 'extra'],
      "Unexpected argument 'extra'. This command does not take positional arguments",
    ],
    [['--shape', 'C', '--out', join(dir, 'x')], '--shape "C": expected A or B'],
    [['--repos', '3'], '--out DIR is required'],
  ])('%j: says what is wrong and the usage, exit 2, no stack trace', (args, problem) => {
    const r = genStore(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`gen-store: ${problem}\n${USAGE}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });

  it('good flags write the store', () => {
    const out = join(dir, 'ok');
    const r = genStore(['--repos', '3', '--scans', '2', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`gen-store: 3 repositories × 2 scans → ${out}\n`);
    expect(readdirSync(out)).toEqual(['repo-0.ndjson', 'repo-1.ndjson', 'repo-2.ndjson']);
  });
});
