// History charts drawn at build time as inline SVG: no script, no colour needed to read them
// (statuses and bands are labelled in text), and a text alternative (<title>, <desc>) each.
import { esc } from './html.ts';
import { numberText } from '../../model/plural.ts';
import { isoDate } from '../../model/calendar.ts';

const W = 640;
const H = 180;
const LEFT = 64;
const RIGHT = 72;
const TOP = 12;
const BOTTOM = 28;

interface ChartFrame {
  /** Unique within the page, for aria-labelledby. */
  id: string;
  title: string;
  /** The text alternative: what the chart shows, in words. */
  desc: string;
}

function xScale(times: readonly number[]): (t: number) => number {
  const lo = times[0] ?? 0;
  const hi = times[times.length - 1] ?? 0;
  const span = hi - lo;
  return (t) =>
    span === 0 ? LEFT + (W - LEFT - RIGHT) / 2 : LEFT + ((t - lo) / span) * (W - LEFT - RIGHT);
}

function frame(f: ChartFrame, inner: string): string {
  return (
    `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-labelledby="${f.id}-t ${f.id}-d">` +
    `<title id="${f.id}-t">${esc(f.title)}</title><desc id="${f.id}-d">${esc(f.desc)}</desc>${inner}</svg>`
  );
}

function timeAxis(times: readonly number[], x: (t: number) => number): string {
  const shown =
    times.length <= 1
      ? times
      : times.length === 2
        ? times
        : [times[0]!, times[Math.floor(times.length / 2)]!, times[times.length - 1]!];
  const labels = shown.map((t, i) => {
    const anchor =
      shown.length > 1 && i === 0
        ? 'start'
        : shown.length > 1 && i === shown.length - 1
          ? 'end'
          : 'middle';
    return `<text x="${r(x(t))}" y="${H - 8}" text-anchor="${anchor}">${isoDate(t)}</text>`;
  });
  return `<line class="axis" x1="${LEFT}" y1="${H - BOTTOM}" x2="${W - RIGHT}" y2="${H - BOTTOM}"/>${labels.join('')}`;
}

function r(n: number): string {
  return String(Math.round(n * 10) / 10);
}

/**
 * The scan times of a chart, placed: every chart of a repository page spans the same scans,
 * so the page places them once (each x as drawn, and the time axis) and hands that to each chart.
 */
export interface TimeScale {
  times: readonly number[];
  /** x of times[i], as written in the SVG. */
  xs: readonly string[];
  /** The time axis markup. */
  axis: string;
}

export function timeScale(times: readonly number[]): TimeScale {
  const x = xScale(times);
  return { times, xs: times.map((t) => r(x(t))), axis: timeAxis(times, x) };
}

/** A status chart's rows (grid line and label per level) and each level's y, per level list. */
interface LevelRows {
  rows: string;
  /** y of each level, as written; a status not among the levels sits on the lowest row. */
  y: ReadonlyMap<string, string>;
  lowest: string;
}

// The level lists are one constant (model/status.ts: STATUS_LEVELS): their rows are drawn once.
const levelRowsCache = new WeakMap<readonly string[], LevelRows>();

function levelRows(levels: readonly string[]): LevelRows {
  let cached = levelRowsCache.get(levels);
  if (cached) return cached;
  const step = (H - TOP - BOTTOM) / Math.max(1, levels.length);
  const yOf = (i: number) => H - BOTTOM - step * (i + 0.5);
  const y = new Map<string, string>();
  levels.forEach((l, i) => {
    if (!y.has(l)) y.set(l, r(yOf(i)));
  });
  const rows = levels
    .map((l) => {
      const at = yOf(levels.indexOf(l));
      return `<line class="grid" x1="${LEFT}" y1="${r(at)}" x2="${W - RIGHT}" y2="${r(at)}"/><text x="${LEFT - 6}" y="${r(at + 4)}" text-anchor="end">${esc(l)}</text>`;
    })
    .join('');
  cached = { rows, y, lowest: r(yOf(0)) };
  levelRowsCache.set(levels, cached);
  return cached;
}

/**
 * Status over scan times: one labelled row per status, lowest at the bottom; a step line.
 * `scale`, when given, places the points' times (points[i].t is scale.times[i]).
 */
export function statusChart(
  f: ChartFrame,
  levels: readonly string[],
  points: ReadonlyArray<{ t: number; status: string }>,
  scale: TimeScale = timeScale(points.map((p) => p.t)),
): string {
  const { rows, y, lowest } = levelRows(levels);
  const yOf = (status: string) => y.get(status) ?? lowest;
  const { xs } = scale;
  let line = '';
  if (points.length > 1) {
    // A step line: at each later scan, across at the previous status, then up or down.
    let at = `${xs[0]},${yOf(points[0]!.status)}`;
    for (let i = 1; i < points.length; i++)
      at += ` ${xs[i]},${yOf(points[i - 1]!.status)} ${xs[i]},${yOf(points[i]!.status)}`;
    line = `<polyline class="series" points="${at}"/>`;
  }
  let dots = '';
  for (let i = 0; i < points.length; i++)
    dots += `<circle class="point" cx="${xs[i]}" cy="${yOf(points[i]!.status)}" r="3.5"/>`;
  return frame(f, rows + scale.axis + line + dots);
}

