// The scan's appends to a directory store: each record whole or not at all (a disk that fills
// up mid-record, on a real tmpfs of 64 KiB and through the open seam), and only regular files
// inside the store (a FIFO never blocks the scan, a link never takes a record out of the store).
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStoreFile } from '../src/load/parse-file.ts';
import { DirectoryStoreWriter, StoreFileRefused, StoreWriteError } from '../src/store/writer.ts';
import { tempDir } from './helpers/tmp.ts';

const FIRST = '{"repositoryUrl":"https://h/r","timestamp":1,"values":{}}\n';
/** A record of about 12 KiB: more than the page of room a nearly full tmpfs has left. */
const big = (t: number) =>
  `${JSON.stringify({ repositoryUrl: 'https://h/r', timestamp: t, values: { NOTE: 'x'.repeat(12_000) } })}\n`;

/** Every line of the file is a record the build's loader reads. */
function loaderErrors(path: string): string[] {
  return parseStoreFile(path, readFileSync(path)).flatMap((item) =>
    'error' in item ? [`${item.line}: ${item.error}`] : [],
  );
}

describe('an append that runs out of room', () => {
  const dir = tempDir('badgepress-store-append-');

  it('through the open seam: a short write is continued; a failed one is cut back, and the next append is whole', async () => {
    const store = join(dir, 'seam');
    mkdirSync(join(store, 'h'), { recursive: true });
    writeFileSync(join(store, 'h/r.ndjson'), FIRST);
    let room = 0;
    // A disk with `room` bytes left that takes at most 16 bytes a write: short writes, then ENOSPC.
    const filling = async (path: string, flags: number, mode?: number): Promise<FileHandle> => {
      const handle = await open(path, flags, mode);
      const write = handle.write.bind(handle) as (
        b: Buffer,
        o: number,
        l: number,
      ) => Promise<{ bytesWritten: number; buffer: Buffer }>;
      return Object.assign(Object.create(handle) as FileHandle, {
        write: async (bytes: Buffer, offset: number, length: number) => {
          if (room === 0)
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
              code: 'ENOSPC',
            });
          const n = Math.min(room, length, 16);
          room -= n;
          return write(bytes, offset, n);
        },
        stat: () => handle.stat(),
        read: (...a: Parameters<FileHandle['read']>) => handle.read(...a),
        truncate: (len?: number) => handle.truncate(len),
        close: () => handle.close(),
      });
    };
    const writer = new DirectoryStoreWriter(store, filling);
    const second = '{"repositoryUrl":"https://h/r","timestamp":2,"values":{}}\n';
    // 30 bytes of room: two short writes, then ENOSPC; the 30 bytes are cut off again.
    room = 30;
    await expect(writer.append('h/r.ndjson', [second])).rejects.toThrow('(ENOSPC)');
    expect(readFileSync(join(store, 'h/r.ndjson'), 'utf8')).toBe(FIRST);
    // Room enough: the record goes in four short writes, whole.
    room = 100;
    await writer.append('h/r.ndjson', [second]);
    expect(readFileSync(join(store, 'h/r.ndjson'), 'utf8')).toBe(FIRST + second);
    room = 1000;
    const err = await writer.append('h/r.ndjson', [big(3)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreWriteError);
    expect((err as Error).message).toBe(
      `store ${join(store, 'h/r.ndjson')}: cannot append to (ENOSPC); check that --store names a writable directory on a disk with free space`,
    );
    expect(readFileSync(join(store, 'h/r.ndjson'), 'utf8')).toBe(FIRST + second);
    room = Number.POSITIVE_INFINITY;
    await writer.append('h/r.ndjson', [big(3)]);
    expect(loaderErrors(join(store, 'h/r.ndjson'))).toEqual([]);
    expect(readFileSync(join(store, 'h/r.ndjson'), 'utf8')).toBe(FIRST + second + big(3));
  });

  // Root (CI, this machine) can mount a tmpfs; elsewhere the seam test above covers the short write.
  const mounted = (() => {
    const at = join(dir, 'tmpfs');
    mkdirSync(at);
    return spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', at]).status === 0
      ? at
      : undefined;
  })();

  it.skipIf(mounted === undefined)(
    'on a full 64 KiB tmpfs: the record that does not fit leaves the file as it was, and the store reads whole',
    async () => {
      const at = mounted!;
      try {
        const store = join(at, 'store');
        mkdirSync(join(store, 'h'), { recursive: true });
        writeFileSync(join(store, 'h/r.ndjson'), FIRST);
        // Fill every page left; the record file's own page keeps its slack (about 4 KiB).
        const fd = openSync(join(at, 'filler'), 'w');
        try {
          for (;;) writeSync(fd, Buffer.alloc(4096));
        } catch (err) {
          expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
        } finally {
          closeSync(fd);
        }
        const writer = new DirectoryStoreWriter(store);
        const err = await writer.append('h/r.ndjson', [big(2)]).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StoreWriteError);
        expect((err as Error).message).toContain('(ENOSPC)');
        expect(readFileSync(join(store, 'h/r.ndjson'), 'utf8')).toBe(FIRST);
        // The next scan's append (room made again) and the next build read a whole store.
        spawnSync('rm', [join(at, 'filler')]);
        await writer.append('h/r.ndjson', [big(2)]);
        expect(loaderErrors(join(store, 'h/r.ndjson'))).toEqual([]);
        expect(readFileSync(join(store, 'h/r.ndjson'), 'utf8')).toBe(FIRST + big(2));
      } finally {
        spawnSync('umount', [at]);
      }
    },
  );
});

