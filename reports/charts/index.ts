/**
 * The charts of a run, in report order. Each has a file name (kept beside report.md so a pull
 * request shows it), a title and a spec; a chart without data to draw is left out.
 */
import type { RunResult } from '../../analysis/types.ts';
import { deliveryAlt, latencyAlt, namesAlt, throughputAlt, timeseriesAlt, uslAlt } from './alt.ts';
import { deliverySpec } from './delivery.ts';
import { latencyRows, latencySpec } from './latency.ts';
import { namesSpec } from './names.ts';
import { renderSvg } from './render.ts';
import type { ChartSpec } from './theme.ts';
import { throughputSpec } from './throughput.ts';
import { timeseriesSpec } from './timeseries.ts';
import { uslSpec } from './usl.ts';

export type ChartName = 'throughput' | 'latency' | 'delivery' | 'timeseries' | 'usl' | 'names';

export interface Chart {
  name: ChartName;
  /** File name in the run directory. */
  file: string;
  /** Text alternative for the figure: what this chart of this run shows, with its key figures (alt.ts). */
  alt: string;
  spec: ChartSpec;
}

export interface RenderedChart extends Omit<Chart, 'spec'> {
  svg: string;
  /** vega's and vega-lite's warnings on the spec (render.ts): none, in every chart the tests draw. */
  warnings: string[];
}

export function chartFile(name: ChartName): string {
  return `chart-${name}.svg`;
}

/** Every chart the run has data for. */
export function chartsOf(run: RunResult): Chart[] {
  const hasSteps = run.steps.some((s) => s.steadyS > 0);
  // a run whose every request failed has no percentile: its chart was an empty frame whose caption
  // said "every value rests on enough samples"
  const hasLatency = run.steps.some((s) => latencyRows(s, s.latency).length > 0);
  // each alt says what that chart of this run shows (alt.ts), made only where the chart is
  const specs: [ChartName, () => string, ChartSpec | null][] = [
    ['throughput', () => throughputAlt(run), hasSteps ? throughputSpec(run) : null],
    ['latency', () => latencyAlt(run), hasLatency ? latencySpec(run) : null],
    ['delivery', () => deliveryAlt(run), hasSteps ? deliverySpec(run) : null],
    ['timeseries', () => timeseriesAlt(run), (run.series ?? []).length > 0 ? timeseriesSpec(run) : null],
    ['usl', () => uslAlt(run), uslSpec(run)],
    ['names', () => namesAlt(run), namesSpec(run)],
  ];
  return specs.flatMap(([name, alt, spec]) =>
    spec === null ? [] : [{ name, file: chartFile(name), alt: alt(), spec }],
  );
}

/**
 * A turn of the event loop (its timers and I/O run first). vega's rendering awaits only promises,
 * so a run's charts would otherwise hold the loop for their whole time: 0.2 to 0.6 s for a small
 * run beside other work, 1.2 s for the demo's. A process that renders one run's report while it
 * measures another (the tests run pipelines side by side) then met a stall of that length in the
 * middle of a step, and its timeouts landed after the steady window (decision 040).
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Renders the charts one after another (deterministic ids, bounded memory), the loop turning between them. */
export async function renderCharts(charts: readonly Chart[]): Promise<RenderedChart[]> {
  const out: RenderedChart[] = [];
  for (const { spec, ...rest } of charts) {
    await nextTurn();
    out.push({ ...rest, ...(await renderSvg(spec, `c-${rest.name}`)) });
  }
  return out;
}
