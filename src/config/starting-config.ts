// A starting config to edit (`badgepress init`), for an installed package (whose own config/
// lives inside node_modules) or a fresh directory. It copies the packaged files, their comments
// and every section included, changing only what must point elsewhere: the store (DIR/store),
// the shape and the one threshold file of that shape.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { UsageError } from '../errors.ts';
import { PACKAGE_CONFIG_DIR } from './load.ts';
import type { Shape } from './types.ts';

const THRESHOLDS: Record<Shape, string> = { A: 'thresholds-a.yaml', B: 'thresholds-b.yaml' };

/** The packaged site settings for a directory of one's own: comments and unknown sections kept. */
export function startingSettings(packaged: string, shape: Shape): string {
  const doc = parseDocument(packaged);
  doc.set('shape', shape);
  doc.set('store', '../store');
  doc.set('out', '../dist');
  // Only the active shape's thresholds are copied; the other shape's stay the packaged ones.
  for (const s of Object.keys(THRESHOLDS) as Shape[])
    if (s !== shape) doc.deleteIn(['thresholds', s]);
  doc.setIn(['thresholds', shape], THRESHOLDS[shape]);
  return `# Written by badgepress init from the packaged config; edit it to suit your site.\n${doc.toString()}`;
}

/**
 * Writes DIR/config/badgepress.yaml and the shape's thresholds, and makes DIR/store. Files that
 * exist are kept (a UsageError naming them, `shown` as the user would type them) unless `force`.
 * DIR/config/repositories.txt, the list `badgepress scan` reads, is written (the packaged one:
 * comments only) when missing and never overwritten: it is the user's list, not a setting.
 * Returns the files written.
 */
export function writeStartingConfig(
  dir: string,
  shape: Shape,
  force: boolean,
  shown: (path: string) => string,
): string[] {
  const configDir = join(dir, 'config');
  const files = [join(configDir, 'badgepress.yaml'), join(configDir, THRESHOLDS[shape])];
  const existing = files.filter((f) => existsSync(f));
  if (existing.length > 0 && !force) {
    const which = existing.map(shown).join(' and ');
    throw new UsageError(
      existing.length === 1
        ? `${which} already exists: edit it, or pass --force to overwrite it with the packaged one`
        : `${which} already exist: edit them, or pass --force to overwrite them with the packaged ones`,
    );
  }
  mkdirSync(configDir, { recursive: true });
  mkdirSync(join(dir, 'store'), { recursive: true });
  writeFileSync(
    files[0]!,
    startingSettings(readFileSync(join(PACKAGE_CONFIG_DIR, 'badgepress.yaml'), 'utf8'), shape),
  );
  copyFileSync(join(PACKAGE_CONFIG_DIR, THRESHOLDS[shape]), files[1]!);
  const list = join(configDir, 'repositories.txt');
  if (existsSync(list)) return files;
  copyFileSync(join(PACKAGE_CONFIG_DIR, 'repositories.txt'), list);
  return [...files, list];
}
