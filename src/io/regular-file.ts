// Reads a local file only when it is a regular file. A FIFO, socket or device in a store or a
// config path must never block a build: the open does not wait (O_NONBLOCK), and the type is
// checked on the descriptor actually opened, so a file swapped after listing is judged too.
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** The most bytes Node reads into one buffer (fs.readFile's limit, 2 GiB - 1). */
const MAX_FILE_BYTES = 2 ** 31 - 1;

/** A file that cannot be read, with the cause in words and what to do (no path: callers name it). */
export class FileReadError extends Error {
  readonly reason: string;
  readonly code?: string;
  constructor(
    reason: string,
    /** The system error code, when the open failed with one. */
    code?: string,
  ) {
    super(reason);
    this.reason = reason;
    this.code = code;
    this.name = 'FileReadError';
  }
}

/**
 * Opens `path` for reading only when it is a regular file of at most `maxBytes`: the open never
 * waits (O_NONBLOCK), and the checks are made on the descriptor opened. The caller closes it.
 */
export async function openRegularFile(
  path: string,
  maxBytes: number = MAX_FILE_BYTES,
): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new FileReadError(
      openFailure(err as NodeJS.ErrnoException),
      (err as NodeJS.ErrnoException).code,
    );
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile())
      throw new FileReadError(
        `is ${fileKind(stats)}, not a regular file; only regular files are read`,
      );
    if (stats.size > maxBytes) {
      throw new FileReadError(
        `is ${(stats.size / 2 ** 30).toFixed(1)} GiB, more than the 2 GiB one file may hold; split it into several files`,
      );
    }
    return handle;
  } catch (err) {
    await handle.close();
    if (err instanceof FileReadError) throw err;
    throw new FileReadError(
      `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
}

export async function readRegularFile(path: string): Promise<Buffer> {
  const handle = await openRegularFile(path);
  try {
    return await handle.readFile();
  } catch (err) {
    throw new FileReadError(
      `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  } finally {
    await handle.close();
  }
}

function openFailure(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOENT':
      return 'does not exist (a link to nothing, or removed while the build ran); fix or remove it';
    case 'EACCES':
    case 'EPERM':
      return `cannot be read: permission denied (${err.code}); let the build's user read it (chmod a+r)`;
    case 'ELOOP':
      return 'is a loop of symbolic links; fix or remove it';
    default:
      return `cannot be opened (${err.code ?? String(err)})`;
  }
}

/** What a file that is not a regular one is, in words ("a FIFO (named pipe)"). */
export function fileKind(s: Stats): string {
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isDirectory()) return 'a directory';
  return 'a special file';
}
