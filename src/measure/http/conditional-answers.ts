// Conditional requests (RFC 9110 section 13.1.2): the ETag and body of each answer a
// repository's last scan read, kept in a small file beside its mirror, sent back as
// If-None-Match; a 304 Not Modified hands the caller the stored answer as if it had come again.
// Only on a forge whose adapter says its API answers them (ApiQuirks.conditional), and of a
// body only what the adapter reads (its `kept` shape: a listing page's entries hold the few
// fields discovery reads, not the hundred the forge sends). The file holds URLs, validators,
// headers and those bodies, never a request's headers: no token reaches it.
// The forge measurer (forge/core/measurer.ts) loads and saves a repository's file, discovery
// a source's listing file; the HTTP client (client.ts) asks with them.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** What one GET answered, enough to answer it again: its validator, status, headers and body. */
export interface StoredAnswer {
  etag: string;
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

/** Bytes of stored bodies one repository's file holds at most; answers past it are not kept. */
export const MAX_STORED_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * Bytes of stored bodies one source's listing file holds at most (both listings' bodies are
 * held while it is read): the first pages up to it are kept, those past it asked whole (and
 * counted) the next time. A repository's kept entry is about 190 bytes: 16 MiB holds some
 * 89,000 (docs/performance.md, "Discovery", measures 10,000).
 */
export const MAX_STORED_LISTING_BYTES = 16 * 1024 * 1024;

/**
 * What of a JSON answer a later 304 must hand on: `true` keeps a value whole; an object keeps
 * the fields it names, each by its own shape, of an object or of every object of an array
 * (a field the answer lacks stays absent, a null stays null).
 */
export type KeptShape = true | { readonly [field: string]: KeptShape };

/** `value` with only the fields `shape` names (see KeptShape). */
export function keptPart(value: unknown, shape: KeptShape): unknown {
  if (shape === true || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => keptPart(item, shape));
  const out: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries(shape))
    if (Object.hasOwn(value, field)) out[field] = keptPart((value as Record<string, unknown>)[field], inner);
  return out;
}

/** The file's format version: a file of another is read as none (every list asked afresh). */
const VERSION = 1;

/**
 * Headers an answer is not stored with: hop-by-hop and framing ones, cookies, and the rate
 * limit's (a 304 brings its own).
 */
const NOT_STORED =
  /^(?:set-cookie|content-length|content-encoding|transfer-encoding|connection|keep-alive|date|retry-after|x-ratelimit-.*|ratelimit-.*)$/;

/**
 * One repository's answers: those of its last scan (`previous`, asked with If-None-Match) and
 * those of this one (`kept`, written back by `save`: a list no longer asked is dropped).
 */
export class ConditionalAnswers {
  /** Answers 304 Not Modified this scan. */
  notModified = 0;
  private readonly previous: ReadonlyMap<string, StoredAnswer>;
  private readonly kept = new Map<string, StoredAnswer>();
  private keptBytes = 0;
  private readonly maxBytes: number;

  constructor(previous: ReadonlyMap<string, StoredAnswer> = new Map(), maxBytes = MAX_STORED_ANSWER_BYTES) {
    this.previous = previous;
    this.maxBytes = maxBytes;
  }

  /** The answer the last scan stored for `key`, if any. */
  stored(key: string): StoredAnswer | undefined {
    return this.previous.get(key);
  }

  /** Keeps an answer with an ETag for the next scan, within the byte bound. */
  keep(key: string, etag: string, status: number, headers: Headers, body: string): void {
    const size = Buffer.byteLength(body);
    if (this.kept.has(key) || this.keptBytes + size > this.maxBytes) return;
    const kept: Array<[string, string]> = [];
    headers.forEach((v, k) => {
      if (!NOT_STORED.test(k)) kept.push([k, v]);
    });
    this.kept.set(key, { etag, status, headers: kept, body });
    this.keptBytes += size;
  }

  /**
   * The stored answer to a request answered 304, its headers updated by the 304's own; a
   * stored Link header (kept relative) passes through `absolute` before it is handed on.
   */
  reuse(
    key: string,
    stored: StoredAnswer,
    notModified: Headers,
    absolute: (link: string) => string = (l) => l,
  ): Response {
    this.notModified++;
    const headers = new Headers(stored.headers);
    this.keep(key, notModified.get('etag') ?? stored.etag, stored.status, headers, stored.body);
    const link = headers.get('link');
    if (link !== null) headers.set('link', absolute(link));
    notModified.forEach((v, k) => {
      if (!/^(?:content-length|content-type|content-encoding|transfer-encoding)$/.test(k)) headers.set(k, v);
    });
    return new Response(stored.body, { status: stored.status, headers });
  }

  /** A repository's file: its answers, or none when it is missing, unreadable or of another version. */
  static async load(file: string, maxBytes = MAX_STORED_ANSWER_BYTES): Promise<ConditionalAnswers> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, 'utf8'));
    } catch {
      return new ConditionalAnswers(new Map(), maxBytes);
    }
    const previous = new Map<string, StoredAnswer>();
    const doc = parsed as { version?: unknown; answers?: unknown };
    if (doc?.version === VERSION && doc.answers && typeof doc.answers === 'object') {
      for (const [key, a] of Object.entries(doc.answers as Record<string, StoredAnswer>)) {
        if (
          typeof a?.etag === 'string' &&
          typeof a.status === 'number' &&
          typeof a.body === 'string' &&
          Array.isArray(a.headers)
        )
          previous.set(key, a);
      }
    }
    return new ConditionalAnswers(previous, maxBytes);
  }

  /**
   * Writes this scan's answers (written whole, then renamed: a reader never sees half a file);
   * none kept (a forge that answers no conditional request, or sends no ETag) leaves no file,
   * and removes the last scan's.
   */
  async save(file: string): Promise<void> {
    if (this.kept.size === 0) return rm(file, { force: true });
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ version: VERSION, answers: Object.fromEntries(this.kept) }));
    await rename(tmp, file);
  }
}
