// Where a build's files go. A directory and an S3 prefix implement the same small interface;
// the publisher above it owns ordering and concurrency.
import { counted } from '../model/plural.ts';
import type { PublishFile } from '../model/publish-file.ts';
import type { LeaseSlot } from '../io/lease.ts';
import { BadgepressError, EXIT, type FailureReport } from '../errors.ts';

export type PutOutcome = 'written' | 'unchanged';

/** How a sink's stored bytes at a file's key compare with the file's body. */
export type Comparison = 'absent' | 'same' | 'different';

export interface Sink {
  /** Human-readable location, e.g. the directory or s3://bucket/prefix. */
  readonly location: string;
  /** Store one file; 'unchanged' when the stored bytes were already identical. */
  put(file: PublishFile): Promise<PutOutcome>;
  /** Every key under `prefix` (a repository's `api/v1/repositories/<enc>/`). */
  list(prefix: string): Promise<string[]>;
  /**
   * The names one level below `prefix` that hold keys (a directory's subdirectories, S3's
   * common prefixes), e.g. each `<enc>` under `api/v1/repositories/`; cheaper than list().
   */
  children?(prefix: string): Promise<string[]>;
  /** Delete exactly these keys. */
  remove(keys: string[]): Promise<void>;
  /**
   * Remove empty directories below `prefix` (a build killed after making a directory but
   * before writing into it leaves one). Outputs without directories (S3) leave it out.
   */
  removeEmptyDirectories?(prefix: string): Promise<void>;
  /**
   * Whether the stored bytes equal the file's body, fetching nothing when the sink can tell
   * (S3: the listed ETag against the body's MD5). put skips on 'same'; plan reads only
   * 'different' files whose old content it needs.
   */
  compare(file: PublishFile): Promise<Comparison>;
  /** The stored bytes of a key, or undefined when absent. */
  read(key: string): Promise<Uint8Array | undefined>;
  /** The object at `key` (below .badgepress/) as a lease: one build at a time writes an output. */
  leaseSlot(key: string): LeaseSlot;
  /**
   * Few repositories will be published (an incremental build): list each repository's keys
   * when it is first touched instead of the whole site (S3; a directory needs no listing).
   */
  narrowListing?(): void;
  /**
   * From now on put sends every file, also one whose stored bytes are the same: the headers
   * stored with it (S3 keeps each PUT's Cache-Control) may be old. A directory stores none.
   */
  resendUnchanged?(): void;
  /** Flush and release resources. */
  close(): Promise<void>;
}

/** One reason a set of keys did not make it, e.g. "AccessDenied: Access Denied". */
interface PublishFailure {
  reason: string;
  keys: string[];
}

/** How many keys `keyLines` shows before "… and N more". */
export const SHOWN_KEYS = 20;
/** How many distinct reasons the message spells out. */
const SHOWN_REASONS = 5;

/**
 * Keys that did not make it to the store, grouped by why; a re-run of the build finishes the
 * job. The message carries every distinct reason (the store's error code and text), so a
 * refused credential or an altered body is named rather than lost among retries.
 */
export class PublishError extends BadgepressError {
  readonly exitCode: number = EXIT.publish;
  readonly failures: PublishFailure[];
  readonly keys: string[];

  constructor(keys: string[], reason: string);
  constructor(failures: PublishFailure[]);
  constructor(keysOrFailures: string[] | PublishFailure[], reason?: string) {
    const failures = mergeFailures(
      reason === undefined
        ? (keysOrFailures as PublishFailure[])
        : [{ reason, keys: keysOrFailures as string[] }],
    );
    const keys = failures.flatMap((f) => f.keys);
    const reasons = failures
      .slice(0, SHOWN_REASONS)
      .map((f) => `${f.reason} (${counted(f.keys.length, 'key', 'keys')})`);
    if (failures.length > SHOWN_REASONS)
      reasons.push(
        `and ${counted(failures.length - SHOWN_REASONS, 'other reason', 'other reasons')}`,
      );
    super(`${counted(keys.length, 'key', 'keys')} not published: ${reasons.join('; ')}`);
    this.name = 'PublishError';
    this.failures = failures;
    this.keys = keys;
  }

  /** Several errors (e.g. one per repository) as one, reasons merged. */
  static combine(errors: PublishError[]): PublishError {
    return new PublishError(errors.flatMap((e) => e.failures));
  }

  override report(): FailureReport {
    const text = `${this.message}\n${this.keyLines().join('\n')}\nrun the same build again to finish; nothing already published is sent twice`;
    return {
      error: this.message,
      text,
      details: {
        notPublishedCount: this.keys.length,
        notPublished: this.keys.slice(0, SHOWN_KEYS),
      },
    };
  }

  /** "  not published: <key> (<reason>)" for the first `shown` keys, then "  … and N more". */
  keyLines(shown = SHOWN_KEYS): string[] {
    const lines: string[] = [];
    for (const f of this.failures) {
      for (const key of f.keys) {
        if (lines.length === shown) return [...lines, `  … and ${this.keys.length - shown} more`];
        lines.push(`  not published: ${key} (${f.reason})`);
      }
    }
    return lines;
  }
}

function mergeFailures(failures: PublishFailure[]): PublishFailure[] {
  const byReason = new Map<string, string[]>();
  for (const f of failures) {
    const keys = byReason.get(f.reason);
    if (keys) keys.push(...f.keys);
    else byReason.set(f.reason, [...f.keys]);
  }
  return [...byReason].map(([reason, keys]) => ({ reason, keys }));
}
