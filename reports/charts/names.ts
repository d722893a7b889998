/**
 * Latency by name: one panel per name (each request name and each transaction), p50, p90 and p99
 * of its successful ones per step on a log scale, drawn as the latency chart draws a step's
 * (unreliable ones hollow triangles), two panels a row on the same step axis and the same y range,
 * the knee ruled in each, so the entry whose tail grows first on the way to the knee stands out. A
 * transaction's panel is its whole duration.
 */
import type { RunResult } from '../../analysis/types.ts';
import { percentileLabel } from '../../analysis/percentiles.ts';
import { isTransaction, NAME_QUANTILES, namedSteps, nameOrder } from '../names-text.ts';
import {
  generatorDelayBands,
  generatorDelayText,
  LATENCY_RESOLVE,
  latencyLayers,
  latencyRows,
  paddedLogDomain,
  sampleLegendLayer,
  stepAxis,
  stepLabel,
} from './latency.ts';
import { BASE_CONFIG, COLOR, PANEL_HEIGHT_PX, WIDTH_PX, type ChartSpec } from './theme.ts';
import { kneeResult } from '../../analysis/deciding-steps.ts';
import { stepNo } from '../../analysis/format.ts';

/** Panels a row. */
export const NAME_COLUMNS = 2;
const PANEL_WIDTH_PX = Math.floor((WIDTH_PX - 60) / NAME_COLUMNS);
/** Taller than a time series' panel: a tail's growth before the knee must show on a log scale. */
const NAME_PANEL_HEIGHT_PX = Math.round(PANEL_HEIGHT_PX * 1.5);

/** Null when no step has figures by name. */
export function namesSpec(run: RunResult): ChartSpec | null {
  const steps = namedSteps(run);
  if (steps.length === 0) return null;
  const labels = NAME_QUANTILES.map(percentileLabel);
  const x = stepAxis(run, null, PANEL_WIDTH_PX);
  const byName = nameOrder(run)
    .map((name) => ({
      name,
      rows: steps.flatMap((s) => {
        const r = s.byName?.[name];
        return r ? latencyRows(s, r.latency, NAME_QUANTILES) : [];
      }),
    }))
    .filter((n) => n.rows.length > 0);
  if (byName.length === 0) return null;
  // one y range for every panel: a name's tail is read against the others' (each its own range
  // made a 3 ms read and a 300 ms transaction look alike)
  const all = byName.flatMap((n) => n.rows.map((r) => r.ms));
  // a quarter beyond the extremes (on the log scale): the lowest p50s sat on the x axis, half cut off
  const yDomain = paddedLogDomain(all);
  // the step the finding is about: the knee, or the last held step where no capacity was established
  const knee = kneeResult(run);
  const kneeRule = knee
    ? [
        {
          data: { values: [{ step: stepLabel(knee.index, knee.ratePerSec, knee.attempt) }] },
          mark: { type: 'rule', color: COLOR.knee, strokeDash: [4, 3], strokeWidth: 1.5 },
          encoding: { x },
        },
      ]
    : [];
  // every panel shades the same steps, those any panel shows
  const bands = generatorDelayBands(run, x, new Set(byName.flatMap((n) => n.rows.map((r) => r.step))));
  const panels = byName.map(({ name, rows }) => ({
    title: { text: isTransaction(run, name) ? `${name} (transaction)` : name, fontSize: 12 },
    width: PANEL_WIDTH_PX,
    height: NAME_PANEL_HEIGHT_PX,
    data: { values: rows },
    // no sample-count legend of its own: each panel's own scales would repeat it, and one over the
    // first panel would push it out of line; it is drawn once, over the grid (sampleLegendView)
    layer: [...bands, ...latencyLayers(labels, x, 'ms (log)', { sampleLegend: false, yDomain }), ...kneeRule],
    resolve: LATENCY_RESOLVE,
  }));
  const kneeText = !knee
    ? ''
    : run.capacityPerSec !== null
      ? `; orange dashed: the knee (step ${stepNo(knee.index)})`
      : `; orange dashed: the last step held (step ${stepNo(knee.index)})`;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Latency by name',
      subtitle: [
        "p50, p90 and p99 per step (x: step · offered rate) of each name's successful ones, steady window only;",
        `a transaction's is its whole duration; hollow triangles rest on too few samples to trust; one y range for all${kneeText}`,
        ...(bands.length > 0 ? [generatorDelayText(bands)] : []),
      ],
    },
    config: BASE_CONFIG,
    vconcat: [sampleLegendView(x), { columns: NAME_COLUMNS, concat: panels }],
    spacing: 8,
  } as ChartSpec;
}

/**
 * The sample-count legend, once over the grid beside the percentiles' (as the latency chart has
 * it): a view of no height, no frame and no axis that draws nothing but the legend. Filled and
 * hollow glyphs were explained only in the subtitle's words.
 */
function sampleLegendView(x: object): object {
  return {
    width: PANEL_WIDTH_PX,
    height: 0,
    view: { stroke: null },
    data: { values: [] },
    layer: [sampleLegendLayer({ ...x, axis: null })],
  };
}