export interface ChartBand {
  min: number;
  /** null: unbounded above. */
  max: number | null;
  label: string;
  /** A CSS class suffix: gold, silver, bronze, fail, pass. */
  kind: string;
}

/** The value axis's top: above every value and band edge, with room over the highest. */
function valueTop(bands: readonly ChartBand[], known: ReadonlyArray<{ value: number }>): number {
  let top = 1;
  for (const p of known) if (p.value > top) top = p.value;
  for (const b of bands) {
    if (b.min > top) top = b.min;
    if (b.max !== null && b.max + 1 > top) top = b.max + 1;
  }
  return top * 1.15;
}

function valueY(top: number): (v: number) => number {
  return (v) => H - BOTTOM - (Math.min(v, top) / top) * (H - TOP - BOTTOM);
}

// A value chart's backdrop (bands, value ticks, axis line) depends only on the bands (a rule's,
// the same for every repository) and the axis's top: drawn once per pair. Bounded, as the
// tops come from values.
const backdropCache = new WeakMap<readonly ChartBand[], Map<number, string>>();
const MAX_BACKDROPS_PER_BANDS = 256;

function valueBackdrop(bands: readonly ChartBand[], top: number): string {
  let byTop = backdropCache.get(bands);
  if (!byTop) backdropCache.set(bands, (byTop = new Map()));
  let drawn = byTop.get(top);
  if (drawn !== undefined) return drawn;
  const y = valueY(top);
  const rects = bands
    .map((b) => {
      const y1 = y(b.max === null ? top : b.max + 1);
      const y0 = y(b.min);
      const h = Math.max(0, y0 - y1);
      const label =
        h >= 12 ? `<text x="${W - RIGHT + 6}" y="${r(y1 + h / 2 + 4)}">${esc(b.label)}</text>` : '';
      return `<rect class="band-${esc(b.kind)}" x="${LEFT}" y="${r(y1)}" width="${W - LEFT - RIGHT}" height="${r(h)}"/>${label}`;
    })
    .join('');
  const ticks = [0, Math.round(top / 2), Math.floor(top)]
    .filter((v, i, a) => a.indexOf(v) === i)
    .map(
      (v) => `<text x="${LEFT - 6}" y="${r(y(v) + 4)}" text-anchor="end">${numberText(v)}</text>`,
    )
    .join('');
  drawn =
    rects + ticks + `<line class="axis" x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${H - BOTTOM}"/>`;
  if (byTop.size >= MAX_BACKDROPS_PER_BANDS) byTop.clear();
  byTop.set(top, drawn);
  return drawn;
}

/**
 * Value over scan times with the bands behind it; bands are labelled at the right edge.
 * `scale`, when given, places the points' times (points[i].t is scale.times[i]). Pass the same
 * bands array for the same rule: its backdrop is drawn once.
 */
export function valueChart(
  f: ChartFrame,
  bands: readonly ChartBand[],
  points: ReadonlyArray<{ t: number; value: number | null }>,
  scale: TimeScale = timeScale(points.map((p) => p.t)),
): string {
  const known: Array<{ value: number; x: string }> = [];
  points.forEach((p, i) => {
    if (p.value !== null) known.push({ value: p.value, x: scale.xs[i]! });
  });
  const top = valueTop(bands, known);
  const y = valueY(top);
  // Each point's place is written twice (line and dot): formatted once.
  let line = '';
  let dots = '';
  for (let i = 0; i < known.length; i++) {
    const p = known[i]!;
    const at = r(y(p.value));
    line += `${i > 0 ? ' ' : ''}${p.x},${at}`;
    dots += `<circle class="point" cx="${p.x}" cy="${at}" r="3.5"/>`;
  }
  const series = known.length > 1 ? `<polyline class="series" points="${line}"/>${dots}` : dots;
  return frame(f, valueBackdrop(bands, top) + scale.axis + series);
}

/** Horizontal bars with their counts written beside them. */
export function barChart(
  f: ChartFrame,
  bars: ReadonlyArray<{ label: string; value: number; kind: string }>,
): string {
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
      return `<text x="${left - 6}" y="${yy + 15}" text-anchor="end">${esc(b.label)}</text><rect class="band-${esc(b.kind)}" x="${left}" y="${yy + 3}" width="${r(w)}" height="${rowH - 6}"/><text x="${r(left + w + 6)}" y="${yy + 15}">${numberText(b.value)}</text>`;
    })
    .join('');
  return (
    `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="${f.id}-t ${f.id}-d">` +
    `<title id="${f.id}-t">${esc(f.title)}</title><desc id="${f.id}-d">${esc(f.desc)}</desc>${rows}</svg>`
  );
}
