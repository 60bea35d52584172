// Turns one store file's bytes into records-to-validate, each with its line number. Pure: the
// store source does the reading. A broken line or element becomes an error item; the rest of
// the file is still returned.
import { LineCounter, parseAllDocuments, isNode, isScalar, isSeq } from 'yaml';
import { YAML_MAX_ALIAS_COUNT, yamlFailure } from '../config/yaml-file.ts';

export type ParsedItem = { line: number; value: unknown } | { line: number; error: string };

const STORE_EXTENSIONS = ['.ndjson', '.jsonl', '.json', '.yaml', '.yml'] as const;

export function isStoreFile(name: string): boolean {
  return STORE_EXTENSIONS.some((ext) => name.endsWith(ext));
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The most bytes one piece of text (an NDJSON line, a whole .json or .yaml file) may hold:
 * V8's longest string, in characters (2^29 - 24); UTF-8 never has fewer bytes than characters,
 * so anything within it decodes.
 */
export const MAX_TEXT_BYTES = 2 ** 29 - 24;
const MAX_TEXT = 'the 512 MiB a JavaScript string can hold';

const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

export function parseStoreFile(name: string, bytes: Uint8Array): ParsedItem[] {
  if (isLineFile(name)) return parseLines(bytes);
  if (bytes.length > MAX_TEXT_BYTES) {
    return [
      {
        line: 1,
        error: `file is ${megabytes(bytes.length)}, more than ${MAX_TEXT}; split it, or write it as NDJSON (one record per line)`,
      },
    ];
  }
  const text = decodeWhole(bytes);
  if (typeof text !== 'string') return [text];
  if (name.endsWith('.json')) return parseJson(text);
  return parseYaml(text);
}

function parseLines(bytes: Uint8Array): ParsedItem[] {
  const items: ParsedItem[] = [];
  let start = 0;
  let line = 1;
  while (start <= bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const i = newline < 0 ? bytes.length : newline;
    const item = parseLine(bytes.subarray(start, i), line);
    if (item) items.push(item);
    start = i + 1;
    line++;
  }
  return items;
}

/** One line of an .ndjson file (without its newline); undefined for a blank line. */
export function parseLine(chunk: Uint8Array, line: number): ParsedItem | undefined {
  if (chunk.length > MAX_TEXT_BYTES) {
    return {
      line,
      error: `line is ${megabytes(chunk.length)} long, more than ${MAX_TEXT}; a record is one line of JSON`,
    };
  }
  let text: string;
  try {
    text = utf8.decode(chunk);
  } catch {
    return { line, error: 'line is not valid UTF-8; re-encode the file as UTF-8' };
  }
  if (text.trim() === '') return undefined;
  try {
    return { line, value: JSON.parse(text) };
  } catch (err) {
    return { line, error: `broken JSON: ${(err as Error).message}` };
  }
}

/** Line-per-record files, which can be read as a stream in bounded memory. */
export function isLineFile(name: string): boolean {
  return name.endsWith('.ndjson') || name.endsWith('.jsonl');
}

function decodeWhole(bytes: Uint8Array): string | ParsedItem {
  try {
    return utf8.decode(bytes);
  } catch {
    // Point at the first line that does not decode.
    let start = 0;
    let line = 1;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== 0x0a) continue;
      try {
        utf8.decode(bytes.subarray(start, i));
      } catch {
        return {
          line,
          error: 'file is not valid UTF-8 (first bad byte on this line); re-encode it as UTF-8',
        };
      }
      start = i + 1;
      line++;
    }
    return { line: 1, error: 'file is not valid UTF-8; re-encode it as UTF-8' };
  }
}

function parseJson(text: string): ParsedItem[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return [
      {
        line: lineOfJsonError(text, err as Error),
        error: `broken JSON: ${(err as Error).message}`,
      },
    ];
  }
  if (!Array.isArray(value)) return [{ line: firstContentLine(text), value }];
  const lines = topLevelElementLines(text);
  return value.map((v, i) => ({ line: lines[i] ?? 1, value: v }));
}

const YAML_ITEMS_CHECKED_ONE_BY_ONE = 1000;