describe('store files that are not regular files inside the store', () => {
  const dir = tempDir('badgepress-store-refuse-');
  const store = join(dir, 'store');
  mkdirSync(join(store, 'h'), { recursive: true });
  const writer = new DirectoryStoreWriter(store);
  const fix =
    'a scan reads and appends to regular files inside the store only: replace it with the regular file it stands for, or remove it, and scan again';

  it('a FIFO is refused at once, read or appended to (no wait for a writer that never comes)', async () => {
    expect(spawnSync('mkfifo', [join(store, 'h/fifo.ndjson')]).status).toBe(0);
    const read = await writer
      .storedTimes('h/fifo.ndjson', 'https://h/fifo')
      .catch((e: unknown) => e);
    expect(read).toBeInstanceOf(StoreFileRefused);
    expect((read as Error).message).toBe(
      `store ${join(store, 'h/fifo.ndjson')}: is a FIFO (named pipe), not a regular file; ${fix}`,
    );
    const append = await writer.append('h/fifo.ndjson', [FIRST]).catch((e: unknown) => e);
    expect((append as Error).message).toBe(
      `store ${join(store, 'h/fifo.ndjson')}: is a FIFO (named pipe), not a regular file; ${fix}`,
    );
  });

  it('a link at the file, or a folder linked out of the store, is refused; the file outside is untouched', async () => {
    const outside = join(dir, 'outside.ndjson');
    writeFileSync(outside, 'not yours\n');
    symlinkSync(outside, join(store, 'h/linked.ndjson'));
    const read = await writer
      .storedTimes('h/linked.ndjson', 'https://h/linked')
      .catch((e: unknown) => e);
    expect((read as Error).message).toBe(
      `store ${join(store, 'h/linked.ndjson')}: is a symbolic link; ${fix}`,
    );
    const append = await writer.append('h/linked.ndjson', [FIRST]).catch((e: unknown) => e);
    expect(append).toBeInstanceOf(StoreFileRefused);
    mkdirSync(join(dir, 'elsewhere'));
    symlinkSync(join(dir, 'elsewhere'), join(store, 'away'));
    const away = await writer.append('away/r.ndjson', [FIRST]).catch((e: unknown) => e);
    expect((away as Error).message).toBe(
      `store ${join(store, 'away/r.ndjson')}: its folder leads out of the store (to ${join(dir, 'elsewhere')}) through a symbolic link; ${fix}`,
    );
    expect(readFileSync(outside, 'utf8')).toBe('not yours\n');
    expect(spawnSync('ls', [join(dir, 'elsewhere')]).stdout.toString()).toBe('');
  });
});
