// The build state's text as lines: read from a stream without ever holding a line longer
// than a state can have, and written to a local file with a digest of what was written.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

/**
 * The longest state line read (UTF-16 code units): a line is one repository's, and a longer
 * one is no state this code wrote (V8's strings end near 2^29, where a read would throw).
 */
const MAX_STATE_LINE = 2 ** 28;

/** A state file that is not one this code wrote: why, in words (the caller names the file). */
export class UntrustedStateError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
    this.name = 'UntrustedStateError';
  }
}

/**
 * Lines of a stream of UTF-8 text, without their line ends (\n or \r\n), as the reader asks for
 * them; a line longer than `max` is an UntrustedStateError (it is never joined into a string).
 */
async function* linesOf(
  chunks: AsyncIterable<string | Buffer>,
  max = MAX_STATE_LINE,
): AsyncGenerator<string> {
  let parts: string[] = [];
  let held = 0;
  let lineNo = 1;
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      if (held + nl - from > max)
        throw new UntrustedStateError(
          `line ${lineNo} is longer than ${max} characters: no state line is`,
        );
      parts.push(text.slice(from, nl));
      const line = parts.join('');
      parts = [];
      held = 0;
      lineNo++;
      from = nl + 1;
      yield line.endsWith('\r') ? line.slice(0, -1) : line;
    }
    if (from < text.length) {
      held += text.length - from;
      if (held > max)
        throw new UntrustedStateError(
          `line ${lineNo} is longer than ${max} characters: no state line is`,
        );
      parts.push(text.slice(from));
    }
  }
  if (held > 0) yield parts.join('');
}

/** The stream's lines (see linesOf); the stream is closed when the reader stops, at the end or early. */
export async function* streamLines(
  stream: AsyncIterable<string | Buffer> & { destroy(): void },
  max?: number,
): AsyncGenerator<string> {
  try {
    yield* linesOf(stream, max);
  } finally {
    stream.destroy();
  }
}

/** A digest of a state's text, line by line (each line with its newline). */
export class StateDigest {
  private readonly hash = createHash('sha256');
  add(line: string): void {
    this.hash.update(line);
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}

/** The lines as read (without their ends), each also added to `digest` as it was written. */
export async function* digestedLines(
  lines: AsyncIterable<string>,
  digest: StateDigest,
): AsyncGenerator<string> {
  for await (const line of lines) {
    digest.add(`${line}\n`);
    yield line;
  }
}

/** Writes lines to a local file, waiting for the disk when its buffer is full; returns their digest. */
export async function writeLines(path: string, lines: Iterable<string>): Promise<string> {
  const out = createWriteStream(path);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => {});
  const digest = new StateDigest();
  try {
    for (const line of lines) {
      digest.add(line);
      if (!out.write(line)) await Promise.race([once(out, 'drain'), failed]);
    }
  } catch (err) {
    // A line that could not be made (or written) leaves no open descriptor behind. The file's
    // open may still be pending: wait for the close, so the caller's cleanup comes after it
    // (else a late open creates the file after its removal).
    // A stream that failed by itself has closed already (error and close come in one tick).
    const closed = out.closed ? undefined : new Promise((ok) => out.once('close', ok));
    out.destroy();
    await closed;
    throw err;
  }
  out.end();
  await Promise.race([finished(out), failed]);
  return digest.digest();
}
