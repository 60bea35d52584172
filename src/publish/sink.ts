// Where a build's files go. A directory and an S3 prefix implement the same small interface;
// the publisher above it owns ordering and concurrency.
import type { OutputFile } from '../render/site-files.ts';

export type PutOutcome = 'written' | 'unchanged';

export interface Sink {
  /** Human-readable location, e.g. the directory or s3://bucket/prefix. */
  readonly location: string;
  /** Store one file; 'unchanged' when the stored bytes were already identical. */
  put(file: OutputFile): Promise<PutOutcome>;
  /** Every key under `prefix` (a repository's `api/v1/repositories/<enc>/`). */
  list(prefix: string): Promise<string[]>;
  /** Delete exactly these keys. */
  remove(keys: string[]): Promise<void>;
  /** The stored bytes of a key, or undefined when absent. */
  read(key: string): Promise<Uint8Array | undefined>;
  /** Flush and release resources. */
  close(): Promise<void>;
}

/** Keys that did not make it to the store; a re-run of the build finishes the job. */
export class PublishError extends Error {
  constructor(
    readonly keys: string[],
    reason: string,
  ) {
    super(`${keys.length} key(s) not published (${reason}): ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}`);
    this.name = 'PublishError';
  }
}
