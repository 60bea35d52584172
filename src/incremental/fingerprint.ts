// What a repository's files depend on besides its own records and the configuration
// (incremental/parts.ts): the code that renders them, hashed whole.
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What the running code is: its sources, templates and the locked dependency versions. */
const CODE_PARTS = ['src', 'templates', 'package.json', 'package-lock.json'];

let code: Promise<string> | undefined;

/** One hash over every file of the running code; a new version redoes everything once. */
export function codeFingerprint(): Promise<string> {
  code ??= (async () => {
    const hash = createHash('sha256');
    for (const part of CODE_PARTS) await hashPath(hash, join(ROOT, part), part);
    return hash.digest('hex');
  })();
  return code;
}

/** Names and bytes of a file or of every file below a directory, in a fixed order. */
async function hashPath(
  hash: ReturnType<typeof createHash>,
  path: string,
  name: string,
): Promise<void> {
  let entries;
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return void hash.update(`\0absent ${name}\0`);
    if (code !== 'ENOTDIR') throw err;
    hash.update(`\0file ${name}\0`).update(await readFile(path));
    return;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1)))
    await hashPath(hash, join(path, e.name), `${name}/${e.name}`);
}
