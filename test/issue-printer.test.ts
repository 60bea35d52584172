// How load problems reach the operator: up to a limit, then how many more there were.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { issuePrinter } from '../src/commands/report.ts';

function printed(max: number, count: number): string {
  const stream = new PassThrough();
  const printer = issuePrinter(stream, { max });
  for (let i = 1; i <= count; i++)
    printer.print({ severity: 'error', where: `s.ndjson:${i}`, message: 'bad; record skipped' });
  printer.flush();
  return String(stream.read() ?? '');
}

describe('the load problems printed', () => {
  it('shows the first ones and counts the rest, the noun in number and the digits grouped', () => {
    expect(printed(1, 2)).toBe(
      'error: s.ndjson:1: bad; record skipped\n… and 1 more problem not shown\n',
    );
    expect(printed(1, 1202).split('\n').slice(1)).toEqual([
      '… and 1,201 more problems not shown',
      '',
    ]);
    expect(printed(2, 2)).toBe(
      'error: s.ndjson:1: bad; record skipped\nerror: s.ndjson:2: bad; record skipped\n',
    );
  });
});
