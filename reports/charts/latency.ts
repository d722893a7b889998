/**
 * Latency percentiles per step on a log scale. A percentile that rests on too few samples is drawn
 * hollow, as a triangle, and listed in the legend as unreliable: visible, never mistaken for data.
 */
import { fmtTarget, stepNo } from '../../analysis/format.ts';
import { percentileLabel } from '../../analysis/percentiles.ts';
import type { Percentile, RunResult, StepResult } from '../../analysis/types.ts';
import { generatorInLatencies } from '../../analysis/warnings.ts';
import { BASE_CONFIG, COLOR, HEIGHT_PX, PERCENTILE_COLOR, WIDTH_PX, type ChartSpec } from './theme.ts';

export const RELIABLE = 'reliable';
export const UNRELIABLE = 'unreliable (too few samples)';
/** The outline of the sample-count legend's glyphs, and the fill of the reliable one: a grey no percentile line has. */
export const LEGEND_GLYPH = '#666666';

/** One point of a latency chart. */
export interface LatencyRow {
  step: string;
  percentile: string;
  ms: number;
  n: number;
  reliability: typeof RELIABLE | typeof UNRELIABLE;
}

/** "3 · 150/s"; a rerun of the same rate gets its attempt: "3 · 150/s (2)", its own place on the axis. */
export function stepLabel(index: number, ratePerSec: number, attempt = 1): string {
  return `${stepNo(index)} · ${fmtTarget(ratePerSec)}/s${attempt > 1 ? ` (${attempt})` : ''}`;
}

/** The rows of one step's percentiles (those above 0), those of `qs` only when given. */
export function latencyRows(s: StepResult, latency: readonly Percentile[], qs?: readonly number[]): LatencyRow[] {
  return latency
    .filter((p) => p.valueMs !== null && p.valueMs > 0 && (qs === undefined || qs.includes(p.q)))
    .map((p) => ({
      step: stepLabel(s.index, s.ratePerSec, s.attempt),
      percentile: percentileLabel(p.q),
      ms: p.valueMs!,
      n: p.n,
      reliability: p.reliable ? RELIABLE : UNRELIABLE,
    }));
}

/** The margin of a latency chart's y range beyond its extremes, as a factor on the log scale. */
const Y_PAD = 1.25;

/**
 * A log range a quarter beyond the extremes. vega's nice range ended at the decade a value lay on
 * (10 ms, a p50 of 10.2), and that percentile's line lay on the x axis, hidden under it.
 */
export function paddedLogDomain(ms: readonly number[]): readonly [number, number] {
  return [Math.min(...ms) / Y_PAD, Math.max(...ms) * Y_PAD];
}

/** The width of a character of an 11 px axis label (DejaVu Sans, the widest of BASE_CONFIG's fonts), and the space between labels. */
const LABEL_CHAR_PX = 7;
const LABEL_GAP_PX = 6;

/**
 * Step labels lie flat while the longest fits its place on the axis; past that they overprinted
 * each other ("1 · 50/s2 · 100/s3 ..." at 18 steps on 860 px), so they are slanted instead.
 */
export function stepLabelsAxis(labels: readonly string[], widthPx: number): object {
  const longest = Math.max(0, ...labels.map((l) => l.length));
  const fits = labels.length * (longest * LABEL_CHAR_PX + LABEL_GAP_PX) <= widthPx;
  return fits ? { labelAngle: 0 } : { labelAngle: -40, labelAlign: 'right', labelBaseline: 'middle' };
}

/** The x axis of per-step charts, `widthPx` wide: one place per attempt, in the order they ran. */
export function stepAxis(run: RunResult, title: string | null = 'step · offered rate', widthPx = WIDTH_PX): object {
  const sort = run.steps.map((s) => stepLabel(s.index, s.ratePerSec, s.attempt));
  return { field: 'step', type: 'ordinal' as const, title, sort, axis: stepLabelsAxis(sort, widthPx) };
}

/**
 * The layers of a latency chart: a line per percentile, a point per row (hollow triangle when
 * unreliable), and two layers that draw no mark (their rows are filtered out) and carry the
 * legends. On the points' layer vega-lite gives the shape legend's glyphs the points' fill and
 * stroke, which vary by percentile, so the sample-count legend came out white with no stroke,
 * invisible on the white page. Its own layer (fill and shape scales of its own, LATENCY_RESOLVE)
 * draws its glyphs as the points are drawn: a dark filled circle (reliable) and a hollow triangle
 * (unreliable), both with a dark outline; the other gives the percentile legend filled glyphs. The
 * two have no y: rows they filter out would give the shared y scale an empty extent, which vega
 * warns of.
 * `sampleLegend: false` leaves the sample-count legend out (a panel after the first of a grid);
 * `yDomain` fixes the y scale's (ms), for panels read side by side.
 */
