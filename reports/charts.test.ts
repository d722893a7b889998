/**
 * The fixes found in report.html, checked on the vega-lite specs (what is drawn) and, where the bug
 * was in what vega drew from a spec that looked right, on the rendered SVG: the sample-count
 * legend's glyphs, the offered rate in the time series, the USL fit up to the knee on an even grid
 * of N, and labels kept apart.
 */
import { describe, expect, it } from 'vitest';
import { fakeRun, seriesPoint } from '../analysis/testing/builders.ts';
import type { RunResult } from '../analysis/types.ts';
import { latencySpec, LEGEND_GLYPH, RELIABLE, stepLabelsAxis, UNRELIABLE } from './charts/latency.ts';
import { renderSvg } from './charts/render.ts';
import {
  BASE_CONFIG,
  COLOR,
  countedAttempts,
  GENERATOR_LIMITED,
  PANEL_HEIGHT_PX,
  SET_ASIDE_COLOR,
  SUBTITLE_CHARS,
  VERDICT_COLOR,
  wrapSubtitle,
} from './charts/theme.ts';
import { PEAK_DRAWN_UP_TO, throughputSpec } from './charts/throughput.ts';
import { deliverySpec } from './charts/delivery.ts';
import { chartsOf } from './charts/index.ts';
import { CEILING_DASH, gaugeColors, OFFERED, symlogTicks, TICK_GAP_PX, timeseriesSpec } from './charts/timeseries.ts';
import { SERVER_RATE_GAUGE } from '../analysis/series.ts';
import { CURVE_POINTS, uslSpec } from './charts/usl.ts';
import { namesSpec } from './charts/names.ts';

/** Specs are read as plain JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** A demo-like queue past its knee (step 8, 400/s): W reaches a second at 450, so N there reads ~400. */
const DEMO = fakeRun({
  steps: [50, 100, 150, 200, 250, 300, 350, 400, 450, 450].map((ratePerSec, i) => ({
    ratePerSec,
    okPerSec: Math.min(ratePerSec, 400),
    latencyMs: i < 7 ? 10 : i === 7 ? 16 : 950,
  })),
  holdS: 10,
  settleS: 2,
});

/** Every layer of a spec, nested ones included. */
function layers(spec: Json): Json[] {
  return (spec.layer ?? []).flatMap((l: Json) => [l, ...layers(l)]);
}

/** The spec drawn by vega, with no warning, and its legends' symbols (their <path> elements). */
async function legendSymbols(spec: Json): Promise<{ svg: string; symbols: string[] }> {
  const { svg, warnings } = await renderSvg(spec, 't');
  expect(warnings).toEqual([]);
  return { svg, symbols: [...svg.matchAll(/role-legend-symbol[^>]*><path [^>]*\/>/g)].map((m) => m[0]) };
}
/** An attribute of an SVG element's text. */
const attr = (sym: string, name: string) => new RegExp(` ${name}="([^"]+)"`).exec(sym)?.[1];

describe('the latency chart: the sample-count legend is visible', () => {
  const spec = latencySpec(DEMO) as Json;

  it('its glyphs have a dark stroke; the reliable one is filled, the unreliable one hollow', () => {
    const legend = layers(spec).find((l) => l.encoding?.shape?.legend);
    expect(legend.encoding.shape.title).toBe('sample count');
    expect(legend.mark.color).toBe(LEGEND_GLYPH);
    expect(legend.encoding.fill.scale).toEqual({ domain: [RELIABLE, UNRELIABLE], range: [LEGEND_GLYPH, 'white'] });
    // a layer of its own that draws nothing: the points are drawn by the points' layer
    expect(legend.transform).toEqual([{ filter: 'false' }]);
    // the points' own shape has no legend (vega-lite would give its glyphs the points' colour-less stroke)
    const points = layers(spec).filter((l) => l.encoding?.shape && l !== legend);
    expect(points.map((l) => l.encoding.shape.legend)).toEqual([null]);
  });

  it('as vega draws it: both legend symbols stroked dark, the reliable one filled', async () => {
    const { svg, symbols } = await legendSymbols(spec);
    // the percentile legend first (p50 ... p99.9, filled with their colours), then the sample count's two
    expect(symbols).toHaveLength(6);
    expect(symbols.slice(0, 4).map((x) => attr(x, 'fill'))).toEqual(['#9ECAE1', '#4292C6', '#08519C', '#252525']);
    // opaque, as the lines are drawn: at 0.7 p99.9's near-black read as the sample count's grey beside it
    expect(symbols.slice(0, 4).map((x) => attr(x, 'opacity'))).toEqual(['1', '1', '1', '1']);
    const [reliable, unreliable] = symbols.slice(4);
    for (const sym of [reliable, unreliable]) {
      expect(attr(sym, 'stroke')).toBe(LEGEND_GLYPH);
      expect(attr(sym, 'opacity')).toBe('1');
    }
    expect(attr(reliable, 'fill')).toBe(LEGEND_GLYPH);
    expect(attr(unreliable, 'fill')).toBe('white');
    expect(attr(unreliable, 'd')).toMatch(/^M0,-4\.33L/); // the triangle the unreliable points are drawn as
    // the glyphs' grey is no percentile's colour, and no two percentiles share a near colour
    const colours = symbols.slice(0, 4).map((x) => attr(x, 'fill')!);
    expect(colours).not.toContain(LEGEND_GLYPH);
    const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const distance = (p: string, q: string) => Math.hypot(...rgb(p).map((v, i) => v - rgb(q)[i]));
    for (let i = 1; i < colours.length; i++) expect(distance(colours[i - 1], colours[i])).toBeGreaterThan(60);
  });
});

describe('the latency chart: no percentile lies on its axis', () => {
  it("its y range ends a quarter (log) beyond the lowest and highest values: a p50 of 10 ms lay on the axis where vega's nice range ended, its line hidden", () => {
    const spec = latencySpec(DEMO) as Json;
    const ms: number[] = spec.data.values.map((r: Json) => r.ms);
    expect(Math.min(...ms)).toBeCloseTo(10, 0);
    const domains = layers(spec)
      .filter((l) => l.encoding?.y)
      .map((l) => l.encoding.y.scale.domain);
    expect(domains.length).toBeGreaterThan(1);
    for (const [lo, hi] of domains) {
      expect(lo).toBeCloseTo(Math.min(...ms) / 1.25, 6);
      expect(hi).toBeCloseTo(Math.max(...ms) * 1.25, 6);
    }
  });
});

