// No module of src/ exports a name that no other file imports (issue 32 item 4, dead code):
// such an export tells a reader others depend on the name and keeps an unused one from the
// compiler's unused-locals check. scripts/unused-exports.ts reads the import statements; the
// small trees below are worked out by hand.
import { describe, expect, it } from 'vitest';
import { codeFiles, unusedExports } from '../scripts/unused-exports.ts';
import { ROOT } from './helpers/cli.ts';

describe('unused exports', () => {
  it('every export of src/ is imported by another file, or is listed as deliberate', () => {
    const found = unusedExports(codeFiles(ROOT)).map((u) => `${u.file}:${u.line}: ${u.name}`);
    expect(found).toEqual([]);
  });

  it('finds an export only its own file uses, through each way of importing', () => {
    const tree = new Map([
      [
        'src/a.ts',
        [
          'export function named() {}',
          'export const aliased = 1;',
          'export type Shape = { a: number };',
          'export async function* lines() {}',
          'export const lonely = 2;',
          'export function viaDynamic() { return lonely; }',
          'export function viaCompiled() {}',
          'export interface Unread {}',
        ].join('\n'),
      ],
      ['src/b/c.ts', "import { named, aliased as other, type Shape } from '../a.ts';"],
      ['test/t.test.ts', "export { lines } from '../src/a.ts';"],
      ['scripts/s.ts', "const m = await import('../src/a.ts');\nm.viaDynamic();"],
      ['scripts/compile.mjs', "import { viaCompiled } from '../lib/a.js';"],
    ]);
    expect(unusedExports(tree)).toEqual([
      { file: 'src/a.ts', line: 5, name: 'lonely' },
      { file: 'src/a.ts', line: 8, name: 'Unread' },
    ]);
  });
});
