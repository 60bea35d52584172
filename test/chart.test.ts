// src/render/pages/chart.ts: the history charts are inline SVG with a text alternative, rows
// and bands labelled in text, and points placed where the scale says. The coordinates are
// worked out by hand from the chart's geometry: 640 × 180, plot from x 64 to 568 (504 wide)
// and from y 12 to 152 (140 high).
import { describe, expect, it } from 'vitest';
import {
  barChart,
  statusChart,
  timeScale,
  valueChart,
  type ChartBand,
} from '../src/render/pages/chart.ts';

const DAY = 86_400;
const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const frame = { id: 'c1', title: 'Status of <MAINT> & co', desc: 'gold since "March"' };
const all = (svg: string, re: RegExp) => [...svg.matchAll(re)].map((m) => m.slice(1));

describe('text alternative', () => {
  it('labels the SVG by its escaped title and description', () => {
    for (const svg of [
      statusChart(frame, ['fail', 'gold'], [{ t: T0, status: 'gold' }]),
      barChart(frame, [{ label: 'gold', value: 1, kind: 'gold' }]),
    ]) {
      expect(svg).toMatch(/^<svg class="chart" [^>]*role="img" aria-labelledby="c1-t c1-d">/);
      expect(svg).toContain('<title id="c1-t">Status of &lt;MAINT&gt; &amp; co</title>');
      expect(svg).toMatch(/<desc id="c1-d">gold since (&quot;|&#34;)March(&quot;|&#34;)<\/desc>/);
      expect(svg).not.toContain('<MAINT>');
    }
  });
});

describe('timeScale', () => {
  it('spreads the times over the plot, a single time in the middle, and labels first, middle and last', () => {
    const s = timeScale([T0, T0 + DAY, T0 + 4 * DAY]);
    // 64 + 504 × (1/4) = 190
    expect(s.xs).toEqual(['64', '190', '568']);
    expect(all(s.axis, /<text x="([\d.]+)" y="172" text-anchor="(\w+)">([\d-]+)<\/text>/g)).toEqual(
      [
        ['64', 'start', '2026-01-01'],
        ['190', 'middle', '2026-01-02'],
        ['568', 'end', '2026-01-05'],
      ],
    );
    expect(timeScale([T0]).xs).toEqual(['316']);
    expect(all(timeScale([T0]).axis, /text-anchor="(\w+)"/g)).toEqual([['middle']]);
  });
});

describe('statusChart', () => {
  const levels = ['fail', 'bronze', 'silver', 'gold'];
  // Four rows of 35: fail at 152 - 17.5 = 134.5, bronze 99.5, silver 64.5, gold 29.5.
  it('draws one labelled row per level, lowest at the bottom', () => {
    const svg = statusChart(frame, levels, [{ t: T0, status: 'gold' }]);
    expect(all(svg, /<text x="58" y="([\d.]+)" text-anchor="end">(\w+)<\/text>/g)).toEqual([
      ['138.5', 'fail'],
      ['103.5', 'bronze'],
      ['68.5', 'silver'],
      ['33.5', 'gold'],
    ]);
  });

  it('steps across at the previous status, then up or down; an unknown status sits on the lowest row', () => {
    const points = [
      { t: T0, status: 'bronze' },
      { t: T0 + DAY, status: 'gold' },
      { t: T0 + 2 * DAY, status: 'expired' },
    ];
    const svg = statusChart(frame, levels, points);
    expect(svg).toContain(
      '<polyline class="series" points="64,99.5 316,99.5 316,29.5 568,29.5 568,134.5"/>',
    );
    expect(all(svg, /<circle class="point" cx="([\d.]+)" cy="([\d.]+)"/g)).toEqual([
      ['64', '99.5'],
      ['316', '29.5'],
      ['568', '134.5'],
    ]);
    // One scan: a point, no line.
    expect(statusChart(frame, levels, [points[0]!])).not.toContain('<polyline');
  });
});

describe('valueChart', () => {
  const bands: ChartBand[] = [
    { min: 0, max: 1, label: 'fail (0-1)', kind: 'fail' },
    { min: 2, max: 4, label: 'bronze', kind: 'bronze' },
    { min: 5, max: 9, label: 'silver', kind: 'silver' },
    { min: 10, max: null, label: 'gold (10+)', kind: 'gold' },
  ];
  // Values 3 and 12: the axis tops at 12 × 1.15 = 13.8, so y(v) = 152 - v / 13.8 × 140.
  const svg = valueChart(frame, bands, [
    { t: T0, value: 3 },
    { t: T0 + DAY, value: null },
    { t: T0 + 2 * DAY, value: 12 },
  ]);

  it('joins the known values and skips a scan without one', () => {
    // y(3) = 121.56…, y(12) = 30.26…
    expect(svg).toContain('<polyline class="series" points="64,121.6 568,30.3"/>');
    expect(all(svg, /<circle class="point" cx="([\d.]+)" cy="([\d.]+)"/g)).toEqual([
      ['64', '121.6'],
      ['568', '30.3'],
    ]);
  });

  it('draws each band from its min to its max + 1 (the top band to the axis top), labelled at the right', () => {
    // fail: y(2) = 131.7 to y(0) = 152; gold: y(13.8) = 12 to y(10) = 50.6.
    expect(svg).toContain('<rect class="band-fail" x="64" y="131.7" width="504" height="20.3"/>');
    expect(svg).toContain('<rect class="band-gold" x="64" y="12" width="504" height="38.6"/>');
    expect(svg).toMatch(/<text x="574" y="[\d.]+">gold \(10\+\)<\/text>/);
    // Ticks at 0, the middle (6.9 rounds to 7) and the top's whole part (13).
    expect(all(svg, /<text x="58" y="([\d.]+)" text-anchor="end">(\d+)<\/text>/g)).toEqual([
      ['156', '0'],
      ['85', '7'],
      ['24.1', '13'],
    ]);
  });

  it('draws the same backdrop for the same bands and top, whatever the values', () => {
    const other = valueChart(frame, bands, [
      { t: T0, value: 12 },
      { t: T0 + DAY, value: 1 },
    ]);
    const backdrop = (s: string) =>
      s.slice(s.indexOf('<rect'), s.indexOf('<line class="axis" x1="64" y1="152"'));
    expect(backdrop(other)).toBe(backdrop(svg));
  });
});

describe('barChart', () => {
  it('draws bars in proportion to the largest, each count written beside its bar', () => {
    const svg = barChart(frame, [
      { label: 'gold', value: 4, kind: 'gold' },
      { label: 'fail', value: 2, kind: 'fail' },
      { label: '<none>', value: 0, kind: 'fail' },
    ]);
    // Three rows of 22 and 8 spare: 74 high; bars up to 270 wide from x 80.
    expect(svg).toMatch(/^<svg class="chart" viewBox="0 0 420 74" width="420" height="74"/);
    expect(
      all(
        svg,
        /<rect class="band-(\w+)" x="80" y="(\d+)" width="([\d.]+)" height="16"\/><text x="([\d.]+)" y="\d+">(\d+)<\/text>/g,
      ),
    ).toEqual([
      ['gold', '7', '270', '356', '4'],
      ['fail', '29', '135', '221', '2'],
      ['fail', '51', '0', '86', '0'],
    ]);
    expect(svg).toContain('>&lt;none&gt;</text>');
  });
});
