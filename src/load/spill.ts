// Bounded memory for store files larger than memory should hold: a line-per-record
// file is streamed once, each line written to one of B bucket files on disk by its
// repository's hash, and repositories are then built bucket by bucket. Memory follows the
// largest bucket (a few MB of records), not the file.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseLine, type ParsedItem } from './parse-file.ts';
import { canonicalRepositoryUrl } from '../model/repository-url.ts';
import { shardOf } from '../model/shard.ts';
import type { StoreSource } from './store.ts';
import { onTemporaryFile } from '../io/temp-file.ts';

/** Line files above this size are streamed and spilled rather than read whole. */
export const SPILL_FILE_BYTES = 64 * 1024 * 1024;
/** Other files (JSON, YAML: parsed as a whole) above this size are refused as too large. */
export const WHOLE_FILE_LIMIT = 512 * 1024 * 1024;
/** Bytes of records per bucket, and so roughly what one bucket holds in memory when built. */
const BUCKET_BYTES = 4 * 1024 * 1024;
/** One line longer than this is a bad record, not a reason to hold it. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
const FLUSH_BYTES = 64 * 1024;

export function bucketCount(largestFileBytes: number, spillAboveBytes = SPILL_FILE_BYTES): number {
  // Small thresholds (tests) still spread a file over several buckets.
  return Math.max(2, Math.ceil(largestFileBytes / Math.min(BUCKET_BYTES, spillAboveBytes / 4)));
}

/**
 * Which bucket a repository's records go to. The shard hash's bits are mixed first (murmur3's
 * finaliser): FNV-1a's low bits depend only on the low bits before any suffix, so a salted or
 * bare FNV hash modulo an even bucket count would put one shard's repositories (--shard i/4)
 * in a few buckets only, and memory would follow the whole file.
 */
export function bucketOf(repositoryUrl: string, buckets: number): number {
  let h = shardOf(repositoryUrl, 0x1_0000_0000);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) % buckets;
}

export class Spill {
  private readonly dir = onTemporaryFile(join(tmpdir(), 'badgepress-spill-XXXXXX'), () =>
    mkdtempSync(join(tmpdir(), 'badgepress-spill-')),
  );

  readonly buckets: number;
  constructor(buckets: number) {
    this.buckets = buckets;
  }

  private path(file: number, bucket: number): string {
    return join(this.dir, `${file}-${bucket}`);
  }

  /**
   * Streams one line file into buckets; `onRepository` hears every valid repository URL.
   * Returns the version read (throws StoreFileChangedError when the file changed meanwhile).
   */
  async spill(
    source: StoreSource,
    name: string,
    file: number,
    onRepository: (url: string) => void,
  ): Promise<string> {
    const pending: Buffer[][] = Array.from({ length: this.buckets }, () => []);
    const pendingBytes = new Array<number>(this.buckets).fill(0);
    const flush = (b: number) => {
      if (pending[b]!.length === 0) return;
      const path = this.path(file, b);
      onTemporaryFile(path, () => appendFileSync(path, Buffer.concat(pending[b]!)));
      pending[b] = [];
      pendingBytes[b] = 0;
    };
    const put = (b: number, line: number, body: Buffer) => {
      const rec = Buffer.concat([Buffer.from(`${line}\t`), body, Buffer.from('\n')]);
      pending[b]!.push(rec);
      pendingBytes[b]! += rec.length;
      if (pendingBytes[b]! >= FLUSH_BYTES) flush(b);
    };
    const take = (bytes: Buffer, line: number) => {
      const item = parseLine(bytes, line);
      if (!item) return;
      if ('error' in item) return put(0, line, Buffer.from(`!${item.error}`));
      const url = canonicalRepositoryUrl(
        (item.value as { repositoryUrl?: unknown } | null)?.repositoryUrl,
      );
      if (url.ok) onRepository(url.url);
      put(url.ok ? bucketOf(url.url, this.buckets) : 0, line, bytes);
    };
    const stream = await source.readStream(name);
    const overlongError = `!line longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB; split the record or shorten its evidence`;
    // The line still open at a chunk's end, as the chunks' pieces: joined once when its newline
    // comes, so a long line costs one copy, not one per chunk.
    let open: Buffer[] = [];
    let openBytes = 0;
    let line = 1;
    let overlong = false;
    for await (const chunk of stream.chunks) {
      const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let start = 0;
      for (let nl = buf.indexOf(0x0a); nl >= 0; nl = buf.indexOf(0x0a, start)) {
        if (overlong) put(0, line, Buffer.from(overlongError));
        else
          take(
            openBytes > 0
              ? Buffer.concat([...open, buf.subarray(start, nl)])
              : buf.subarray(start, nl),
            line,
          );
        open = [];
        openBytes = 0;
        overlong = false;
        start = nl + 1;
        line++;
      }
      if (start < buf.length && !overlong) {
        open.push(buf.subarray(start));
        openBytes += buf.length - start;
        if (openBytes > MAX_LINE_BYTES) {
          overlong = true;
          open = [];
          openBytes = 0;
        }
      }
    }
    if (overlong) put(0, line, Buffer.from(overlongError));
    else if (openBytes > 0) take(Buffer.concat(open), line);
    for (let b = 0; b < this.buckets; b++) flush(b);
    return stream.version();
  }

  /** The records of one file in one bucket, in file order. */
  items(file: number, bucket: number): ParsedItem[] {
    const path = this.path(file, bucket);
    if (!existsSync(path)) return [];
    const text = readFileSync(path, 'utf8');
    const items: ParsedItem[] = [];
    for (let start = 0; start < text.length; ) {
      const end = text.indexOf('\n', start);
      const tab = text.indexOf('\t', start);
      const line = Number(text.slice(start, tab));
      const body = text.slice(tab + 1, end);
      items.push(
        body.startsWith('!') ? { line, error: body.slice(1) } : { line, value: JSON.parse(body) },
      );
      start = end + 1;
    }
    rmSync(path, { force: true });
    return items;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
