// Escaping for every data-driven string that lands in markup.

const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
// Characters XML 1.0 forbids outright; they are dropped rather than escaped.
const XML_FORBIDDEN =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

// Most strings (ids, dates, numbers, URL-safe keys) need nothing: one test spares two replaces.
const NEEDS_WORK = /[&<>"'\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/;

/** Safe in SVG/HTML/XML text and in double- or single-quoted attributes. */
export function escapeXml(s: string): string {
  if (!NEEDS_WORK.test(s)) return s;
  return s.replace(XML_FORBIDDEN, '').replace(/[&<>"']/g, (c) => XML_ENTITIES[c]!);
}
