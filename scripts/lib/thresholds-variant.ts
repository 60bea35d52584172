// A config whose Shape A thresholds differ from the defaults by one edit: how tests and the
// benchmark make "a threshold change".
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DEFAULT = fileURLToPath(new URL('../../config/thresholds-a.yaml', import.meta.url));

/** Writes dir/thresholds-a.yaml (the default with `from` replaced by `to`) and dir/badgepress.yaml; returns the latter. */
export function thresholdsVariant(dir: string, from: string, to: string): string {
  const text = readFileSync(DEFAULT, 'utf8');
  // Exactly one match, so a test never passes because its edit missed.
  if (text.split(from).length !== 2)
    throw new Error(`thresholdsVariant: ${JSON.stringify(from)} must occur exactly once`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'thresholds-a.yaml'), text.replace(from, to));
  writeFileSync(join(dir, 'badgepress.yaml'), 'thresholds:\n  A: thresholds-a.yaml\n');
  return join(dir, 'badgepress.yaml');
}

/** REUSED's gold band starts at `gold` dependents instead of 20. */
export function reusedGoldFrom(dir: string, gold: number): string {
  return thresholdsVariant(
    dir,
    '{ min: 5, max: 19, status: silver }\n      - { min: 20, max: null, status: gold }',
    `{ min: 5, max: ${gold - 1}, status: silver }\n      - { min: ${gold}, max: null, status: gold }`,
  );
}
