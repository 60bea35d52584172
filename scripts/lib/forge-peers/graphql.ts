// A small GraphQL executor for the GitHub stand-in: parses a query document (one operation,
// fields with arguments, variables, inline fragments) and resolves it against plain objects
// whose fields are values or functions of their arguments, as GitHub's GraphQL API answers:
// `{ data }`, or `{ data, errors }` naming a field the object lacks. Its cost is GitHub's
// documented score: every connection's requests (the product of its ancestors' `first`/`last`)
// summed, divided by 100, rounded, at least 1 (GraphQL API rate limits, "Calculating a rate
// limit score"). What a query may ask is checked against the published schema elsewhere
// (test/forge-github-graphql-schema.test.ts).

type Value =
  | string
  | number
  | boolean
  | null
  | Value[]
  | { [k: string]: Value }
  | { variable: string };
export interface Field {
  name: string;
  args: Record<string, Value>;
  selection?: Selection[];
}
export interface Fragment {
  on: string;
  selection: Selection[];
}
export type Selection = Field | Fragment;

export interface Operation {
  selection: Selection[];
}

function tokens(source: string): string[] {
  const out: string[] = [];
  const re =
    /\s+|,|#[^\n]*|(\.\.\.|[{}()[\]:!$=@]|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*)/y;
  for (let at = 0; at < source.length; at = re.lastIndex) {
    re.lastIndex = at;
    const m = re.exec(source);
    if (m === null) throw new Error(`unreadable query at character ${at}`);
    if (m[1] !== undefined) out.push(m[1]);
  }
  return out;
}

/** The document's one operation (a query, named or not, or a bare selection set). */
export function parse(source: string): Operation {
  const t = tokens(source);
  let i = 0;
  const peek = () => t[i];
  const take = (want?: string) => {
    const tok = t[i++];
    if (tok === undefined || (want !== undefined && tok !== want))
      throw new Error(`expected ${want ?? 'a token'}, found ${tok ?? 'the end'}`);
    return tok;
  };
  const value = (): Value => {
    const tok = take();
    if (tok === '$') return { variable: take() };
    if (tok === '[') {
      const list: Value[] = [];
      while (peek() !== ']') list.push(value());
      take(']');
      return list;
    }
    if (tok === '{') {
      const obj: Record<string, Value> = {};
      while (peek() !== '}') {
        const k = take();
        take(':');
        obj[k] = value();
      }
      take('}');
      return obj;
    }
    if (tok.startsWith('"')) return JSON.parse(tok) as string;
    if (/^-?\d/.test(tok)) return Number(tok);
    if (tok === 'true' || tok === 'false') return tok === 'true';
    if (tok === 'null') return null;
    return tok; // an enum value
  };
  const selectionSet = (): Selection[] => {
    take('{');
    const out: Selection[] = [];
    while (peek() !== '}') {
      if (peek() === '...') {
        take('...');
        take('on');
        const on = take();
        out.push({ on, selection: selectionSet() });
        continue;
      }
      const name = take();
      const args: Record<string, Value> = {};
      if (peek() === '(') {
        take('(');
        while (peek() !== ')') {
          const k = take();
          take(':');
          args[k] = value();
        }
        take(')');
      }
      out.push({ name, args, selection: peek() === '{' ? selectionSet() : undefined });
    }
    take('}');
    return out;
  };
  if (peek() === 'query') {
    take('query');
    if (peek() !== '(' && peek() !== '{') take();
    if (peek() === '(') {
      // Variable definitions: $name: Type[!], read past (values come with the request).
      let depth = 0;
      do {
        const tok = take();
        if (tok === '(') depth++;
        if (tok === ')') depth--;
      } while (depth > 0);
    }
  }
  const selection = selectionSet();
  if (i !== t.length) throw new Error('more than one operation');
  return { selection };
}

function resolveValue(v: Value, variables: Record<string, unknown>): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v) && 'variable' in v)
    return variables[v.variable as string] ?? null;
  if (Array.isArray(v)) return v.map((x) => resolveValue(x, variables));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveValue(x, variables)]));
  return v;
}

/** An object the executor resolves: its `__typename` and fields, a function taking the field's arguments. */
export type GqlObject = { __typename: string } & Record<string, unknown>;

/** The answer GitHub gives: data, and errors for each field the object does not have. */
export function execute(
  op: Operation,
  root: GqlObject,
  variables: Record<string, unknown>,
): { data: unknown; errors?: Array<{ message: string }> } {
  const errors: Array<{ message: string }> = [];
  const resolve = (obj: unknown, selection: Selection[]): unknown => {
    if (obj === null || obj === undefined) return null;
    if (Array.isArray(obj)) return obj.map((x) => resolve(x, selection));
    const o = obj as GqlObject;
    const out: Record<string, unknown> = {};
    for (const s of selection) {
      if ('on' in s) {
        if (o.__typename === s.on) Object.assign(out, resolve(o, s.selection));
        continue;
      }
      if (!(s.name in o)) {
        errors.push({ message: `Field '${s.name}' doesn't exist on type '${o.__typename}'` });
        continue;
      }
      const field = o[s.name];
      const args = Object.fromEntries(
        Object.entries(s.args).map(([k, v]) => [k, resolveValue(v, variables)]),
      );
      const value =
        typeof field === 'function'
          ? (field as (a: Record<string, unknown>) => unknown)(args)
          : field;
      out[s.name] = s.selection ? resolve(value, s.selection) : value;
    }
    return out;
  };
  const data = resolve(root, op.selection);
  return errors.length > 0 ? { data: null, errors } : { data };
}

/** GitHub's score for a query: connections' requests summed, over 100, rounded, at least 1. */
export function cost(op: Operation, variables: Record<string, unknown>): number {
  let requests = 0;
  const walk = (selection: Selection[], multiplier: number) => {
    for (const s of selection) {
      if ('on' in s) {
        walk(s.selection, multiplier);
        continue;
      }
      const size = resolveValue(s.args.first ?? s.args.last ?? null, variables);
      if (typeof size === 'number') {
        requests += multiplier;
        if (s.selection) walk(s.selection, multiplier * size);
      } else if (s.selection) walk(s.selection, multiplier);
    }
  };
  walk(op.selection, 1);
  return Math.max(1, Math.round(requests / 100));
}
