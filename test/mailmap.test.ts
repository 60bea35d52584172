// parseMailmap against git itself: every identity below is mapped by `git check-mailmap` in a
// repository holding the same .mailmap, and the two must agree. The lines are those where a
// reading of the manual and git's mailmap.c part: `#` inside an entry (only a line starting
// with `#` is a comment), trailing text, an empty e-mail, a later line replacing an earlier
// one, case (ASCII only), whitespace, CRLF.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseMailmap, type Identity } from '../src/measure/git/mailmap.ts';
import { utc, WorkRepo } from './helpers/git-repo.ts';
import { tempDir } from './helpers/tmp.ts';

const MAILMAP = [
  '# a comment line <comment@example.org>',
  'Jo # Smith <jo@example.org>',
  'Alice <alice@example.org> <alice@old.example> # moved in 2024',
  'Bob Builder <bob@example.org> Bobby <BOB@old.example>   # Bob <bob@other.example>',
  'Carol <carol@example.org> # Carol <carol@old.example>',
  ' # Hash <hash@example.org>',
  '#Dave <dave@example.org>',
  'Dave <dave@new.example> <dave@example.org>',
  'Dave Again <dave@new.example> Dave <dave@example.org>',
  'Eve <eve@example.org> <>',
  'Nobody <>',
  'Frank <frank@x.example> Frank Old <frank@old.example>',
  '<frank@y.example> Frank Old <frank@old.example>',
  'Upper <upper@example.org> <UPPER@Example.ORG>',
  'Émile <emile@example.org> <ÉMILE@example.org>',
  '\tTab  Name \t<tab@example.org>',
  'Crlf Person <crlf@example.org> <crlf@old.example>\r',
  'Only Name <named@example.org>',
  '<mail-only@new.example> <mail-only@example.org>',
  'G <g@example.org>',
  'no brackets here',
  'Half <half@example.org',
  '',
].join('\n');

const IDENTITIES: Identity[] = [
  { name: 'Jo', email: 'jo@example.org' },
  { name: 'Anyone', email: 'alice@old.example' },
  { name: 'Bobby', email: 'bob@old.example' },
  { name: 'bobby', email: 'Bob@Old.Example' },
  { name: 'Robert', email: 'bob@old.example' },
  { name: 'Bob', email: 'bob@other.example' },
  { name: 'C', email: 'carol@example.org' },
  { name: 'C', email: 'carol@old.example' },
  { name: 'H', email: 'hash@example.org' },
  { name: 'D', email: 'dave@example.org' },
  { name: 'Dave', email: 'dave@example.org' },
  { name: 'DAVE', email: 'DAVE@example.org' },
  { name: 'E', email: 'eve@example.org' },
  { name: 'Frank Old', email: 'frank@old.example' },
  { name: 'Frank', email: 'frank@old.example' },
  { name: 'U', email: 'upper@example.org' },
  { name: 'U', email: 'Upper@EXAMPLE.org' },
  { name: 'E', email: 'émile@example.org' },
  { name: 'E', email: 'ÉMILE@example.org' },
  { name: 'T', email: 'tab@example.org' },
  { name: 'C', email: 'crlf@old.example' },
  { name: 'N', email: 'named@example.org' },
  { name: 'M', email: 'mail-only@example.org' },
  { name: 'M', email: 'comment@example.org' },
  { name: 'G2', email: 'g@example.org' },
  { name: 'X', email: 'half@example.org' },
  { name: 'Nobody Here', email: 'unmapped@example.org' },
];

describe('.mailmap parsing agrees with git check-mailmap', () => {
  let work: WorkRepo;
  beforeAll(() => {
    work = WorkRepo.init(join(tempDir('badgepress-mailmap-'), 'work'));
    work.commit({ at: utc(2026, 1, 5), files: { '.mailmap': MAILMAP } });
  });

  it('maps every identity as git does', () => {
    const byGit = work
      .git(['check-mailmap', ...IDENTITIES.map((i) => `${i.name} <${i.email}>`)])
      .split('\n')
      .filter((l) => l !== '')
      .map((l): Identity => {
        const m = /^(.*) <(.*)>$/.exec(l)!;
        return { name: m[1]!, email: m[2]! };
      });
    expect(byGit).toHaveLength(IDENTITIES.length);
    const mailmap = parseMailmap(MAILMAP);
    expect(IDENTITIES.map((i) => mailmap.map(i))).toEqual(byGit);
  });
});
