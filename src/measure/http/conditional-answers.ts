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

/**
 * What an adapter drew from answers of the last scan and keeps instead of them (a value in
 * JSON's terms, by key): on a forge whose API answers no conditional request, an unchanged
 * issue's reaction findings (forge/core/issue-findings.ts) spare its per-issue lists.
 */
export interface KeptFindings {
  /** The finding the last scan kept under `key`, if any (unchecked: the reader checks its shape). */
  finding(key: string): unknown;
  /** Keeps a finding for the next scan, within the file's byte bound. */
  keepFinding(key: string, value: unknown): void;
}

/** What one GET answered, enough to answer it again: its validator, status, headers and body. */
interface StoredAnswer {
  etag: string;
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

/** Bytes of stored bodies one repository's file holds at most; answers past it are not kept. */
const MAX_STORED_ANSWER_BYTES = 8 * 1024 * 1024;

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
    if (Object.hasOwn(value, field))
      out[field] = keptPart((value as Record<string, unknown>)[field], inner);
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
export class ConditionalAnswers implements KeptFindings {
  /** Answers 304 Not Modified this scan. */
  notModified = 0;
  private readonly previous: ReadonlyMap<string, StoredAnswer>;
  private readonly kept = new Map<string, StoredAnswer>();
  private readonly previousFindings: ReadonlyMap<string, unknown>;
  private readonly keptFindings = new Map<string, unknown>();
  /** Bytes of bodies and findings kept this scan (one bound for both). */
  private keptBytes = 0;
  private readonly maxBytes: number;

  constructor(
    previous: ReadonlyMap<string, StoredAnswer> = new Map(),
    maxBytes = MAX_STORED_ANSWER_BYTES,
    previousFindings: ReadonlyMap<string, unknown> = new Map(),
  ) {
    this.previous = previous;
    this.maxBytes = maxBytes;
    this.previousFindings = previousFindings;
  }

  finding(key: string): unknown {
    return this.previousFindings.get(key);
  }

  keepFinding(key: string, value: unknown): void {
    const size = Buffer.byteLength(key) + Buffer.byteLength(JSON.stringify(value));
    if (this.keptFindings.has(key) || this.keptBytes + size > this.maxBytes) return;
    this.keptFindings.set(key, value);
    this.keptBytes += size;
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
      if (!/^(?:content-length|content-type|content-encoding|transfer-encoding)$/.test(k))
        headers.set(k, v);
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
    const findings = new Map<string, unknown>();
    const doc = parsed as { version?: unknown; answers?: unknown; findings?: unknown };
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
      if (doc.findings && typeof doc.findings === 'object' && !Array.isArray(doc.findings))
        for (const [key, f] of Object.entries(doc.findings)) findings.set(key, f);
    }
    return new ConditionalAnswers(previous, maxBytes, findings);
  }

  /**
   * Writes this scan's answers and findings (written whole, then renamed: a reader never sees
   * half a file); none kept (no ETag, no finding) leaves no file, and removes the last scan's.
   */
  async save(file: string): Promise<void> {
    if (this.kept.size === 0 && this.keptFindings.size === 0) return rm(file, { force: true });
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    const findings =
      this.keptFindings.size > 0 ? { findings: Object.fromEntries(this.keptFindings) } : {};
    await writeFile(
      tmp,
      JSON.stringify({ version: VERSION, answers: Object.fromEntries(this.kept), ...findings }),
    );
    await rename(tmp, file);
  }
}
