// A small grey badge for error answers on .svg routes, so a README shows "maintenance | not
// found" instead of a broken image. Widths are estimated (no font tables in an edge bundle),
// and the markup is kept short: it is bundled into the 10 KB edge scripts.

const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const width = (s: string) => Math.round(s.length * 6.5) + 10;

/** `message` is the resolver's own words (style names among them); only the label comes from the request. */
export function errorBadge(label: string, message: string): string {
  const l = width(label);
  const m = width(message);
  label = escapeXml(label);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${l + m}" height="20" role="img" aria-label="${label}: ${message}"><title>${label}: ${message}</title>` +
    `<rect width="${l}" height="20" fill="#555"/><rect x="${l}" width="${m}" height="20" fill="#9f9f9f"/><g fill="#fff" text-anchor="middle" font-family="Verdana,sans-serif" font-size="11">` +
    `<text x="${l / 2}" y="14">${label}</text><text x="${l + m / 2}" y="14">${message}</text></g></svg>`
  );
}
