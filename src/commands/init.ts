// `badgepress init [DIR]`: a starting config to edit (src/config/starting-config.ts writes it).
import { join, relative, resolve } from 'node:path';
import { writeStartingConfig } from '../config/starting-config.ts';
import { parseFlags, UsageError } from './args.ts';

export const INIT_USAGE = `usage: badgepress init [DIR] [--shape A|B] [--force]
  writes DIR/config/badgepress.yaml (site settings) and the thresholds of the shape (A: score
  bands, the default; B: badge levels), copied from the packaged config with their comments;
  the store is DIR/store and the site goes to DIR/dist. Existing files are kept unless --force.
  Then, in DIR: badgepress build`;

/** A path as the user would type it from here: relative inside the working directory, else absolute. */
const shown = (f: string) => {
  const r = relative(process.cwd(), f);
  return r === '' ? '.' : r.startsWith('..') ? f : r;
};

export async function initCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { shape: { type: 'string' }, force: { type: 'boolean' } }, INIT_USAGE, true);
  if (positionals.length > 1) throw new UsageError(`one directory at most, got ${positionals.length}\n${INIT_USAGE}`);
  const shape = values.shape ?? 'A';
  if (shape !== 'A' && shape !== 'B') throw new UsageError(`--shape ${JSON.stringify(shape)}: expected A or B`);
  const dir = resolve(positionals[0] ?? '.');
  const files = writeStartingConfig(dir, shape, values.force ?? false, shown);
  process.stdout.write(
    `badgepress: wrote ${files.map(shown).join(' and ')} (Shape ${shape}).\n` +
      `Next: put your scanner's records in ${shown(join(dir, 'store'))}/ (one file per repository: https://github.com/badgepress/badgepress/blob/main/docs/reference/store-records.md), ` +
      `set baseUrl to the site's public address, then run "badgepress build"${dir === process.cwd() ? '' : ` in ${shown(dir)}`}.\n`,
  );
  return 0;
}
