// What `git clone` of this checkout gives, without git's network or history: its tracked files,
// copied. The install and recipe tests start from it, as a user starts from a clone.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './cli.ts';

/** The paths git tracks here (a file deleted in the work tree but not yet in git is left out). */
export function trackedFiles(): string[] {
  return spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .stdout.split('\0')
    .filter((f) => f && existsSync(join(ROOT, f)));
}

/**
 * Copies the tracked files into `dest`, less those `skip` leaves out; returns `dest`. Their
 * times are kept: a store file changed within 2 s of a build is read again by the next one,
 * and a recipe's store was not written the moment before its first build.
 */
export function copyTracked(dest: string, skip: (path: string) => boolean = () => false): string {
  for (const file of trackedFiles()) {
    if (skip(file)) continue;
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dest, file), { preserveTimestamps: true });
  }
  return dest;
}
