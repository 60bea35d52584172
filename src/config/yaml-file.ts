// Reads a YAML (or JSON) file and keeps enough of the parse to point an error at file:line.
import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';

export type PathPart = string | number;

export interface LocatedData {
  file: string;
  data: unknown;
  /** file:line of the node at `path` (or of its nearest existing parent). */
  where(path: PathPart[]): string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

export async function readYamlFile(file: string): Promise<LocatedData> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)}); check the path`]);
  }
  return parseYamlText(file, text);
}

export function parseYamlText(file: string, text: string): LocatedData {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => `${file}:${lineCounter.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`),
    );
  }
  const where = (path: PathPart[]) => `${file}:${lineOf(doc, lineCounter, path)}`;
  return { file, data: doc.toJS() ?? {}, where };
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
