// Reads a YAML (or JSON) file and keeps enough of the parse to point an error at file:line.
import {
  LineCounter,
  parseDocument,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  visit,
  type Document,
  type YAMLError,
} from 'yaml';
import { FileReadError, readRegularFile } from '../io/regular-file.ts';
import { ConfigError } from '../errors.ts';

export type PathPart = string | number;

export interface LocatedData {
  file: string;
  data: unknown;
  /** file:line of the node at `path` (or of its nearest existing parent). */
  where(path: PathPart[]): string;
}

export async function readYamlFile(file: string): Promise<LocatedData> {
  let text: string;
  try {
    text = (await readRegularFile(file)).toString('utf8');
  } catch (err) {
    const reason = err instanceof FileReadError ? err.reason : String(err);
    throw new ConfigError([
      (err as FileReadError).code === 'ENOENT'
        ? `${file}: cannot read (ENOENT); check the path`
        : `${file}: ${reason}`,
    ]);
  }
  return parseYamlText(file, text);
}

function parseYamlText(file: string, text: string): LocatedData {
  const lineCounter = new LineCounter();
  // merge: `<<: *anchor` keys, which people write to share settings.
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
    merge: true,
  });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map(
        (e) =>
          `${file}:${lineCounter.linePos(e.pos[0]).line}: ${duplicateKey(doc, lineCounter, e) ?? e.message.split('\n')[0]}`,
      ),
    );
  }
  const where = (path: PathPart[]) => `${file}:${lineOf(doc, lineCounter, path)}`;
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: YAML_MAX_ALIAS_COUNT });
  } catch (err) {
    throw new ConfigError([`${file}:${firstAliasLine(doc, lineCounter)}: ${yamlFailure(err)}`]);
  }
  return { file, data: data ?? {}, where };
}

/**
 * Aliases one document may expand in all (the yaml library's own guard): enough for any real
 * file, refused early for nested aliases that would expand into billions of nodes.
 */
export const YAML_MAX_ALIAS_COUNT = 100;

/** A failure of the yaml library's toJS in words the file's author can act on. */
export function yamlFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/alias count/i.test(message)) {
    return `YAML aliases expand too far (over ${YAML_MAX_ALIAS_COUNT} expansions: nested aliases?); write the values out instead of aliasing them`;
  }
  return `YAML cannot be read: ${message.split('\n')[0]}; check its anchors and aliases`;
}

/**
 * A DUPLICATE_KEY error in words that name the key, its path and both lines (the yaml library
 * says "Map keys must be unique" at the second key only), or undefined for any other error.
 * `init` writes `hosts: {}`, so a `hosts:` block appended below it is the usual second key.
 */
function duplicateKey(doc: Document, lc: LineCounter, e: YAMLError): string | undefined {
  if (e.code !== 'DUPLICATE_KEY') return undefined;
  let found: string | undefined;
  visit(doc, {
    Map(_key, map, ancestors) {
      const at = map.items.findIndex((p) => isScalar(p.key) && p.key.range?.[0] === e.pos[0]);
      if (at < 0) return undefined;
      const second = map.items[at]!;
      const name = (second.key as { value: unknown }).value;
      const first = map.items.find((p, i) => i < at && isScalar(p.key) && p.key.value === name);
      const firstAt = isScalar(first?.key) ? first.key.range?.[0] : undefined;
      if (firstAt === undefined) return visit.BREAK;
      const path: PathPart[] = [];
      const chain = [...ancestors, map];
      chain.forEach((node, i) => {
        if (isPair(node) && isScalar(node.key)) path.push(String(node.key.value));
        else if (isSeq(node)) path.push(node.items.indexOf(chain[i + 1] as never));
      });
      path.push(String(name));
      const lines = `lines ${lc.linePos(firstAt).line} and ${lc.linePos(e.pos[0]).line}`;
      const todo =
        isMap(first?.value) && isMap(second.value)
          ? `merge the two ${String(name)}: entries into one`
          : 'keep one of the two';
      found = `${formatPath(path)}: is given twice (${lines}); ${todo}`;
      return visit.BREAK;
    },
  });
  return found;
}

/** Where a failure of alias expansion starts: the first alias in the document. */
function firstAliasLine(doc: Document, lc: LineCounter): number {
  let line = 1;
  visit(doc, {
    Alias(_key, node) {
      if (node.range) line = lc.linePos(node.range[0]).line;
      return visit.BREAK;
    },
  });
  return line;
}

function lineOf(doc: Document, lc: LineCounter, path: PathPart[]): number {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return lc.linePos(node.range[0]).line;
  }
  return 1;
}

/** `rules[0].thresholds[1].min` — the way a person reads a path into a YAML file. */
export function formatPath(path: PathPart[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out || '(top level)';
}
