/**
 * Latency percentiles per step on a log scale. A percentile that rests on too few samples is drawn
 * hollow, as a triangle, and listed in the legend as unreliable: visible, never mistaken for data.
 */
import { fmtTarget, stepNo } from '../../analysis/format.ts';
import { percentileLabel } from '../../analysis/percentiles.ts';
import type { RunResult } from '../../analysis/types.ts';
import { BASE_CONFIG, HEIGHT_PX, PERCENTILE_COLOR, WIDTH_PX, type ChartSpec } from './theme.ts';

export const RELIABLE = 'reliable';
export const UNRELIABLE = 'unreliable (too few samples)';

/** "3 · 300/s": step number and offered rate, the x label of per-step charts. */
/** "3 · 150/s"; a rerun of the same rate gets its attempt: "3 · 150/s (2)", its own place on the axis. */
export function stepLabel(index: number, ratePerSec: number, attempt = 1): string {
  return `${stepNo(index)} · ${fmtTarget(ratePerSec)}/s${attempt > 1 ? ` (${attempt})` : ''}`;
}

export function latencySpec(run: RunResult): ChartSpec {
  const rows = run.steps.flatMap((s) =>
    s.latency
      .filter((p) => p.valueMs !== null && p.valueMs > 0)
      .map((p) => ({
        step: stepLabel(s.index, s.ratePerSec, s.attempt),
        percentile: percentileLabel(p.q),
        ms: p.valueMs,
        n: p.n,
        reliability: p.reliable ? RELIABLE : UNRELIABLE,
      })),
  );
  const labels = [...new Set(rows.map((r) => r.percentile))];
  const x = {
    field: 'step',
    type: 'ordinal' as const,
    title: 'step · offered rate',
    sort: run.steps.map((s) => stepLabel(s.index, s.ratePerSec, s.attempt)),
    axis: { labelAngle: 0 },
  };
  const y = { field: 'ms', type: 'quantitative' as const, title: 'latency (ms, log scale)', scale: { type: 'log' } };
  const color = {
    field: 'percentile',
    type: 'nominal' as const,
    title: 'percentile',
    scale: { domain: labels, range: PERCENTILE_COLOR.slice(0, Math.max(1, labels.length)) },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Latency percentiles per step',
      subtitle: 'successful requests, steady window only; hollow triangles rest on too few samples to trust',
    },
    width: WIDTH_PX,
    height: HEIGHT_PX,
    config: BASE_CONFIG,
    data: { values: rows },
    layer: [
      { mark: { type: 'line', strokeWidth: 1.5 }, encoding: { x, y, color } },
      {
        mark: { type: 'point', size: 80, strokeWidth: 2 },
        encoding: {
          x,
          y,
          color,
          shape: {
            field: 'reliability',
            type: 'nominal',
            title: 'sample count',
            legend: { labelLimit: 400, symbolFillColor: 'white', symbolStrokeColor: '#08306B' },
            scale: { domain: [RELIABLE, UNRELIABLE], range: ['circle', 'triangle-up'] },
          },
          fill: {
            condition: {
              test: `datum.reliability === '${RELIABLE}'`,
              field: 'percentile',
              type: 'nominal',
              scale: { domain: labels, range: PERCENTILE_COLOR.slice(0, Math.max(1, labels.length)) },
            },
            value: 'white',
          },
        },
      },
    ],
  } as ChartSpec;
}