function parseYaml(text: string): ParsedItem[] {
  const lc = new LineCounter();
  const items: ParsedItem[] = [];
  // merge: `<<: *anchor` keys, which people write to share fields between records.
  for (const doc of parseAllDocuments(text, { lineCounter: lc, uniqueKeys: true, merge: true })) {
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      items.push({
        line: lc.linePos(e.pos[0]).line,
        error: `broken YAML: ${e.message.split('\n')[0]!.replace(/:$/, '')}`,
      });
      continue;
    }
    const contents = doc.contents;
    // An empty document (a stray `---`, or only comments) holds no record; an explicit
    // `null` or `~` does hold one, and is refused as not an object.
    if (
      contents === null ||
      (isScalar(contents) && contents.value === null && contents.source === '')
    )
      continue;
    const lineOf = (node: unknown) =>
      isNode(node) && node.range ? lc.linePos(node.range[0]).line : 1;
    // Values come from the document as a whole, so aliases resolve against its anchors.
    const whole = yamlValue(() => doc.toJS({ maxAliasCount: YAML_MAX_ALIAS_COUNT }));
    if (!isSeq(contents)) {
      const line = lineOf(contents);
      items.push('error' in whole ? { line, error: whole.error } : yamlItem(line, whole.value));
      continue;
    }
    // Only when the document fails: find the items at fault, each on its own line (each alone
    // within the same limit), and keep the others. Each item's aliases are looked up across the
    // whole document, so a very long failing list is refused as one rather than item by item.
    if ('error' in whole && contents.items.length > YAML_ITEMS_CHECKED_ONE_BY_ONE) {
      items.push({
        line: lineOf(contents),
        error: `${whole.error}; none of this document's ${contents.items.length} records was read`,
      });
      continue;
    }
    contents.items.forEach((item, i) => {
      const line = lineOf(item);
      if (!('error' in whole)) items.push(yamlItem(line, (whole.value as unknown[])[i]));
      else if (!isNode(item)) items.push({ line, value: item });
      else {
        const one = yamlValue(() => item.toJS(doc, { maxAliasCount: YAML_MAX_ALIAS_COUNT }));
        items.push('error' in one ? { line, error: one.error } : yamlItem(line, one.value));
      }
    });
  }
  return items;
}

function yamlValue(toJS: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: toJS() };
  } catch (err) {
    return { error: yamlFailure(err) };
  }
}

/** A YAML record as an item: an error when it holds a value JSON has no form for. */
function yamlItem(line: number, value: unknown): ParsedItem {
  const foreign = nonJsonPart(value);
  return foreign ? { line, error: foreign } : { line, value };
}

/** YAML tags that build values JSON has no form for, by what the yaml library makes of them. */
const YAML_ONLY: Array<[new (...args: never[]) => object, string]> = [
  [Map, '!!omap (an ordered mapping)'],
  [Set, '!!set'],
  [Date, '!!timestamp'],
  [Uint8Array, '!!binary'],
];

/**
 * Where a YAML value holds something no JSON record can (an ordered map, a set, a date,
 * bytes), said as "values.X: …", or undefined. A record schema check would otherwise see an
 * object and read none of its entries. Iterative, and each object once: documents may nest
 * deeply and aliases share nodes.
 */
function nonJsonPart(root: unknown): string | undefined {
  const seen = new Set<object>();
  const stack: Array<{ v: unknown; path: string }> = [{ v: root, path: '' }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    seen.add(v);
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) {
      const tag =
        YAML_ONLY.find(([type]) => v instanceof type)?.[1] ??
        `value of type ${(v.constructor as { name?: string } | undefined)?.name ?? 'unknown'}`;
      return `${path || 'record'}: a YAML ${tag} is not a value a record may hold; write a plain mapping, list, number or string`;
    }
    for (const [k, child] of Object.entries(v))
      stack.push({
        v: child,
        path: Array.isArray(v) ? `${path}[${k}]` : path ? `${path}.${k}` : k,
      });
  }
  return undefined;
}

function firstContentLine(text: string): number {
  const m = /\S/.exec(text);
  return m ? lineAt(text, m.index) : 1;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function lineOfJsonError(text: string, err: Error): number {
  const m = /position (\d+)/.exec(err.message);
  return m ? lineAt(text, Number(m[1])) : 1;
}

/** Line on which each element of a top-level JSON array starts (the text is valid JSON). */
function topLevelElementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expectElement = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
    if (depth === 1 && expectElement && c !== ']') {
      lines.push(line);
      expectElement = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expectElement = true;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) expectElement = true;
  }
  return lines;
}