describe('the chart by name: one sample-count legend over the grid, its glyphs visible', () => {
  /** A name at each DEMO step with p50, p90 and p99, reliable as given. */
  const name = (ms: number, reliable: boolean) => ({
    completedPerSec: 50,
    throughputPerSec: 50,
    completed: 500,
    ok: 500,
    failed: 0,
    errorRate: 0,
    errors: {},
    latency: [50, 90, 99].map((q) => ({ q, valueMs: ms * (q / 50), n: 500, reliable: reliable || q === 50 })),
    meanMs: ms,
    maxMs: ms * 3,
  });
  const named: RunResult = {
    ...DEMO,
    steps: DEMO.steps.map((s) => ({ ...s, byName: { 'read order': name(3, true), 'create order': name(12, false) } })),
  };
  const spec = namesSpec(named) as Json;

  it('draws the legend once, in a view of its own over the panels, and none in a panel', () => {
    const [legendView, grid] = spec.vconcat;
    expect(legendView.height).toBe(0);
    const legends = layers(legendView).filter((l) => l.encoding?.shape?.legend);
    expect(legends).toHaveLength(1);
    expect(legends[0].encoding.shape.title).toBe('sample count');
    expect(grid.concat).toHaveLength(2);
    // a panel keeps the scales (its points' shapes), with no legend of its own
    for (const panel of grid.concat) {
      const shapes = layers(panel).filter((l) => l.encoding?.shape);
      expect(shapes.map((l) => l.encoding.shape.legend)).toEqual([null, null]);
      const fills = layers(panel).filter((l) => l.encoding?.fill?.field === 'reliability');
      expect(fills.map((l) => l.encoding.fill.legend)).toEqual([null]);
    }
  });

  it('as vega draws it: both sample-count glyphs stroked dark, the reliable one filled, the unreliable a hollow triangle', async () => {
    const { svg, symbols } = await legendSymbols(spec);
    // the sample count's two, then the percentiles' three: one legend each for the whole chart
    expect(symbols).toHaveLength(5);
    const [reliable, unreliable] = symbols.filter((x) => attr(x, 'stroke') === LEGEND_GLYPH);
    expect(attr(reliable, 'fill')).toBe(LEGEND_GLYPH);
    expect(attr(unreliable, 'fill')).toBe('white');
    expect(attr(unreliable, 'd')).toMatch(/^M0,-4\.33L/);
    // the percentiles' glyphs opaque, as their lines are drawn
    const percentiles = symbols.filter((x) => attr(x, 'stroke') !== LEGEND_GLYPH);
    expect(percentiles.map((x) => attr(x, 'opacity'))).toEqual(['1', '1', '1']);
    expect(svg.match(/>sample count</g)).toHaveLength(1);
    expect(svg).toContain(`>${UNRELIABLE}<`);
  });
});

