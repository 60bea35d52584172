// Count-plus-noun has one home, src/model/plural.ts (issue 32 item 4): every count reads the
// same (digits grouped, the noun in the right number), and no file of src/ words one by hand.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastMonths } from '../src/model/plural.ts';
import { ROOT } from './helpers/cli.ts';
import { sourceFiles } from './helpers/source-files.ts';

describe('lastMonths(), the window before a time in words', () => {
  it('says "the last month" for one, and groups the digits of many', () => {
    expect([1, 2, 6, 1200].map(lastMonths)).toEqual([
      'the last month',
      'the last 2 months',
      'the last 6 months',
      'the last 1,200 months',
    ]);
  });
});

/**
 * A count and its noun chosen by hand, the shapes the copies took before plural.ts was their
 * home: `${n} ${n === 1 ? 'x' : 'xs'}`, `x${n === 1 ? '' : 's'}`, `${n} x(s)`,
 * `n === 1 ? '1 x' : …`, and `n === 1 ? … : `${n} xs``. Choosing other words by a count
 * (`'it' : 'them'`, `'has' : 'have'`) is no count-plus-noun and is not matched.
 */
const HAND_WRITTEN: readonly RegExp[] = [
  /\$\{(?:numberText\()?([\w.]+(?: - \d+)?)\)?\}[\w ]*\$\{\(?\1\)? [!=]== 1 \?/,
  /[!=]== 1 \? '(?:s|)' : '(?:s|)'/,
  /\$\{[^}]+\}[\w ]*\w\(s\)/,
  /[!=]== 1 \? '1 /,
  /([\w.]+) === 1 \? [^:]+ : `[^`]*\$\{\1\} [a-z]/,
];

function handWritten(source: string): string[] {
  return source
    .split('\n')
    .flatMap((line, i) =>
      HAND_WRITTEN.some((r) => r.test(line)) ? [`${i + 1}: ${line.trim()}`] : [],
    );
}

describe('count-plus-noun has one home', () => {
  it('finds each hand-written shape the copies took, and not the words a count merely chooses', () => {
    const found = [
      "note(rule, `${left} ${left === 1 ? 'event' : 'events'} left out`);",
      "`${f.reason} (${f.keys.length} key${f.keys.length === 1 ? '' : 's'})`",
      'super(`${keys.length} key(s) not published`);',
      "`(data ${days === 1 ? '1 day' : `${days} days`} old)`",
      "return n === 1 ? 'the last month' : `the last ${n} months`;",
      "has ${segments.length} path ${segments.length === 1 ? 'segment' : 'segments'}",
    ].map(handWritten);
    expect(found.map((lines) => lines.length)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(
      handWritten(
        [
          "`fix ${errors === 1 ? 'it' : 'them'} or drop --strict`",
          "`${list} ${unknown.length === 1 ? 'has' : 'have'} no value`",
          'namedIn[i] = urls.length === 1 ? urls[0]! : urls;',
          'must be an absolute http(s) URL',
          "`${counted(n, 'scan', 'scans')} ${n === 1 ? 'needs' : 'need'} about`",
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('no file of src/ but src/model/plural.ts words a count and its noun by hand', () => {
    const found = sourceFiles()
      .filter((file) => file.endsWith('.ts') && file !== 'src/model/plural.ts')
      .flatMap((file) =>
        handWritten(readFileSync(join(ROOT, file), 'utf8')).map((line) => `${file}:${line}`),
      );
    expect(found).toEqual([]);
  });

  it('no file of src/ hands on the count or date helpers under a second address', () => {
    // One home each: a caller imports counted and numberText from model/plural.ts and isoDate,
    // isoTime and windowStart from model/calendar.ts, never through a module re-exporting them.
    const reExport = /export\s*(?:\*|\{[^}]*\})\s*from\s*'[./]*model\/(?:plural|calendar)\.ts'/g;
    const found = sourceFiles()
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        [...readFileSync(join(ROOT, file), 'utf8').matchAll(reExport)].map(
          (m) => `${file}: ${m[0]}`,
        ),
      );
    expect(found).toEqual([]);
  });
});
