// The source files the grep tests read (rule ids, forge kinds, count-plus-noun): each named
// from the repository's root with forward slashes, so a finding reads "src/x.ts:12: …".
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './cli.ts';

/** The .ts and .json files under `dir` (default: src/), sorted, relative to the root. */
export function sourceFiles(dir = join(ROOT, 'src')): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => /\.(ts|json)$/.test(f))
    .map((f) => relative(ROOT, join(dir, f)).split('\\').join('/'))
    .sort();
}
