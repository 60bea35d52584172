// History charts drawn at build time as inline SVG: no script, no colour needed to read them
// (statuses and bands are labelled in text), and a text alternative (<title>, <desc>) each.
import { esc, isoDate } from './html.ts';

const W = 640;
const H = 180;
const LEFT = 64;
const RIGHT = 72;
const TOP = 12;
const BOTTOM = 28;

export interface ChartFrame {
  /** Unique within the page, for aria-labelledby. */
  id: string;
  title: string;
  /** The text alternative: what the chart shows, in words. */
  desc: string;
}

function xScale(times: number[]): (t: number) => number {
  const lo = times[0] ?? 0;
  const hi = times[times.length - 1] ?? 0;
  const span = hi - lo;
  return (t) => (span === 0 ? LEFT + (W - LEFT - RIGHT) / 2 : LEFT + ((t - lo) / span) * (W - LEFT - RIGHT));
}

function frame(f: ChartFrame, inner: string): string {
  return (
    `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-labelledby="${f.id}-t ${f.id}-d">` +
    `<title id="${f.id}-t">${esc(f.title)}</title><desc id="${f.id}-d">${esc(f.desc)}</desc>${inner}</svg>`
  );
}

function timeAxis(times: number[], x: (t: number) => number): string {
  const shown = times.length <= 1 ? times : times.length === 2 ? times : [times[0]!, times[Math.floor(times.length / 2)]!, times[times.length - 1]!];
  const labels = shown.map((t, i) => {
    const anchor = shown.length > 1 && i === 0 ? 'start' : shown.length > 1 && i === shown.length - 1 ? 'end' : 'middle';
    return `<text x="${r(x(t))}" y="${H - 8}" text-anchor="${anchor}">${isoDate(t)}</text>`;
  });
  return `<line class="axis" x1="${LEFT}" y1="${H - BOTTOM}" x2="${W - RIGHT}" y2="${H - BOTTOM}"/>${labels.join('')}`;
}

function r(n: number): string {
  return String(Math.round(n * 10) / 10);
}

function series(points: Array<[number, number]>): string {
  if (points.length === 0) return '';
  const line = points.length > 1 ? `<polyline class="series" points="${points.map(([a, b]) => `${r(a)},${r(b)}`).join(' ')}"/>` : '';
  return line + points.map(([a, b]) => `<circle class="point" cx="${r(a)}" cy="${r(b)}" r="3.5"/>`).join('');
}

/** Status over scan times: one labelled row per status, lowest at the bottom; a step line. */
export function statusChart(f: ChartFrame, levels: readonly string[], points: ReadonlyArray<{ t: number; status: string }>): string {
  const times = points.map((p) => p.t);
  const x = xScale(times);
  const step = (H - TOP - BOTTOM) / Math.max(1, levels.length);
  const y = (status: string) => {
    const i = Math.max(0, levels.indexOf(status));
    return H - BOTTOM - step * (i + 0.5);
  };
  const rows = levels
    .map((l) => `<line class="grid" x1="${LEFT}" y1="${r(y(l))}" x2="${W - RIGHT}" y2="${r(y(l))}"/><text x="${LEFT - 6}" y="${r(y(l) + 4)}" text-anchor="end">${esc(l)}</text>`)
    .join('');
  const stepped: Array<[number, number]> = [];
  points.forEach((p, i) => {
    if (i > 0) stepped.push([x(p.t), y(points[i - 1]!.status)]);
    stepped.push([x(p.t), y(p.status)]);
  });
  const line = stepped.length > 1 ? `<polyline class="series" points="${stepped.map(([a, b]) => `${r(a)},${r(b)}`).join(' ')}"/>` : '';
  const dots = points.map((p) => `<circle class="point" cx="${r(x(p.t))}" cy="${r(y(p.status))}" r="3.5"/>`).join('');
  return frame(f, rows + timeAxis(times, x) + line + dots);
}

export interface ChartBand {
  min: number;
  /** null: unbounded above. */
  max: number | null;
  label: string;
  /** A CSS class suffix: gold, silver, bronze, fail, pass. */
  kind: string;
}

/** Value over scan times with the bands behind it; bands are labelled at the right edge. */
export function valueChart(f: ChartFrame, bands: readonly ChartBand[], points: ReadonlyArray<{ t: number; value: number | null }>): string {
  const known = points.filter((p): p is { t: number; value: number } => p.value !== null);
  const times = points.map((p) => p.t);
  const x = xScale(times);
  const bounds = bands.flatMap((b) => (b.max === null ? [b.min] : [b.min, b.max + 1]));
  const top = Math.max(1, ...known.map((p) => p.value), ...bounds) * 1.15;
  const y = (v: number) => H - BOTTOM - (Math.min(v, top) / top) * (H - TOP - BOTTOM);
  const rects = bands
    .map((b) => {
      const y1 = y(b.max === null ? top : b.max + 1);
      const y0 = y(b.min);
      const h = Math.max(0, y0 - y1);
      const label = h >= 12 ? `<text x="${W - RIGHT + 6}" y="${r(y1 + h / 2 + 4)}">${esc(b.label)}</text>` : '';
      return `<rect class="band-${esc(b.kind)}" x="${LEFT}" y="${r(y1)}" width="${W - LEFT - RIGHT}" height="${r(h)}"/>${label}`;
    })
    .join('');
  const ticks = [0, Math.round(top / 2), Math.floor(top)]
    .filter((v, i, a) => a.indexOf(v) === i)
    .map((v) => `<text x="${LEFT - 6}" y="${r(y(v) + 4)}" text-anchor="end">${v}</text>`)
    .join('');
  return frame(f, rects + ticks + `<line class="axis" x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${H - BOTTOM}"/>` + timeAxis(times, x) + series(known.map((p) => [x(p.t), y(p.value)])));
}

/** Horizontal bars with their counts written beside them. */
export function barChart(f: ChartFrame, bars: ReadonlyArray<{ label: string; value: number; kind: string }>): string {
  const rowH = 22;
  const height = bars.length * rowH + 8;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const width = 420;
  const left = 80;
  const span = width - left - 70;
  const rows = bars
    .map((b, i) => {
      const yy = 4 + i * rowH;
      const w = (b.value / max) * span;
      return `<text x="${left - 6}" y="${yy + 15}" text-anchor="end">${esc(b.label)}</text><rect class="band-${esc(b.kind)}" x="${left}" y="${yy + 3}" width="${r(w)}" height="${rowH - 6}"/><text x="${r(left + w + 6)}" y="${yy + 15}">${b.value}</text>`;
    })
    .join('');
  return (
    `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="${f.id}-t ${f.id}-d">` +
    `<title id="${f.id}-t">${esc(f.title)}</title><desc id="${f.id}-d">${esc(f.desc)}</desc>${rows}</svg>`
  );
}
