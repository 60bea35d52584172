// The scan's shape (issue 32 item 2): git is measured through one seam, the git measurer, as a
// forge is through its measurer, and no function of the orchestrator does six jobs again.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.ts';

const SCAN = join(ROOT, 'src/scan');
const files = readdirSync(SCAN).filter((f) => f.endsWith('.ts'));

describe('the scan orchestrator', () => {
  it('reaches git only through the git measurer', () => {
    const imports = files.flatMap((f) =>
      [...readFileSync(join(SCAN, f), 'utf8').matchAll(/from '(\.\.\/measure\/git\/[^']+)'/g)].map(
        (m) => `${f}: ${m[1]}`,
      ),
    );
    expect(imports).toEqual(['scan.ts: ../measure/git/measurer.ts']);
  });

  it('meets the forge through measure/types.ts, which reaches into no measurer', () => {
    // The seam is below both measurers: it imports model/ and measure/'s own files, never git/ or forge/.
    const seam = readFileSync(join(ROOT, 'src/measure/types.ts'), 'utf8');
    const imports = [...seam.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports.filter((p) => /\/(?:git|forge|dependents)\//.test(p!))).toEqual([]);
  });

  it('has no function of 60 lines or more', () => {
    const long: string[] = [];
    // The orchestrator's folder and the command that parses the flags and prints the summary.
    const paths = [...files.map((f) => join(SCAN, f)), join(ROOT, 'src/commands/scan.ts')];
    for (const path of paths) {
      const f = relative(ROOT, path);
      const lines = readFileSync(path, 'utf8').split('\n');
      let start = -1;
      lines.forEach((line, i) => {
        // A top-level function starts at column 0 and ends at the first "}" there.
        if (/^(export )?(async )?function /.test(line)) start = i;
        else if (start >= 0 && line.startsWith('}')) {
          if (i - start + 1 >= 60) long.push(`${f}:${start + 1}: ${i - start + 1} lines`);
          start = -1;
        }
      });
    }
    expect(long).toEqual([]);
  });
});
