/**
 * Latency by name: one panel per name (each request name and each transaction), p50, p90 and p99
 * of its successful ones per step on a log scale, drawn as the latency chart draws a step's
 * (unreliable ones hollow triangles), two panels a row on the same step axis, so the entry whose
 * tail grows first on the way to the knee stands out. A transaction's panel is its whole duration.
 */
import type { RunResult } from '../../analysis/types.ts';
import { percentileLabel } from '../../analysis/percentiles.ts';
import { isTransaction, NAME_QUANTILES, namedSteps, nameOrder } from '../names-text.ts';
import { LATENCY_RESOLVE, latencyLayers, latencyRows, stepAxis } from './latency.ts';
import { BASE_CONFIG, PANEL_HEIGHT_PX, WIDTH_PX, type ChartSpec } from './theme.ts';

/** Panels a row. */
export const NAME_COLUMNS = 2;
const PANEL_WIDTH_PX = Math.floor((WIDTH_PX - 60) / NAME_COLUMNS);

/** Null when no step has figures by name. */
export function namesSpec(run: RunResult): ChartSpec | null {
  const steps = namedSteps(run);
  if (steps.length === 0) return null;
  const labels = NAME_QUANTILES.map(percentileLabel);
  const x = stepAxis(run, null, PANEL_WIDTH_PX);
  const panels: object[] = [];
  for (const name of nameOrder(run)) {
    const rows = steps.flatMap((s) => {
      const r = s.byName?.[name];
      return r ? latencyRows(s, r.latency, NAME_QUANTILES) : [];
    });
    if (rows.length === 0) continue;
    panels.push({
      title: { text: isTransaction(run, name) ? `${name} (transaction)` : name, fontSize: 12 },
      width: PANEL_WIDTH_PX,
      height: PANEL_HEIGHT_PX,
      data: { values: rows },
      // no sample-count legend: each panel's own scales would repeat it, and one over the first
      // panel would push it out of line; the subtitle says what a hollow triangle is
      layer: latencyLayers(labels, x, 'ms (log)', { sampleLegend: false }),
      resolve: LATENCY_RESOLVE,
    });
  }
  if (panels.length === 0) return null;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Latency by name',
      subtitle: [
        "p50, p90 and p99 per step (x: step · offered rate) of each name's successful ones, steady window only;",
        "a transaction's is its whole duration; hollow triangles rest on too few samples to trust",
      ],
    },
    config: BASE_CONFIG,
    columns: NAME_COLUMNS,
    concat: panels,
  } as ChartSpec;
}
