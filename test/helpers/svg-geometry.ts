// The parts of a badge SVG a reader sees, to compare two renderings of the same badge.
import { expect } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

type Node = Record<string, unknown>;
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  preserveOrder: true,
  parseTagValue: false,
  trimValues: false,
});

interface Geometry {
  width: number;
  height: number;
  ariaLabel: string;
  title: string;
  rects: string[];
  texts: string[];
}

const num = (v: unknown) => (v === undefined ? 0 : Number(v));

/** What a reader sees: texts outside aria-hidden subtrees, and rectangles filled with a colour. */
export function geometry(svg: string): Geometry {
  expect(XMLValidator.validate(svg)).toBe(true);
  const doc = parser.parse(svg) as Node[];
  const root = doc.find((n) => 'svg' in n)!;
  const attrs = (n: Node) => (n[':@'] ?? {}) as Record<string, string>;
  const g: Geometry = {
    width: num(attrs(root).width),
    height: num(attrs(root).height),
    ariaLabel: attrs(root)['aria-label']!,
    title: '',
    rects: [],
    texts: [],
  };
  const textOf = (children: Node[]): string =>
    children.map((c) => (typeof c['#text'] === 'string' ? c['#text'] : '')).join('');
  const walk = (nodes: Node[], hidden: boolean, fill: string | undefined) => {
    for (const n of nodes) {
      const tag = Object.keys(n).find((k) => k !== ':@')!;
      if (tag === 'clipPath') continue; // a mask, not a picture
      const a = attrs(n);
      const isHidden = hidden || a['aria-hidden'] === 'true';
      const f = a.fill ?? fill;
      if (tag === 'title') g.title = textOf(n[tag] as Node[]);
      if (tag === 'rect' && a.fill && /^#/.test(a.fill))
        g.rects.push(`x=${num(a.x)} w=${num(a.width)} h=${num(a.height)} fill=${a.fill}`);
      if (tag === 'text' && !isHidden)
        g.texts.push(
          `x=${num(a.x)} y=${num(a.y)} len=${num(a.textLength)} fill=${f} "${textOf(n[tag] as Node[])}"`,
        );
      if (Array.isArray(n[tag])) walk(n[tag] as Node[], isHidden, f);
    }
  };
  walk(root.svg as Node[], false, undefined);
  return g;
}
