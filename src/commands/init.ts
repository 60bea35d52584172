// `badgepress init [DIR]`: a starting config to edit, for an installed package (whose own
// config/ lives inside node_modules) or a fresh directory. It copies the packaged files, their
// comments and every section included, changing only what must point elsewhere: the store
// (DIR/store), the shape and the one threshold file of that shape.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { PACKAGE_CONFIG_DIR } from '../config/load.ts';
import type { Shape } from '../config/types.ts';
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

const THRESHOLDS: Record<Shape, string> = { A: 'thresholds-a.yaml', B: 'thresholds-b.yaml' };

/** The packaged site settings for a directory of one's own: comments and unknown sections kept. */
export function startingSettings(packaged: string, shape: Shape): string {
  const doc = parseDocument(packaged);
  doc.set('shape', shape);
  doc.set('store', '../store');
  doc.set('out', '../dist');
  // Only the active shape's thresholds are copied; the other shape's stay the packaged ones.
  for (const s of Object.keys(THRESHOLDS) as Shape[]) if (s !== shape) doc.deleteIn(['thresholds', s]);
  doc.setIn(['thresholds', shape], THRESHOLDS[shape]);
  return `# Written by badgepress init from the packaged config; edit it to suit your site.\n${doc.toString()}`;
}

export async function initCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { shape: { type: 'string' }, force: { type: 'boolean' } }, INIT_USAGE, true);
  if (positionals.length > 1) throw new UsageError(`one directory at most, got ${positionals.length}\n${INIT_USAGE}`);
  const shape = values.shape ?? 'A';
  if (shape !== 'A' && shape !== 'B') throw new UsageError(`--shape ${JSON.stringify(shape)}: expected A or B`);
  const dir = resolve(positionals[0] ?? '.');
  const configDir = join(dir, 'config');
  const files = [join(configDir, 'badgepress.yaml'), join(configDir, THRESHOLDS[shape])];
  const existing = files.filter((f) => existsSync(f));
  if (existing.length > 0 && !values.force) {
    const which = existing.map(shown).join(' and ');
    throw new UsageError(existing.length === 1 ? `${which} already exists: edit it, or pass --force to overwrite it with the packaged one` : `${which} already exist: edit them, or pass --force to overwrite them with the packaged ones`);
  }
  mkdirSync(configDir, { recursive: true });
  mkdirSync(join(dir, 'store'), { recursive: true });
  writeFileSync(files[0]!, startingSettings(readFileSync(join(PACKAGE_CONFIG_DIR, 'badgepress.yaml'), 'utf8'), shape));
  copyFileSync(join(PACKAGE_CONFIG_DIR, THRESHOLDS[shape]), files[1]!);
  process.stdout.write(
    `badgepress: wrote ${files.map(shown).join(' and ')} (Shape ${shape}).\n` +
      `Next: put your scanner's records in ${shown(join(dir, 'store'))}/ (one file per repository: https://github.com/badgepress/badgepress/blob/main/docs/reference/store-records.md), ` +
      `set baseUrl to the site's public address, then run "badgepress build"${dir === process.cwd() ? '' : ` in ${shown(dir)}`}.\n`,
  );
  return 0;
}