export function latencyLayers(
  labels: readonly string[],
  x: object,
  yTitle: string | null,
  opts: { sampleLegend?: boolean; yDomain?: readonly [number, number] } = {},
): object[] {
  // a domain of its own only where given (panels that must compare share one)
  const scale = opts.yDomain ? { type: 'log', domain: [...opts.yDomain] } : { type: 'log' };
  const y = { field: 'ms', type: 'quantitative' as const, title: yTitle, scale };
  const colorScale = { domain: labels, range: PERCENTILE_COLOR.slice(0, Math.max(1, labels.length)) };
  // the legend's glyphs opaque: at vega-lite's 0.7 for a line's legend each percentile read as the
  // next paler line's colour, and p99.9's near-black as the sample-count legend's grey beside it
  const color = {
    field: 'percentile',
    type: 'nominal' as const,
    title: 'percentile',
    scale: colorScale,
    legend: { symbolOpacity: 1 },
  };
  const shapeScale = { domain: [RELIABLE, UNRELIABLE], range: ['circle', 'triangle-up'] };
  return [
    { mark: { type: 'line', strokeWidth: 1.5 }, encoding: { x, y, color } },
    {
      mark: { type: 'point', size: 80, strokeWidth: 2 },
      encoding: {
        x,
        y,
        color,
        shape: { field: 'reliability', type: 'nominal', scale: shapeScale, legend: null },
        fill: {
          condition: {
            test: `datum.reliability === '${RELIABLE}'`,
            field: 'percentile',
            type: 'nominal',
            scale: colorScale,
            legend: null,
          },
          value: 'white',
        },
      },
    },
    {
      transform: [{ filter: 'false' }],
      mark: { type: 'point', size: 80, strokeWidth: 2, filled: true, opacity: 1 },
      encoding: { x, color },
    },
    sampleLegendLayer(x, opts.sampleLegend !== false),
  ];
}

/**
 * The layer that draws no mark and carries the sample-count legend (`legend` false: the layer
 * without it, keeping the scales): a dark filled circle (reliable), a hollow triangle (unreliable),
 * both with a dark outline, as the points are drawn.
 */
export function sampleLegendLayer(x: object, legend = true): object {
  return {
    transform: [{ filter: 'false' }],
    mark: { type: 'point', size: 80, strokeWidth: 2, color: LEGEND_GLYPH, opacity: 1 },
    encoding: {
      x,
      shape: {
        field: 'reliability',
        type: 'nominal',
        title: 'sample count',
        scale: { domain: [RELIABLE, UNRELIABLE], range: ['circle', 'triangle-up'] },
        legend: legend ? { labelLimit: 400 } : null,
      },
      fill: {
        field: 'reliability',
        type: 'nominal',
        title: 'sample count',
        scale: { domain: [RELIABLE, UNRELIABLE], range: [LEGEND_GLYPH, 'white'] },
        ...(legend ? {} : { legend: null }),
      },
    },
  };
}

/**
 * A pale band behind each step whose latencies hold the generator's own delays (its loop stalled
 * past the warning's bound, or it held over its bounds: generatorInLatencies), of those in `shown`
 * (the steps the chart has rows for); none where no such step is shown. The findings leave such
 * steps out, and a reader had taken their latencies for the target's.
 */
export function generatorDelayBands(run: RunResult, x: object, shown: ReadonlySet<string>): object[] {
  const values = run.steps
    .filter(generatorInLatencies)
    .map((s) => ({ step: stepLabel(s.index, s.ratePerSec, s.attempt) }))
    .filter((v) => shown.has(v.step));
  if (values.length === 0) return [];
  return [{ data: { values }, mark: { type: 'rect', color: COLOR.generatorDelay, opacity: 0.18 }, encoding: { x } }];
}

/** The subtitle's clause for generatorDelayBands, empty where there are none. */
export function generatorDelayText(bands: readonly object[]): string {
  return bands.length === 0
    ? ''
    : "pale orange: the generator's own delays in the step's latencies (no finding rests on them)";
}

/** The sample-count legend's layer keeps its fill and shape scales to itself (the points' fill is by percentile). */
export const LATENCY_RESOLVE = { scale: { fill: 'independent', shape: 'independent' } };

export function latencySpec(run: RunResult): ChartSpec {
  const rows = run.steps.flatMap((s) => latencyRows(s, s.latency));
  const labels = [...new Set(rows.map((r) => r.percentile))];
  const x = stepAxis(run);
  const bands = generatorDelayBands(run, x, new Set(rows.map((r) => r.step)));
  const subtitle = 'successful requests, steady window only; hollow triangles rest on too few samples to trust';
  const delays = generatorDelayText(bands);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Latency percentiles per step',
      subtitle: delays ? [`${subtitle};`, delays] : subtitle,
    },
    width: WIDTH_PX,
    height: HEIGHT_PX,
    config: BASE_CONFIG,
    data: { values: rows },
    // the bands first: drawn behind the lines
    layer: [
      ...bands,
      ...latencyLayers(labels, x, 'latency (ms, log scale)', { yDomain: paddedLogDomain(rows.map((r) => r.ms)) }),
    ],
    resolve: LATENCY_RESOLVE,
  } as ChartSpec;
}
