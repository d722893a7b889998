/**
 * Throughput against concurrency (N from Little's law) with the fitted USL curve and N* marked:
 * where the law says adding concurrency stops paying and starts costing.
 */
import { fmtRate, stepNo } from '../../analysis/format.ts';
import { uslThroughput } from '../../analysis/models/usl.ts';
import type { LittleRow, RunResult } from '../../analysis/types.ts';
import { sameAttempt } from '../cells.ts';
import { BASE_CONFIG, COLOR, HEIGHT_PX, pointCategory, pointScale, WIDTH_PX, type ChartSpec } from './theme.ts';

const CURVE_POINTS = 120;

/** Null when the run has no fit (the report says why in words). */
export function uslSpec(run: RunResult): ChartSpec | null {
  const m = run.models;
  if (!m?.usl || m.little.length === 0) return null;
  const fit = m.usl;
  const nMax = Math.max(...m.little.map((r) => r.concurrency), fit.nStar === null ? 0 : fit.nStar * 1.3) * 1.1;
  const curve = Array.from({ length: CURVE_POINTS + 1 }, (_, i) => {
    const n = (nMax * i) / CURVE_POINTS;
    return { n, x: uslThroughput(fit, n) };
  });
  // each row's own attempt: a rerun shares its index with the attempt before it
  const verdictOf = (r: LittleRow) => {
    const s = run.steps.find((x) => sameAttempt(x, r));
    return s ? pointCategory(s) : 'not-run';
  };
  const points = m.little.map((r) => ({
    n: r.concurrency,
    x: r.throughputPerSec,
    step: `step ${stepNo(r.index)}${(r.attempt ?? 1) > 1 ? ` (${r.attempt})` : ''}`,
    verdict: verdictOf(r),
  }));
  const x = { field: 'n', type: 'quantitative' as const, title: 'concurrency N = X × W', scale: { domain: [0, nMax] } };
  const layers: object[] = [
    {
      data: { values: curve },
      mark: { type: 'line', color: COLOR.model, strokeWidth: 2 },
      encoding: { x, y: { field: 'x', type: 'quantitative', title: 'successful req/s' } },
    },
    {
      data: { values: points },
      mark: { type: 'point', filled: true, size: 70 },
      encoding: {
        x,
        y: { field: 'x', type: 'quantitative' },
        color: {
          field: 'verdict',
          type: 'nominal',
          scale: pointScale(points.map((p) => p.verdict)),
          title: 'step verdict',
        },
      },
    },
    {
      data: { values: points },
      mark: { type: 'text', dy: -10, fontSize: 10, color: '#444444' },
      encoding: { x, y: { field: 'x', type: 'quantitative' }, text: { field: 'step' } },
    },
  ];
  if (fit.nStar !== null && fit.peakPerSec !== null) {
    layers.push({
      data: {
        values: [{ n: fit.nStar, label: `N* = ${fit.nStar.toPrecision(3)}, peak ${fmtRate(fit.peakPerSec)} req/s` }],
      },
      layer: [
        {
          mark: { type: 'rule', color: COLOR.knee, strokeDash: [4, 3] },
          encoding: { x: { field: 'n', type: 'quantitative' } },
        },
        {
          mark: { type: 'text', align: 'left', dx: 4, y: 8, color: COLOR.knee, fontSize: 11 },
          encoding: { x: { field: 'n', type: 'quantitative' }, text: { field: 'label' } },
        },
      ],
    });
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Universal Scalability Law fit',
      subtitle: `α = ${fit.alpha.toPrecision(3)}, β = ${fit.beta.toPrecision(3)}, γ = ${fmtRate(fit.gamma)} req/s, R² = ${fit.r2.toFixed(3)}`,
    },
    width: WIDTH_PX,
    height: HEIGHT_PX,
    config: BASE_CONFIG,
    layer: layers,
  } as ChartSpec;
}
