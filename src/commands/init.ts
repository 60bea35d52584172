// `badgepress init [DIR]`: a starting config to edit (src/config/starting-config.ts writes it).
import { join, relative, resolve } from 'node:path';
import { writeStartingConfig } from '../config/starting-config.ts';
import { parseFlags } from './args.ts';
import { UsageError } from '../errors.ts';

export const INIT_USAGE = `usage: badgepress init [DIR] [--shape A|B] [--force]
  writes DIR/config/badgepress.yaml (site settings) and the thresholds of the shape (A: score
  bands, the default; B: badge levels), copied from the packaged config with their comments,
  and DIR/config/repositories.txt (the repositories to measure, one URL a line) when missing;
  the store is DIR/store and the site goes to DIR/dist. Existing files are kept unless --force
  (the repository list always is).
  Then, in DIR: badgepress scan --repos config/repositories.txt, then badgepress build`;

/** A path as the user would type it from here: relative inside the working directory, else absolute. */
const shown = (f: string) => {
  const r = relative(process.cwd(), f);
  return r === '' ? '.' : r.startsWith('..') ? f : r;
};

export async function initCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { shape: { type: 'string' }, force: { type: 'boolean' } },
    INIT_USAGE,
    true,
  );
  if (positionals.length > 1)
    throw new UsageError(`one directory at most, got ${positionals.length}\n${INIT_USAGE}`);
  const shape = values.shape ?? 'A';
  if (shape !== 'A' && shape !== 'B')
    throw new UsageError(`--shape ${JSON.stringify(shape)}: expected A or B`);
  const dir = resolve(positionals[0] ?? '.');
  const files = writeStartingConfig(dir, shape, values.force ?? false, shown);
  const where = dir === process.cwd() ? '' : ` in ${shown(dir)}`;
  const written = files.map(shown);
  process.stdout.write(
    `badgepress: wrote ${written.length > 1 ? `${written.slice(0, -1).join(', ')} and ${written.at(-1)}` : written[0]} (Shape ${shape}).\n` +
      `Next: list the repositories to measure in ${shown(join(dir, 'config/repositories.txt'))} (one URL a line), set baseUrl to the site's public address, ` +
      `then run "badgepress scan --repos config/repositories.txt" and "badgepress build"${where} ` +
      `(a scanner of your own writes records into ${shown(join(dir, 'store'))}/ instead: https://github.com/badgepress/badgepress/blob/main/docs/reference/store-records.md).\n`,
  );
  return 0;
}
