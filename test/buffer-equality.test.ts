// The setup file's byte comparison (test/helpers/buffer-equality.ts) must still tell trees apart.
import { describe, expect, it } from 'vitest';

describe('toEqual on bytes', () => {
  it('equal bytes are equal, in a Map as in a site tree', () => {
    expect(new Map([['a', Buffer.from('same')]])).toEqual(new Map([['a', Buffer.from('same')]]));
    expect(Buffer.from('abc').subarray(1)).toEqual(Buffer.from('bc'));
  });
  it('one differing byte or a missing byte is not equal', () => {
    expect(new Map([['a', Buffer.from('same')]])).not.toEqual(
      new Map([['a', Buffer.from('sane')]]),
    );
    expect(Buffer.from('abc')).not.toEqual(Buffer.from('ab'));
    expect(() => expect(Buffer.from('x')).toEqual(Buffer.from('y'))).toThrow();
  });
});
