// The build's local temporary files (summary lines, spilled store records) live under the
// system's temporary folder (TMPDIR). A write that fails there is no store or output problem:
// the message names the file and what to do, where the system's own names no path at all
// ("ENOSPC: no space left on device, write").
import { tmpdir } from 'node:os';
import { LocationError } from '../errors.ts';

function temporaryFileError(path: string, err: unknown): Error {
  const { code, message } = err as NodeJS.ErrnoException;
  return new LocationError(
    `cannot write the temporary file ${path} (${code ?? message}); free space in ${tmpdir()} or set TMPDIR to a folder with room`,
  );
}

/** Runs a step on a temporary file, said of that file when it fails. */
export function onTemporaryFile<T>(path: string, step: () => T): T {
  try {
    return step();
  } catch (err) {
    throw temporaryFileError(path, err);
  }
}
