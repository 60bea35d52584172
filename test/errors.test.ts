// The error family: each error carries the exit code the README's table gives its kind, and a
// wrapped error is wrapped once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BadInputError, ConfigError, LocationError, UsageError, wrapOnce } from '../src/errors.ts';
import { PublishError } from '../src/publish/sink.ts';
import { ROOT } from './helpers/cli.ts';
import { sourceFiles } from './helpers/source-files.ts';
import { LeaseHeldError, LeaseLostError } from '../src/io/lease.ts';

describe('exit codes travel on the errors', () => {
  it('bad input 2, config 2, store 4, publish 4, lease lost 4, lease held 5', () => {
    expect(new BadInputError('x').exitCode).toBe(2);
    expect(new UsageError('x').exitCode).toBe(2);
    expect(new ConfigError(['a.yaml:1 x: bad']).exitCode).toBe(2);
    expect(new LocationError('store s: cannot read').exitCode).toBe(4);
    expect(new PublishError(['k'], 'AccessDenied').exitCode).toBe(4);
    expect(new LeaseHeldError('out/.badgepress/lease.json', undefined).exitCode).toBe(5);
    expect(new LeaseLostError('out/.badgepress/lease.json').exitCode).toBe(4);
  });

  it('a config error reports every problem on its own line', () => {
    expect(new ConfigError(['a.yaml:1 x: bad', 'a.yaml:2 y: bad']).report()).toEqual({
      error: 'configuration problems, nothing written',
      text: 'configuration problems, nothing written:\n  a.yaml:1 x: bad\n  a.yaml:2 y: bad',
      details: { problems: ['a.yaml:1 x: bad', 'a.yaml:2 y: bad'] },
    });
  });
});

describe('a publish error counts its keys', () => {
  it('names one key in the singular, many with grouped digits, and the reasons left over', () => {
    expect(new PublishError(['k'], 'AccessDenied').message).toBe(
      '1 key not published: AccessDenied (1 key)',
    );
    const many = Array.from({ length: 1200 }, (_, i) => `k${i}`);
    expect(new PublishError(many, 'AccessDenied').message).toBe(
      '1,200 keys not published: AccessDenied (1,200 keys)',
    );
    // Five reasons are shown; the sixth is "1 other reason".
    const six = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'].map((reason) => ({
      reason,
      keys: [`${reason}/k`],
    }));
    expect(new PublishError(six).message).toBe(
      '6 keys not published: r1 (1 key); r2 (1 key); r3 (1 key); r4 (1 key); r5 (1 key); and 1 other reason',
    );
  });
});

describe('wrapOnce', () => {
  const say = (cause: string) => `--out o: cannot write k (${cause}); check --out`;

  it('says a system error with its code', () => {
    const err = Object.assign(new Error('ENOTDIR: not a directory, open o/k'), { code: 'ENOTDIR' });
    expect(wrapOnce(err, say).message).toBe('--out o: cannot write k (ENOTDIR); check --out');
  });

  it('leaves an error already said as it is, so no message nests its own cause', () => {
    const once = wrapOnce(Object.assign(new Error('e'), { code: 'EACCES' }), say);
    expect(wrapOnce(once, say)).toBe(once);
    expect(wrapOnce(once, say).message).toBe('--out o: cannot write k (EACCES); check --out');
  });
});

describe('each name has one address', () => {
  it('no module of src/ re-exports another whole, so an error is imported where it is defined', () => {
    const found = sourceFiles()
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => /^export \* from /m.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('no module of src/ hands on what another defines: each name is imported from its home', () => {
    const found = sourceFiles()
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => {
        const text = readFileSync(join(ROOT, file), 'utf8');
        const names = (list: string) =>
          list
            .split(',')
            .map((n) => n.replace(/^\s*type\s+/, '').trim())
            .filter(Boolean);
        const imported = new Set(
          [...text.matchAll(/^import\s+(?:type\s+)?\{([^}]*)\}\s*from/gm)].flatMap((m) =>
            names(m[1]!),
          ),
        );
        // `export { … } from '…'`, and `export { … };` of names the module imported.
        return [...text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s*(from\s*'[^']*')?\s*;/gm)]
          .filter((m) => m[2] !== undefined || names(m[1]!).some((n) => imported.has(n)))
          .map((m) => `${file}: ${m[0].replace(/\s+/g, ' ')}`);
      });
    expect(found).toEqual([]);
  });
});
