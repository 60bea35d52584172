// A small grey badge for error answers on .svg routes, so a README shows "maintenance | not
// found" instead of a broken image. Widths are estimated (no font tables in an edge bundle).

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const width = (s: string) => Math.round(s.length * 6.5) + 10;

export function errorBadge(label: string, message: string): string {
  const l = width(label);
  const m = width(message);
  const text = escape(`${label}: ${message}`);
  const rect = (x: number, w: number, fill: string) => `<rect x="${x}" width="${w}" height="20" fill="${fill}"/>`;
  const t = (x: number, s: string) => `<text x="${x}" y="14">${escape(s)}</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${l + m}" height="20" role="img" aria-label="${text}"><title>${text}</title>` +
    `${rect(0, l, '#555')}${rect(l, m, '#9f9f9f')}<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">` +
    `${t(l / 2, label)}${t(l + m / 2, message)}</g></svg>`
  );
}
