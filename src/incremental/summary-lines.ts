// The repositories' summary lines a build keeps for the site-wide pages, built or carried over
// from the build state, held in a local temporary file with only their places in memory.
import {
  closeSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTemporaryFile } from '../io/temp-file.ts';
import { byCodeUnits, type SortedSummaries, type SummaryLine } from '../render/pages/summary.ts';

/**
 * Summary lines kept in a local temporary file, memory holding only where each line is (the
 * lines grow with the site, their places stay small: docs/performance.md, "Memory at 10,000
 * and 100,000 repositories"). The file is unlinked as
 * soon as it is open where the system allows (a killed build leaves nothing behind).
 */
export class SummaryFile {
  private fd: number | undefined;
  /** For messages: the file is unlinked once open. */
  private path = '';
  private leftover: string | undefined;
  private end = 0;
  private readonly offsets: number[] = [];
  private readonly lengths: number[] = [];

  /** Opened at the first line: a build without pages makes no file. */
  private open(): number {
    if (this.fd !== undefined) return this.fd;
    const dir = onTemporaryFile(join(tmpdir(), 'badgepress-summaries-XXXXXX'), () =>
      mkdtempSync(join(tmpdir(), 'badgepress-summaries-')),
    );
    const path = join(dir, 'lines');
    this.path = path;
    this.fd = onTemporaryFile(path, () => openSync(path, 'w+'));
    try {
      unlinkSync(path);
      rmdirSync(dir);
    } catch {
      // Windows: an open file cannot be unlinked; close() removes it.
      this.leftover = dir;
    }
    return this.fd;
  }

  /** Appends a line; its slot reads it back. */
  append(line: string): number {
    const bytes = Buffer.from(line, 'utf8');
    const fd = this.open();
    onTemporaryFile(this.path, () => writeSync(fd, bytes, 0, bytes.length, this.end));
    this.offsets.push(this.end);
    this.lengths.push(bytes.length);
    this.end += bytes.length;
    return this.offsets.length - 1;
  }

  line(slot: number): string {
    const bytes = Buffer.allocUnsafe(this.lengths[slot]!);
    readSync(this.fd!, bytes, 0, bytes.length, this.offsets[slot]!);
    return bytes.toString('utf8');
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    if (this.leftover) rmSync(this.leftover, { recursive: true, force: true });
  }
}

/** Summary lines by repository URL, kept in a SummaryFile (several may share one file). */
export class SummaryLines implements Iterable<[string, SummaryLine]> {
  private readonly slots = new Map<string, number>();
  readonly file: SummaryFile;
  constructor(file: SummaryFile = new SummaryFile()) {
    this.file = file;
  }

  set(url: string, line: SummaryLine): void {
    this.slots.set(url, this.file.append(line));
  }

  /** The line another SummaryLines of the same file holds for the URL (nothing is copied). */
  adopt(url: string, from: SummaryLines): void {
    const slot = from.slots.get(url);
    if (slot !== undefined && from.file === this.file) this.slots.set(url, slot);
    else if (slot !== undefined) this.set(url, from.file.line(slot));
  }

  has(url: string): boolean {
    return this.slots.has(url);
  }

  get(url: string): SummaryLine | undefined {
    const slot = this.slots.get(url);
    return slot === undefined ? undefined : this.file.line(slot);
  }

  get size(): number {
    return this.slots.size;
  }

  *[Symbol.iterator](): Iterator<[string, SummaryLine]> {
    for (const [url, slot] of this.slots) yield [url, this.file.line(slot)];
  }

  /** The URLs sorted, each line read from the file only when the pages reach it. */
  sorted(): SortedSummaries {
    const urls = [...this.slots.keys()].sort(byCodeUnits);
    const summaries = this;
    return {
      urls,
      *lines() {
        for (const u of urls) yield summaries.get(u)!;
      },
    };
  }
}