describe('the time series: the offered rate beside achieved', () => {
  const spec = timeseriesSpec(DEMO) as Json;
  const first = spec.vconcat[0];

  it('draws the offered rate second by second, ramps included, dashed, in the legend as offered', () => {
    const offered = first.layer.find((l: Json) => l.mark?.type === 'line' && l.mark.strokeDash);
    const points = DEMO.series!.filter((p) => p.phase === 'steps');
    expect(offered.data.values.filter((r: Json) => r.value !== null)).toEqual(
      expect.arrayContaining(points.map((p) => ({ tS: p.tS, series: OFFERED, value: p.offered }))),
    );
    // the seconds of the ramps, outside every steady window, are on it too
    const steady = (t: number) => DEMO.steps.some((s) => t >= s.steadyStartS && t < s.steadyEndS);
    expect(offered.data.values.some((r: Json) => !steady(r.tS) && r.value > 0)).toBe(true);
    const line = first.layer.find((l: Json) => l.mark?.type === 'line' && !l.mark.strokeDash);
    expect(line.encoding.color.scale.domain).toEqual(['successful', 'failed', OFFERED]);
    expect(offered.encoding.color.scale).toEqual(line.encoding.color.scale);
  });

  it('draws the step numbers above every line, even where the throughput reaches the top of the chart', async () => {
    const values = first.layer
      .filter((l: Json) => l.mark?.type === 'line')
      .flatMap((l: Json) => l.data.values.map((r: Json) => r.value ?? 0));
    const top = Math.max(...values);
    const label = layers(first).find((l: Json) => l.mark?.type === 'text').mark;
    const line = first.layer.find((l: Json) => l.mark?.type === 'line' && !l.mark.strokeDash);
    const domainMax = line.encoding.y.scale?.domainMax;
    expect(domainMax).toBeGreaterThan(top);
    // the highest point of any line, in pixels below the panel's top, clears the labels' text (drawn centred on y)
    const highestPx = PANEL_HEIGHT_PX * (1 - top / domainMax);
    expect(highestPx).toBeGreaterThan(label.y + label.fontSize / 2 + 2);
    expect((await renderSvg(spec, 't')).warnings).toEqual([]);
  });

  it("numbers a rerun's steady window with its attempt, as the tables do", () => {
    const rerun: RunResult = { ...DEMO, steps: [...DEMO.steps.slice(0, -1), { ...DEMO.steps.at(-1)!, attempt: 2 }] };
    const labels = (timeseriesSpec(rerun) as Json).vconcat[0].layer[0].data.values.map((w: Json) => w.label);
    expect(labels.slice(-2)).toEqual(['9', '10 (2)']);
  });

  it('breaks its lines where no second was recorded (the pause before a rerun), instead of holding a value across it', () => {
    const point = (tS: number, ok: number, p99Ms: number | null = 3) => seriesPoint({ tS, ok, p99Ms, vusAllocated: 2 });
    const line = (run: RunResult, panel: number) =>
      (timeseriesSpec(run) as Json).vconcat[panel].layer.find((l: Json) => l.mark?.type === 'line').data.values;
    const run: RunResult = { ...DEMO, series: [3, 4, 6, 7].map((tS) => point(tS, tS * 10)) };
    // second 4's value held to 5 (the step gets its width), then the break
    expect(line(run, 0).filter((r: Json) => r.series === 'successful')).toEqual([
      { tS: 3, series: 'successful', value: 30 },
      { tS: 4, series: 'successful', value: 40 },
      { tS: 5, series: 'successful', value: 40 },
      { tS: 5, series: 'successful', value: null },
      { tS: 6, series: 'successful', value: 60 },
      { tS: 7, series: 'successful', value: 70 },
      // the last second held to its end, as second 4's (withEnds)
      { tS: 8, series: 'successful', value: 70 },
    ]);
    // a p99 missing in the recorded second before a pause (no success there): still broken at the pause
    const failing: RunResult = { ...DEMO, series: [point(3, 1), point(4, 0, null), point(6, 1), point(7, 1)] };
    expect(line(failing, 3).map((r: Json) => [r.tS, r.value])).toEqual([
      [3, 3],
      [5, 3],
      [5, null],
      [6, 3],
      [7, 3],
      [8, 3],
    ]);
    // a second recorded without a p99 is no pause: the p99 line goes on from 4 to 6 as before
    const quiet: RunResult = { ...DEMO, series: [point(3, 1), point(4, 1), point(5, 0, null), point(6, 1)] };
    expect(line(quiet, 3).map((r: Json) => [r.tS, r.value])).toEqual([
      [3, 3],
      [4, 3],
      [6, 3],
      [7, 3],
    ]);
    // the demo's run records every second: nothing to break
    expect(JSON.stringify(first)).not.toContain('"value":null');
  });

  it('ends its axis, its lines and its shaded windows where the data ends: an interrupted step was shaded to its planned end', () => {
    // the run recorded seconds 0 to 16, interrupted in the steady window of step 3 (16 to 21)
    const cut: RunResult = {
      ...DEMO,
      series: Array.from({ length: 17 }, (_, tS) => seriesPoint({ tS, ok: 100 })),
      steps: DEMO.steps.slice(0, 4).map((s, i) => ({ ...s, steadyStartS: 2 + 7 * i, steadyEndS: 7 + 7 * i })),
    };
    const panels = (timeseriesSpec(cut) as Json).vconcat;
    const windows = panels[0].layer[0].data.values;
    // step 3's window cut at 17, the end of second 16; step 4's, from 23, not drawn
    expect(windows.map((w: Json) => [w.label, w.from, w.to])).toEqual([
      ['1', 2, 7],
      ['2', 9, 14],
      ['3', 16, 17],
    ]);
    const line = panels[0].layer.find((l: Json) => l.mark?.type === 'line');
    expect(line.encoding.x.scale).toEqual({ domain: [0, 17], nice: false });
    expect(line.encoding.x.axis).toEqual({ format: 'd', tickMinStep: 1 });
    expect(Math.max(...line.data.values.map((r: Json) => r.tS))).toBe(17);
  });

  it('labels whole seconds, a value a second: the axis of a run of 3 s read 0.0, 0.1 ... 2.0', async () => {
    const short: RunResult = {
      ...DEMO,
      series: Array.from({ length: 3 }, (_, tS) => seriesPoint({ tS, ok: 100, offered: 100 })),
      steps: DEMO.steps.slice(0, 1).map((s) => ({ ...s, steadyStartS: 1, steadyEndS: 3 })),
    };
    const { svg, warnings } = await renderSvg(timeseriesSpec(short), 't');
    expect(warnings).toEqual([]);
    const groups = [...svg.matchAll(/role-axis-label"[^>]*>([\s\S]*?)<\/g>/g)].map((m) =>
      [...m[1].matchAll(/>([^<]+)<\/text>/g)].map((t) => t[1]),
    );
    // the first panel's x axis
    expect(groups[0]).toEqual(['0', '1', '2', '3']);
  });

  it('writes a count in whole numbers, and a panel of zeros with its line at the foot (it read "0.000000" mid-panel)', async () => {
    const panels = (timeseriesSpec(DEMO) as Json).vconcat;
    const dropped = panels[1];
    expect(dropped.title.text).toMatch(/^dropped iterations/);
    const y = dropped.layer.find((l: Json) => l.mark?.type === 'line').encoding.y;
    expect(y.axis).toEqual({ format: ',d', tickMinStep: 1 });
    expect(y.scale).toEqual({ domain: [0, 1] });
    // a panel with data keeps vega's domain
    const busy = DEMO.series!.map((p) => ({ ...p, dropped: 3 }));
    const withDrops = (timeseriesSpec({ ...DEMO, series: busy }) as Json).vconcat[1];
    expect(withDrops.layer.find((l: Json) => l.mark?.type === 'line').encoding.y.scale).toBeUndefined();
    // as vega draws it: the dropped panel's y labels (the second panel's, after its x axis's)
    const { svg } = await renderSvg(timeseriesSpec(DEMO), 't');
    const groups = [...svg.matchAll(/role-axis-label"[^>]*>([\s\S]*?)<\/g>/g)].map((m) =>
      [...m[1].matchAll(/>([^<]+)<\/text>/g)].map((t) => t[1]),
    );
    expect(groups[3]).toEqual(['0', '1']);
    expect(svg).not.toContain('0.000000');
  });

  it("gives the server's own req/s a panel of its own, so that a pool's few connections do not lie flat under it", () => {
    const gauges = [
      { name: 'pool active', points: [{ tS: 1.2, value: 2 }] },
      { name: SERVER_RATE_GAUGE, points: [{ tS: 1.2, value: 800 }] },
      { name: 'pool pending', points: [{ tS: 1.2, value: 40 }] },
    ];
    const panels = (timeseriesSpec({ ...DEMO, gauges }) as Json).vconcat;
    const rowsOf = (p: Json) => p.layer.find((l: Json) => l.mark?.type === 'line').data.values;
    const [rate, pool] = panels.slice(-2);
    expect(rate.title.text).toBe("the server's own requests per second (its metrics)");
    expect(rowsOf(rate)).toEqual([{ tS: 1.2, series: SERVER_RATE_GAUGE, value: 800 }]);
    // a rate is stamped at the end of the interval it covers: drawn back over it, not over the next
    expect(rate.layer.find((l: Json) => l.mark?.type === 'line').mark.interpolate).toBe('step-before');
    expect(pool.layer.find((l: Json) => l.mark?.type === 'line').mark.interpolate).toBe('step-after');
    expect(pool.title.text).toBe('server-side gauges (symmetric log scale)');
    expect(rowsOf(pool).map((r: Json) => r.series)).toEqual(['pool active', 'pool pending']);
    // a pool's 2 and its 40 waiting both readable: symlog (zero stays on it), ticks down to 1
    const y = pool.layer.find((l: Json) => l.mark?.type === 'line').encoding.y;
    expect(y.scale).toEqual({ type: 'symlog', nice: false });
    expect(y.axis.values).toEqual([0, 1, 2, 5, 10, 20]);
    expect(rate.layer.find((l: Json) => l.mark?.type === 'line').encoding.y.scale).toBeUndefined();
    // either alone: one panel
    const only = (gs: typeof gauges) => (timeseriesSpec({ ...DEMO, gauges: gs }) as Json).vconcat.length;
    expect(only([gauges[1]])).toBe(only([gauges[0], gauges[2]]));
    expect(only([])).toBe(only([gauges[1]]) - 1);
  });

  it('ticks a symlog axis at 0 and 1, 2, 5 x 10^k within the values, both signs when a value is negative, and leaves values under 1 to vega', () => {
    const rows = (...values: (number | null)[]) => values.map((value, tS) => ({ tS, series: 's', value }));
    expect(symlogTicks(rows(3, 40, null))).toEqual([0, 1, 2, 5, 10, 20]);
    expect(symlogTicks(rows(-3, 1))).toEqual([-2, -1, 0, 1]);
    // all under 1 (a ratio), or not finite: vega's own ticks
    expect(symlogTicks(rows(0.2, 0.9))).toBeNull();
    expect(symlogTicks(rows(0, 0))).toBeNull();
    expect(symlogTicks(rows(1, Infinity))).toBeNull();
  });

  it('leaves out a tick too near the one below it (vega hid it), and keeps the values asked for', () => {
    const rows = (...values: number[]) => values.map((value, tS) => ({ tS, series: 's', value }));
    // on an axis up to 380, 2 lies 8 px above 1: vega hid it
    const ticks = symlogTicks(rows(3, 380))!;
    expect(ticks).toEqual([0, 1, 5, 10, 20, 50, 100, 200]);
    // a pool's max of 2, or of 4 (between 2 and 5), is ticked, and what lies too near it is not
    expect(symlogTicks(rows(2, 500), [2])).toEqual([0, 2, 5, 20, 50, 100, 200, 500]);
    expect(symlogTicks(rows(4, 500), [4])).toEqual([0, 1, 4, 10, 20, 50, 100, 200, 500]);
    for (const keep of [[], [2], [4]]) {
      const values = symlogTicks(rows(4, 500), keep)!;
      const px = values.map((v) => (PANEL_HEIGHT_PX * Math.log1p(v)) / Math.log1p(500));
      for (let i = 1; i < px.length; i++) expect(px[i] - px[i - 1]).toBeGreaterThanOrEqual(TICK_GAP_PX);
    }
  });

  it('as vega draws it: a pool max of 2 or 4 on an axis up to 500 is labelled, and no tick label is hidden', async () => {
    for (const max of [2, 4]) {
      const gauges = [
        { name: 'pool active', points: [0, 5, 10].map((tS) => ({ tS, value: Math.min(max, tS) })) },
        { name: 'pool pending', points: [0, 10].map((tS) => ({ tS, value: tS === 10 ? 500 : 0 })) },
        { name: 'pool max', points: [0, 10].map((tS) => ({ tS, value: max })) },
      ];
      const { svg, warnings } = await renderSvg(timeseriesSpec({ ...DEMO, gauges }), 't');
      expect(warnings).toEqual([]);
      // the y axis of the last panel: the last group of axis labels (vega draws a panel's x axis first)
      const groups = [...svg.matchAll(/role-axis-label"[^>]*>([\s\S]*?)<\/g>/g)].map((m) => m[1]);
      const labels = [...groups.at(-1)!.matchAll(/<text[^>]* opacity="([^"]+)"[^>]*>([^<]+)<\/text>/g)];
      expect(labels.map((m) => m[2])).toContain(String(max));
      expect(labels.filter((m) => m[1] !== '1')).toEqual([]);
      // each as itself: not "2.0", nor "5e+1"
      expect(labels.map((m) => m[2]).filter((t) => !/^\d[\d,]*$/.test(t))).toEqual([]);
    }
  });

  it('draws a ceiling (allocated VUs, a pool max) thin and dashed under the line it bounds, so that "all busy" shows as that line lying on it', () => {
    const busy = DEMO.series!.map((p) => ({ ...p, vusActive: 4, vusAllocated: 4 }));
    const gauges = [
      { name: 'pool active', points: [{ tS: 1, value: 4 }] },
      { name: 'pool max', points: [{ tS: 1, value: 4 }] },
      { name: 'pool pending', points: [{ tS: 1, value: 40 }] },
    ];
    const panels = (timeseriesSpec({ ...DEMO, series: busy, gauges }) as Json).vconcat;
    for (const [panel, ceiling, active] of [
      [panels.find((p: Json) => p.title.text === 'VUs'), 'allocated', 'active'],
      [panels.at(-1), 'pool max', 'pool active'],
    ]) {
      const lines = panel.layer.filter((l: Json) => l.mark?.type === 'line');
      const seriesOf = (l: Json) => [...new Set(l.data.values.map((r: Json) => r.series))];
      // the ceiling first (drawn beneath), alone in its layer, thinner
      expect(seriesOf(lines[0])).toEqual([ceiling]);
      expect(seriesOf(lines[1])).toContain(active);
      expect(seriesOf(lines[1])).not.toContain(ceiling);
      expect(lines[0].mark.strokeWidth).toBeLessThan(lines[1].mark.strokeWidth);
      // dashed, and so in the legend: the dash is by series, the same scale in both layers
      const dash = lines[1].encoding.strokeDash.scale;
      expect(dash.range[dash.domain.indexOf(ceiling)]).toEqual(CEILING_DASH);
      expect(dash.range[dash.domain.indexOf(active)]).toEqual([1, 0]);
      expect(lines[0].encoding.strokeDash.scale).toEqual(dash);
      expect(lines[0].encoding.color.scale).toEqual(lines[1].encoding.color.scale);
    }
    // the pool's active and max coloured as the VUs' active and allocated
    const colors = gaugeColors(gauges);
    expect([colors['pool active'], colors['pool max']]).toEqual([COLOR.achieved, COLOR.allocated]);
  });

  it("as vega draws it: the ceiling's dashed line beneath the active one", async () => {
    const busy = DEMO.series!.map((p) => ({ ...p, vusActive: 4, vusAllocated: 4 }));
    const { svg, warnings } = await renderSvg(timeseriesSpec({ ...DEMO, series: busy }), 't');
    expect(warnings).toEqual([]);
    const path = (series: string) => new RegExp(`<path aria-label="[^"]*series: ${series}"[^>]*>`).exec(svg)!;
    const [allocated, active] = [path('allocated'), path('active')];
    expect(allocated.index).toBeLessThan(active.index);
    expect(allocated[0]).toContain(`stroke-dasharray="${CEILING_DASH.join(',')}"`);
    expect(active[0]).not.toContain(`stroke-dasharray="${CEILING_DASH.join(',')}"`);
  });

  it('counts arrivals in a mix, requests otherwise', () => {
    expect(first.title.text).toMatch(/^requests per second/);
    const one = {
      completedPerSec: 1,
      throughputPerSec: 1,
      completed: 1,
      ok: 1,
      failed: 0,
      errorRate: 0,
      errors: {},
      latency: [],
      meanMs: 1,
      maxMs: 1,
    };
    const mixed: RunResult = { ...DEMO, steps: DEMO.steps.map((s) => ({ ...s, byName: { 'read order': one } })) };
    // an empty byName is no names: requests, as everywhere else
    const empty: RunResult = { ...DEMO, steps: DEMO.steps.map((s) => ({ ...s, byName: {} })) };
    expect((timeseriesSpec(empty) as Json).vconcat[0].title.text).toMatch(/^requests per second/);
    expect((timeseriesSpec(mixed) as Json).vconcat[0].title.text).toMatch(/^arrivals per second/);
  });
});

describe('the USL chart of a run with no knee whose last held step queued (a user run r1)', () => {
  // every step held; the last one's W jumped from 3.66 ms to 127 ms, N from 1.74 to 73.6
  const r1 = fakeRun({
    steps: [100, 225, 350, 475, 600].map((ratePerSec, i) => ({
      ratePerSec,
      okPerSec: [100, 225, 350, 475, 580][i],
      latencyMs: [4.84, 3.96, 3.65, 3.66, 126.9][i],
    })),
    holdS: 10,
    settleS: 2,
  });
  const spec = uslSpec(r1) as Json;
  const altOf = (run: RunResult, name: string) => chartsOf(run).find((c) => c.name === name)!.alt;

  it('fits steps 1-4, says step 5 was left out as a queue, and speaks of the last step held, not a knee', () => {
    expect(r1.capacityPerSec).toBeNull();
    expect(r1.kneeStep).toBe(4);
    expect(spec.title.subtitle[1]).toBe(
      "fitted to steps 1–4, of those up to and including the last step held (step 5); step 5 left out, its N jumping like a queue's",
    );
    expect(altOf(r1, 'usl')).toMatch(
      /^Throughput against concurrency N = X × W of steps 1–4, of those up to and including the last step held \(step 5\); step 5 left out, its N jumping like a queue's, with the Universal/,
    );
    expect(JSON.stringify(spec)).not.toContain('the knee');
    // no N* ruled, no peak: the four steps rose in proportion to N
    expect(JSON.stringify(spec)).not.toContain('N* =');
  });
});

describe('the USL chart: fitted up to the knee, drawn on an even grid of N', () => {
  const spec = uslSpec(DEMO) as Json;
  const [curve, verdicts] = spec.layer;
  // the counted attempts' points (theme.ts verdictPoints): all of them, fitted up to the knee
  const points = verdicts.layer[0];
  const maxFittedN = Math.max(
    ...DEMO.models!.little.filter((r) => r.index <= DEMO.kneeStep!).map((r) => r.concurrency),
  );

  it('shows only the steps the law was fitted to, up to and including the knee', () => {
    expect(DEMO.kneeStep).toBe(7);
    expect(points.data.values.map((p: Json) => p.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(spec.title.subtitle[1]).toMatch(
      /^fitted to steps 1–8, up to and including the knee; 2 attempts past the knee left out \(N there counts a queue\)/,
    );
  });

  it('labels each step beside its point, away from the y axis, and inside the plot at the right', () => {
    const labels = spec.layer.filter((l: Json) => l.mark?.type === 'text');
    const [left, right] = labels;
    expect(left.mark).toMatchObject({ align: 'left', dx: 6 });
    expect(right.mark).toMatchObject({ align: 'right', dx: -6 });
    const half = (maxFittedN * 1.05) / 2;
    expect(left.data.values.every((p: Json) => p.n <= half)).toBe(true);
    expect(right.data.values.every((p: Json) => p.n > half)).toBe(true);
    expect([...left.data.values, ...right.data.values].map((p: Json) => p.step).sort()).toEqual(
      points.data.values.map((p: Json) => p.step).sort(),
    );
  });

  it('keeps its axis to the measured N (not the queue past the knee, N ~ 400)', () => {
    expect(maxFittedN).toBeLessThan(10);
    expect(DEMO.models!.little[8].concurrency).toBeGreaterThan(300);
    expect(points.encoding.x.scale.domain).toEqual([0, maxFittedN * 1.05]);
    expect(points.encoding.x.scale.nice).toBe(false);
  });

  it('draws the curve on an even grid of N, monotone, never at the steps own N', () => {
    const ns: number[] = curve.data.values.map((p: Json) => p.n);
    expect(ns).toHaveLength(CURVE_POINTS + 1);
    const gaps = ns.slice(1).map((n, i) => n - ns[i]);
    for (const g of gaps) expect(g).toBeCloseTo(gaps[0], 9);
    expect(gaps[0]).toBeGreaterThan(0);
    expect(ns.at(-1)).toBeCloseTo(maxFittedN * 1.05, 9);
  });

  it('draws N* only inside the axis, and says where it lies otherwise', () => {
    const usl = DEMO.models!.usl!;
    const far: RunResult = { ...DEMO, models: { ...DEMO.models!, usl: { ...usl, nStar: 50, peakPerSec: 600 } } };
    const s = uslSpec(far) as Json;
    expect(layers(s).some((l) => l.mark?.type === 'rule')).toBe(false);
    expect(s.title.subtitle[1]).toMatch(/N\* = 50\.0 \(peak 600\.0 req\/s\) lies beyond the measured N, not drawn$/);
    const near: RunResult = { ...DEMO, models: { ...DEMO.models!, usl: { ...usl, nStar: 3, peakPerSec: 380 } } };
    const rule = (uslSpec(near) as Json).layer.at(-1);
    expect(rule.data.values[0].n).toBe(3);
    expect(rule.layer.map((l: Json) => l.mark.type)).toEqual(['rule', 'text']);
  });

  it('wraps a long subtitle to the plot: the SVG keeps the width of the others', async () => {
    const usl = DEMO.models!.usl!;
    const far: RunResult = { ...DEMO, models: { ...DEMO.models!, usl: { ...usl, nStar: 50, peakPerSec: 600 } } };
    const long = (uslSpec(far) as Json).title.subtitle[1] as string;
    expect(long.length).toBeGreaterThan(SUBTITLE_CHARS);
    const lines = wrapSubtitle([long]);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((l) => l.length <= SUBTITLE_CHARS)).toBe(true);
    expect(lines.join(' ')).toBe(long);
    // broken after a clause's "; ", not inside a word
    expect(lines[0]).toMatch(/;$/);
    const width = (svg: string) => Number(/<svg[^>]* width="([\d.]+)"/.exec(svg)![1]);
    const usls = width((await renderSvg(uslSpec(far)!, 'u')).svg);
    const throughput = width((await renderSvg(throughputSpec(DEMO), 't')).svg);
    expect(usls).toBeLessThanOrEqual(throughput + 10);
  });

  it('has no chart without a fit, or without a knee', () => {
    expect(uslSpec({ ...DEMO, models: { ...DEMO.models!, usl: null } })).toBeNull();
    expect(uslSpec({ ...DEMO, kneeStep: null })).toBeNull();
  });
});

/** The throughput chart's words for its achieved line. */
const ACHIEVED_WORDS = 'blue: achieved, joining the attempts that count; ';

describe('the throughput chart: no zigzag overlay, labels apart', () => {
  const spec = throughputSpec(DEMO) as Json;
  const all = layers(spec);

  it('names its achieved line in the subtitle, by its colour, where it is drawn (the chart had no word for it)', () => {
    const line = (spec.layer as Json[]).find((l) => l.mark?.type === 'line' && !l.mark.strokeDash);
    expect(line.mark.color).toBe(COLOR.achieved);
    expect(COLOR.achieved).toBe('#0072B2');
    expect(spec.title.subtitle).toMatch(new RegExp(`^${ACHIEVED_WORDS}grey dashed: ideal`));
    // no attempt counts (the first step cut short): no line, no word for it
    const cut = throughputSpec({ ...DEMO, steps: [{ ...DEMO.steps[0], verdict: 'incomplete' as const }] }) as Json;
    expect((cut.layer as Json[]).filter((l) => l.mark?.type === 'line')).toHaveLength(1);
    expect(cut.title.subtitle).toMatch(/^grey dashed: ideal/);
  });

  it('draws the ideal over the achieved line, so that held steps do not hide it', () => {
    const lines = (spec.layer as Json[]).filter((l) => l.mark?.type === 'line');
    expect(lines.map((l) => (l.mark.strokeDash ? 'ideal' : 'achieved'))).toEqual(['achieved', 'ideal']);
    expect(lines[0].mark.strokeWidth).toBeGreaterThan(1);
  });

  it("draws no USL line at each step's measured N", () => {
    expect(all.some((l) => l.encoding?.y?.field === 'model')).toBe(false);
    expect(spec.title.subtitle).toMatch(/USL predicted peak \(its curve: Models\)/);
    // and not named where no peak is drawn
    const noFit = throughputSpec({ ...DEMO, models: { ...DEMO.models!, usl: null } }) as Json;
    expect(noFit.title.subtitle).toBe(`${ACHIEVED_WORDS}grey dashed: ideal (achieved = offered)`);
  });

  it('labels the knee at the foot of its rule, the predicted peak above the left end of its line, the capacity below the left end of its own', () => {
    const texts = all.filter((l) => l.data?.values?.[0]?.label !== undefined);
    const byLabel = (re: RegExp) =>
      texts.find((l) => re.test(l.data.values[0].label)).layer.find((x: Json) => x.mark.type === 'text').mark;
    expect(byLabel(/^knee: step 8$/)).toMatchObject({ y: { expr: 'height - 4' }, baseline: 'bottom' });
    expect(byLabel(/^USL predicted peak/)).toMatchObject({ align: 'left', x: 4, dy: -6 });
    expect(byLabel(/^capacity 400\.0 req\/s$/)).toMatchObject({ align: 'left', x: 4, dy: 6, baseline: 'top' });
  });
});

describe('the throughput chart and a USL peak far above the steps', () => {
  it(`draws no peak over ${PEAK_DRAWN_UP_TO} x the top offered rate (it flattened the steps on a stretched axis)`, () => {
    const far = {
      ...DEMO,
      models: { ...DEMO.models!, usl: { ...DEMO.models!.usl!, nStar: 8_000, peakPerSec: 1.7e10 } },
    };
    const spec = throughputSpec(far) as Json;
    const labels = layers(spec).flatMap((l) => (l.data?.values?.[0]?.label ? [l.data.values[0].label] : []));
    expect(labels.some((x: string) => x.startsWith('USL predicted peak'))).toBe(false);
    expect(spec.title.subtitle).toBe(`${ACHIEVED_WORDS}grey dashed: ideal (achieved = offered)`);
    // the demo's own, a little past the measured N, is drawn and says so
    const own = layers(throughputSpec(DEMO) as Json).flatMap((l) =>
      l.data?.values?.[0]?.label ? [l.data.values[0].label] : [],
    );
    expect(own).toContain('USL predicted peak 406.5 req/s (extrapolated past the measured N)');
  });
});

describe('the throughput chart without an established capacity', () => {
  it('marks the last held step as such, never as a knee', () => {
    const spec = throughputSpec({ ...DEMO, capacityPerSec: null, heldAtLeastPerSec: 400 }) as Json;
    const labels = layers(spec).flatMap((l) => (l.data?.values?.[0]?.label ? [l.data.values[0].label] : []));
    expect(labels).toContain('last held: step 8');
    expect(labels.some((t: string) => /knee/.test(t))).toBe(false);
    expect(labels).toContain('held at least 400.0 req/s');
  });
});

describe('the throughput chart: a step held generator-limited', () => {
  const steps = DEMO.steps.map((st, i) =>
    i === 7
      ? { ...st, generatorLimited: { code: 'loop-delay', step: 7, figures: { loopDelayMaxMs: 130, boundMs: 100 } } }
      : st,
  );
  const spec = throughputSpec({ ...DEMO, steps }) as Json;
  const counted = layers(spec).find((l) => l.mark?.type === 'point' && l.mark.filled)!;

  it('is drawn apart from a plain hold, in the legend as such', () => {
    expect(counted.data.values[7].verdict).toBe(GENERATOR_LIMITED);
    expect(counted.data.values[6].verdict).toBe('holds');
    expect(counted.encoding.color.scale.domain).toContain(GENERATOR_LIMITED);
    // a run without one lists no such category
    const plain = layers(throughputSpec(DEMO) as Json).find((l) => l.mark?.type === 'point' && l.mark.filled)!;
    expect(plain.encoding.color.scale.domain).not.toContain(GENERATOR_LIMITED);
  });

  it("a larger diamond, not a circle of nearly the knee's colour, and over the knee's rule where it is the knee's attempt", () => {
    const { domain, range } = counted.encoding.shape.scale;
    expect(range[domain.indexOf(GENERATOR_LIMITED)]).toBe('diamond');
    expect(range[domain.indexOf('holds')]).toBe('circle');
    expect(counted.encoding.size.condition.value).toBeGreaterThan(counted.encoding.size.value);
    // its colour the latency charts' pale band's
    const colour = counted.encoding.color.scale.range[counted.encoding.color.scale.domain.indexOf(GENERATOR_LIMITED)];
    expect(colour).toBe(COLOR.generatorDelay);
    // drawn after every rule (the knee's lay over it)
    const order = layers(spec).map((l) => (l.mark?.type === 'rule' ? 'rule' : l === counted ? 'points' : null));
    expect(order.lastIndexOf('rule')).toBeLessThan(order.indexOf('points'));
  });
});

describe('the throughput chart: the line joins only the attempts the verdicts count', () => {
  // a contaminated attempt at 200/s and its rerun, a transient failure at 300/s and its rerun, a
  // generator-bound step at 450/s and an incomplete (interrupted) one after it
  const st = DEMO.steps;
  const steps = [
    ...st.slice(0, 3),
    { ...st[3], contaminated: true },
    { ...st[3], attempt: 2 },
    st[4],
    { ...st[5], verdict: 'fails' as const, transient: true, throughputPerSec: 280 },
    { ...st[5], attempt: 2 },
    ...st.slice(6, 8),
    { ...st[8], generatorBound: true, verdict: 'fails' as const },
    { ...st[9], verdict: 'incomplete' as const },
  ];
  const run: RunResult = { ...DEMO, steps };
  const spec = throughputSpec(run) as Json;
  const line = (spec.layer as Json[]).find((l) => l.mark?.type === 'line' && !l.mark.strokeDash);
  const points = layers(spec).filter((l) => l.mark?.type === 'point');

  it('joins the held and failed-at-target attempts, none set aside (a generator-bound last step drew a plateau)', () => {
    expect(line.data.values.map((p: Json) => [p.offered, p.verdict])).toEqual([
      [50, 'holds'],
      [100, 'holds'],
      [150, 'holds'],
      [200, 'holds'],
      [250, 'holds'],
      [300, 'holds'],
      [350, 'holds'],
      [400, 'holds'],
    ]);
    // the attempts it joins are those the verdicts count
    const counted = countedAttempts(steps);
    expect(line.data.values).toHaveLength(counted.size);
    // a failure at the target is on it
    const failed = throughputSpec({ ...DEMO, steps: st }) as Json;
    const failedLine = (failed.layer as Json[]).find((l) => l.mark?.type === 'line' && !l.mark.strokeDash);
    expect(failedLine.data.values.map((p: Json) => p.offered)).toEqual([
      50, 100, 150, 200, 250, 300, 350, 400, 450, 450,
    ]);
  });

  it('draws the attempts set aside as larger hollow points over the counted ones, in a legend of their own', () => {
    const [filled, hollow] = points;
    expect(filled.mark.filled).toBe(true);
    expect(hollow.mark.filled).toBe(false);
    expect(hollow.mark.size).toBeGreaterThan(filled.encoding.size.value);
    expect(hollow.data.values.map((p: Json) => [p.offered, p.verdict])).toEqual([
      [200, 'contaminated'],
      [300, 'transient'],
      [450, 'generator-bound'],
      [450, 'incomplete'],
    ]);
    expect(filled.data.values.every((p: Json) => p.counted)).toBe(true);
    expect(hollow.encoding.color.title).toBe('set aside (not counted)');
    expect(hollow.encoding.color.scale.domain).toEqual(['transient', 'generator-bound', 'contaminated', 'incomplete']);
    expect(filled.encoding.color.scale.domain).toEqual(['holds', 'fails']);
  });

  it('as vega draws it: the contaminated ring after the green point of its rerun at the same place, hollow', async () => {
    const { svg, warnings } = await renderSvg(spec, 't');
    expect(warnings).toEqual([]);
    // vega's own text for each point: its fields, the category's under its legend's title
    const symbol = (offered: number, verdict: string) =>
      new RegExp(
        `<path aria-label="offered rate \\(req/s\\): ${offered}; achieved: [^;]+; [^:]+: ${verdict}"[^>]*>`,
      ).exec(svg)!;
    const [rerun, contaminated] = [symbol(200, 'holds'), symbol(200, 'contaminated')];
    expect(rerun.index).toBeLessThan(contaminated.index);
    expect(rerun[0]).toContain(' fill="#009E73"');
    expect(contaminated[0]).not.toContain(' fill="#');
    expect(contaminated[0]).toContain('stroke="#000000"');
  });
});

describe("the latency charts: steps with the generator's own delays in their latencies", () => {
  // step 4 held over the generator's bounds, step 6 had its loop stall past the warning's 50 ms
  const steps = DEMO.steps.map((st, i) =>
    i === 3
      ? { ...st, generatorLimited: { code: 'loop-delay', step: 3, figures: { loopDelayMaxMs: 130, boundMs: 100 } } }
      : i === 5
        ? { ...st, loopDelayMaxMs: 80 }
        : { ...st, loopDelayMaxMs: 20 },
  );
  const bandsOf = (spec: Json) => layers(spec).filter((l) => l.mark?.type === 'rect');

  it('shades those steps behind the lines, and says what the shade means', () => {
    const spec = latencySpec({ ...DEMO, steps }) as Json;
    const [band, ...more] = bandsOf(spec);
    expect(more).toEqual([]);
    expect(band.data.values.map((v: Json) => v.step)).toEqual(['4 · 200/s', '6 · 300/s']);
    expect(spec.layer[0]).toBe(band);
    expect(spec.title.subtitle.join(' ')).toContain("pale orange: the generator's own delays in the step's latencies");
  });

  it('shades nothing, and says nothing of it, where no step had them', () => {
    const spec = latencySpec(DEMO) as Json;
    expect(bandsOf(spec)).toEqual([]);
    expect(JSON.stringify(spec.title)).not.toContain('generator');
  });

  it('as vega draws it: no warning, the bands under the lines', async () => {
    const { svg, warnings } = await renderSvg(latencySpec({ ...DEMO, steps }), 't');
    expect(warnings).toEqual([]);
    expect(svg.indexOf('mark-rect')).toBeGreaterThan(-1);
    expect(svg.indexOf('mark-rect')).toBeLessThan(svg.indexOf('mark-line'));
  });
});

describe('step labels: flat while they fit, slanted before they overprint', () => {
  const run = (n: number) =>
    fakeRun({ steps: Array.from({ length: n }, (_, i) => ({ ratePerSec: 50 * (i + 1) })), holdS: 10, settleS: 2 });
  const xAxis = (spec: Json) => layers(spec).find((l) => l.encoding?.x)!.encoding.x.axis;

  it('10 steps lie flat on the latency chart; the demo run of 18 steps ("16 · 800/s" ...) is slanted', () => {
    expect(xAxis(latencySpec(DEMO))).toEqual({ labelAngle: 0 });
    expect(xAxis(latencySpec(run(18)))).toEqual({ labelAngle: -40, labelAlign: 'right', labelBaseline: 'middle' });
  });

  it('a narrower panel (a name of the latency-by-name grid) slants sooner', () => {
    const labels = Array.from({ length: 10 }, (_, i) => `${i + 1} · ${50 * (i + 1)}/s`);
    expect(stepLabelsAxis(labels, 860)).toEqual({ labelAngle: 0 });
    expect(stepLabelsAxis(labels, 400)).toMatchObject({ labelAngle: -40 });
  });

  it('as vega draws it: the slanted labels are rotated', async () => {
    const { svg } = await renderSvg(latencySpec(run(18)), 't');
    // vega writes -40 degrees as rotate(320)
    const labels = [...svg.matchAll(/<text[^>]*transform="[^"]*rotate\(320\)[^"]*"[^>]*>(\d+ · \d+\/s)</g)];
    expect(labels.map((m) => m[1])).toEqual(Array.from({ length: 18 }, (_, i) => `${i + 1} · ${50 * (i + 1)}/s`));
  });
});

describe('the delivery and capture chart', () => {
  it("an incomplete step's bars are grey and not judged, never red as a failure", () => {
    const run = {
      ...DEMO,
      steps: DEMO.steps.map((s, i) => (i === 9 ? { ...s, verdict: 'incomplete' as const, delivery: 0.4 } : s)),
    };
    const spec = deliverySpec(run) as Json;
    const bars = spec.vconcat[0].layer[0].data.values as { step: string; status: string }[];
    expect(bars.at(-1)!.status).toBe('incomplete (not judged)');
    expect(spec.vconcat[0].layer[0].encoding.color.scale.range).toContain('#BBBBBB');
    expect(bars.slice(0, -1).every((b) => b.status !== 'incomplete (not judged)')).toBe(true);
  });
});

describe('legends: no label or title cut', () => {
  it("vega's estimate of every category label and legend title of ours fits the legends' limit", () => {
    // vega estimates 0.8 em a character where no canvas measures text (vega-scenegraph estimateWidth)
    const estimate = (text: string) => 0.8 * text.length * BASE_CONFIG.legend.labelFontSize;
    const ours = [
      ...Object.keys(VERDICT_COLOR),
      GENERATOR_LIMITED,
      ...Object.keys(SET_ASIDE_COLOR),
      'incomplete (not judged)',
      'set aside (not counted)',
      'step verdict',
    ];
    for (const text of ours) {
      expect(estimate(text), text).toBeLessThanOrEqual(BASE_CONFIG.legend.labelLimit);
      expect(estimate(text), text).toBeLessThanOrEqual(BASE_CONFIG.legend.titleLimit);
    }
  });

  it('as vega draws them: the throughput and delivery legends of a run with the long categories, whole', async () => {
    const steps = DEMO.steps.map((st, i) =>
      i === 7
        ? { ...st, generatorLimited: { code: 'loop-delay', step: 7, figures: { loopDelayMaxMs: 130, boundMs: 100 } } }
        : i === 9
          ? { ...st, verdict: 'incomplete' as const }
          : st,
    );
    const run: RunResult = { ...DEMO, steps };
    for (const spec of [throughputSpec(run), deliverySpec(run)]) {
      const { svg } = await renderSvg(spec, 't');
      const legendText = [...svg.matchAll(/role-legend-(?:label|title)"[^>]*>([\s\S]*?)<\/g>/g)]
        .flatMap((m) => [...m[1].matchAll(/>([^<]+)<\/text>/g)])
        .map((m) => m[1]);
      expect(legendText).toEqual(expect.arrayContaining([expect.stringMatching(/generator-limited|not judged/)]));
      expect(legendText.filter((t) => t.includes('…'))).toEqual([]);
    }
  });
});

describe('alt texts: what the chart of this run shows, with its figures', () => {
  /** Every label a chart draws on its rules. */
  const ruleLabels = (spec: Json): string[] =>
    layers(spec).flatMap((l) => (typeof l.data?.values?.[0]?.label === 'string' ? [l.data.values[0].label] : []));
  const altOf = (run: RunResult, name: string) => chartsOf(run).find((c) => c.name === name)!.alt;

  it('the throughput chart\'s names each mark its chart labels, and no other (it said "the knee and the capacity" beside "last held")', () => {
    const lowerBound: RunResult = { ...DEMO, capacityPerSec: null, heldAtLeastPerSec: 400 };
    for (const run of [DEMO, lowerBound]) {
      const alt = altOf(run, 'throughput');
      const labels = ruleLabels(throughputSpec(run));
      expect(labels.length).toBeGreaterThan(1);
      for (const label of labels) expect(alt).toContain(label.replace(': ', ' at '));
    }
    expect(altOf(DEMO, 'throughput')).toMatch(/; knee at step 8, 400\/s; capacity 400\.0 req\/s;/);
    const bound = altOf(lowerBound, 'throughput');
    expect(bound).toMatch(/; last held at step 8, 400\/s; held at least 400\.0 req\/s;/);
    expect(bound).not.toMatch(/knee|capacity/);
  });

  it("the throughput chart's says which attempts it set aside, and why", () => {
    const steps = DEMO.steps.map((s, i) => (i === 9 ? { ...s, generatorBound: true, verdict: 'fails' as const } : s));
    expect(altOf({ ...DEMO, steps }, 'throughput')).toMatch(
      /; set aside, hollow and off the line: step 10 \(450\/s, generator-bound\)$/,
    );
    expect(altOf(DEMO, 'throughput')).not.toContain('set aside');
  });

  it("the time series' names the server's panels only in a run that has them", () => {
    const plain = altOf(DEMO, 'timeseries');
    expect(plain).not.toMatch(/server/);
    expect(plain).toMatch(/^The steps phase second by second, \d+ seconds, the 10 steady windows shaded/);
    const gauges = [
      { name: SERVER_RATE_GAUGE, points: [{ tS: 1, value: 380 }] },
      { name: 'pool active', points: [{ tS: 1, value: 4 }] },
      { name: 'pool max', points: [{ tS: 1, value: 4 }] },
    ];
    expect(altOf({ ...DEMO, gauges }, 'timeseries')).toMatch(
      /; the server's own requests per second up to 380\.0; server-side gauges \(symmetric log scale\): pool active up to 4 and pool max up to 4$/,
    );
    // every VU busy: what the VUs panel is read for
    const busy = DEMO.series!.map((p) => ({ ...p, vusActive: 4, vusAllocated: 4 }));
    expect(altOf({ ...DEMO, series: busy }, 'timeseries')).toMatch(
      /VUs: up to 4 active of 4 allocated \(dashed\), every one busy in \d+ seconds/,
    );
  });

  it('the latency, delivery, USL and by-name charts give their own figures', () => {
    expect(altOf(DEMO, 'latency')).toMatch(
      /^Latency percentiles \(p50, p90, p99 and p99\.9\) of successful requests per step, on a log scale: p99 ~[\d.]+ ms\* at step 1, [\d.]+ ms at step 8 \(the knee\), highest [\d.,]+ ms at step (9|10); 17 values of 40 rest on too few samples, drawn as hollow triangles \(marked ~value\*, as in the tables\)/,
    );
    // a p99 on too few samples is marked as the tables mark it (a caption quoted 230 ms that every table marked ~230*)
    const thin = DEMO.steps.map((s) => ({
      ...s,
      latency: s.latency.map((p) => (p.q >= 99 ? { ...p, reliable: false } : p)),
    }));
    expect(altOf({ ...DEMO, steps: thin }, 'latency')).toMatch(
      /: p99 ~[\d.]+ ms\* at step 1, ~[\d.]+ ms\* at step 8 \(the knee\), highest ~[\d.,]+ ms\* at step (9|10); 20 values of 40 rest on too few samples, drawn as hollow triangles \(marked ~value\*, as in the tables\)/,
    );
    // the p99s quoted all trusted, some p99.9 not: nothing quoted to mark
    const p99Trusted = DEMO.steps.map((s) => ({
      ...s,
      latency: s.latency.map((p) => (p.q === 99 ? { ...p, reliable: true } : p)),
    }));
    const trusted = altOf({ ...DEMO, steps: p99Trusted }, 'latency');
    expect(trusted).toMatch(/rest on too few samples, drawn as hollow triangles/);
    expect(trusted).not.toContain('~');
    expect(altOf(DEMO, 'delivery')).toMatch(
      /against their thresholds, 0\.90 and 0\.60; delivery below 0\.90 at step 9 \([\d.]+\) and step 10 \([\d.]+\);/,
    );
    expect(altOf(DEMO, 'usl')).toMatch(
      /^Throughput against concurrency N = X × W of steps 1–8, up to and including the knee; 2 attempts past the knee left out \(N there counts a queue\), with the Universal Scalability Law curve fitted to them \(α = /,
    );
    // a run without names has no chart by name, and so no alt for it
    expect(chartsOf(DEMO).map((c) => c.name)).not.toContain('names');
  });

  it('a run whose every request failed has no latency chart (it drew an empty frame "every value rests on enough samples"), and its delivery chart claims no capture', () => {
    const failed = fakeRun({ steps: [{ ratePerSec: 100, okPerSec: 0, failedPerSec: 100 }], holdS: 10, settleS: 2 });
    expect(chartsOf(failed).map((c) => c.name)).toEqual(['throughput', 'delivery', 'timeseries']);
    expect(altOf(failed, 'delivery')).toMatch(/; delivery below 0\.90 at step 1 \(0\.00\); no capture judged$/);
    // a first step alone has a delivery, no capture
    const one = fakeRun({ steps: [{ ratePerSec: 100 }], holdS: 10, settleS: 2 });
    expect(altOf(one, 'delivery')).toMatch(/; every delivery at or above 0\.90; no capture judged$/);
    expect(altOf(DEMO, 'delivery')).not.toContain('judged');
  });
});
