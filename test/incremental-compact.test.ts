// The compact forms the build keeps its listing and a state read back in (incremental/listing.ts,
// incremental/compact-state.ts) answer as the maps they replace.
import { describe, expect, it } from 'vitest';
import { CompactFileStates, CompactRepositoryStates } from '../src/incremental/compact-state.ts';
import { StoreListing } from '../src/incremental/listing.ts';
import type { FileState, RepositoryState } from '../src/incremental/state-types.ts';

const issue = { severity: 'error' as const, where: 'b.ndjson:3', message: 'bad' };

describe('a state read back compactly', () => {
  const files: Array<[string, FileState]> = [
    ['a.ndjson', { version: '10:1', repositories: ['https://h/a', 'https://h/b'] }],
    ['b.ndjson', { version: '11:2', repositories: ['https://h/c'], issues: [issue] }],
    ['c/d.json', { version: '12:3', repositories: [] }],
  ];

  it('files in the listing order, in another order, and a name given twice (the last kept) answer as a Map', () => {
    for (const order of [
      files,
      [files[2]!, files[0]!, files[1]!],
      [
        ...files,
        ['a.ndjson', { version: '13:4', repositories: ['https://h/z'] }] as [string, FileState],
      ],
    ]) {
      const compact = new CompactFileStates();
      const map = new Map<string, FileState>();
      for (const [n, f] of order) {
        compact.set(n, f);
        map.set(n, f);
      }
      expect(compact.size).toBe(map.size);
      expect(new Map(compact)).toEqual(map);
      for (const n of ['a.ndjson', 'b.ndjson', 'c/d.json', 'missing', '']) {
        expect(compact.has(n)).toBe(map.has(n));
        expect(compact.get(n)).toEqual(map.get(n));
        expect(compact.versionOf(n)).toBe(map.get(n)?.version);
        expect(compact.repositoriesOf(n)).toEqual(map.get(n)?.repositories);
      }
    }
  });

  it('repositories keep their counts, --prune, expiry side and problems', () => {
    const states: Array<[string, RepositoryState]> = [
      ['https://h/a', { scans: 2, files: 40, pruned: true, flip: 1_770_000_001, flipped: false }],
      [
        'https://h/b',
        { scans: 1, files: 20, pruned: false, flip: 5, flipped: true, issues: [issue] },
      ],
      ['https://h/c', { scans: 0, files: 0, pruned: false }],
    ];
    const compact = new CompactRepositoryStates();
    for (const [u, r] of states) compact.set(u, r);
    compact.set('https://h/c', { scans: 3, files: 9, pruned: true });
    const map = new Map(states);
    map.set('https://h/c', { scans: 3, files: 9, pruned: true });
    expect(new Map(compact)).toEqual(map);
    expect([...compact.keys()]).toEqual([...map.keys()]);
    expect(compact.get('https://h/b')).toEqual(map.get('https://h/b'));
    expect(compact.has('https://h/x')).toBe(false);
    expect(compact.size).toBe(3);
  });
});

describe('the store listing', () => {
  it('finds files listed out of order, keeps what was read of them and their problems', () => {
    const listing = new StoreListing([
      { name: 'b.ndjson', version: '2:2' },
      { name: 'a.ndjson', version: '1:1' },
      { name: 'c.json', version: '3:3' },
    ]);
    expect(listing.names).toEqual(['a.ndjson', 'b.ndjson', 'c.json']);
    expect(listing.version('b.ndjson')).toBe('2:2');
    expect(listing.version('z')).toBeUndefined();
    expect(listing.get('c.json')).toEqual({ name: 'c.json', version: '3:3' });
    expect(listing.addIssue('a.ndjson', issue)).toBe(false);
    listing.setRead('a.ndjson', '1:1', ['https://h/a']);
    listing.setRead('c.json', '3:4', ['https://h/x', 'https://h/y']);
    listing.setRead('unlisted.ndjson', '9:9', ['https://h/u']);
    expect(listing.addIssue('a.ndjson', issue)).toBe(true);
    expect([0, 1, 2].map((i) => listing.readAt(i))).toEqual([
      { version: '1:1', repositories: ['https://h/a'], issues: [issue] },
      undefined,
      { version: '3:4', repositories: ['https://h/x', 'https://h/y'] },
    ]);
    expect(listing.isRead('b.ndjson')).toBe(false);
    expect(listing.isRead('unlisted.ndjson')).toBe(false);
    expect(listing.repositoriesReadAt(0)).toEqual(['https://h/a']);
  });
});
