/**
 * Throughput against concurrency (N from Little's law) with the fitted USL curve and N* marked:
 * where the law says adding concurrency stops paying and starts costing. Only the steps the law
 * was fitted to are drawn, those up to and including the knee short of any whose N jumped like a
 * queue's (analysis/models/usl.ts uslFitRows): there N counts a queue, not concurrency served. The axis keeps to their measured
 * N, and the curve is drawn on an even grid of N over it, never at each step's own (noisy) N.
 */
import { fmtRate, stepNo } from '../../analysis/format.ts';
import { uslQueuedRows, uslThroughput } from '../../analysis/models/usl.ts';
import type { LittleRow, RunResult } from '../../analysis/types.ts';
import { rateUnit, sameAttempt } from '../cells.ts';
import { sig3, uslFitted } from '../models-text.ts';
import {
  BASE_CONFIG,
  COLOR,
  countedAttempts,
  HEIGHT_PX,
  pointCategory,
  verdictPoints,
  WIDTH_PX,
  type ChartSpec,
} from './theme.ts';

/** Intervals of the curve's grid of N. */
export const CURVE_POINTS = 120;
/** The axis reaches this far past the largest fitted N. */
const AXIS_MARGIN = 1.05;

/** "steps 1–8", "step 1", "steps 1–3, 3 (2)": the fitted rows, for the subtitle and the alt text. */
export function stepsText(rows: readonly LittleRow[]): string {
  const label = (r: LittleRow) => `${stepNo(r.index)}${(r.attempt ?? 1) > 1 ? ` (${r.attempt})` : ''}`;
  if (rows.length === 1) return `step ${label(rows[0])}`;
  const plain = rows.every((r, i) => (r.attempt ?? 1) === 1 && (i === 0 || r.index === rows[i - 1].index + 1));
  return plain ? `steps ${label(rows[0])}–${label(rows.at(-1)!)}` : `steps ${rows.map(label).join(', ')}`;
}

/**
 * What the fitted steps are of, after "fitted to steps 1–4": up to and including the knee where the
 * run found one, else the last step held (no knee was established); and which were left out, held
 * steps whose N jumped like a queue's (uslQueuedRows) and the attempts past it.
 */
export function uslScopeText(run: RunResult): string {
  const little = run.models?.little ?? [];
  const last = run.capacityPerSec !== null ? 'the knee' : 'the last step held';
  const queued = uslQueuedRows(little, run.kneeStep);
  const past = run.kneeStep === null ? 0 : little.filter((r) => r.index > run.kneeStep!).length;
  const scope =
    queued.length > 0 && run.kneeStep !== null
      ? `, of those up to and including ${last} (step ${stepNo(run.kneeStep)}); ${stepsText(queued)} left out, ${queued.length === 1 ? 'its' : 'their'} N jumping like a queue's`
      : `, up to and including ${last}`;
  const beyond =
    past > 0
      ? `; ${past} attempt${past === 1 ? '' : 's'} past ${run.capacityPerSec !== null ? 'the knee' : 'it'} left out (N there counts a queue)`
      : '';
  return `${scope}${beyond}`;
}

/** Whether the chart rules N*: only inside its axis (the fitted rows' largest N, and a margin). */
export function uslShowsNStar(run: RunResult): boolean {
  const fit = run.models?.usl;
  const fitted = uslFitted(run);
  if (!fit || fit.nStar === null || fit.peakPerSec === null || fitted.length === 0) return false;
  return fit.nStar <= Math.max(...fitted.map((r) => r.concurrency)) * AXIS_MARGIN;
}

/**
 * The steps' labels, beside their points rather than centred above them: centred, the first
 * steps' (N near 0 against a far larger last N) ran into the y axis and each other. Those in the
 * axis's right half sit to the left of their point, so the last one stays inside the plot.
 */
function stepLabels(points: readonly { n: number }[], x: object, nMax: number): object[] {
  const label = (values: readonly { n: number }[], right: boolean) => ({
    data: { values },
    mark: { type: 'text', dy: -8, dx: right ? -6 : 6, align: right ? 'right' : 'left', fontSize: 10, color: '#444444' },
    encoding: { x, y: { field: 'x', type: 'quantitative' }, text: { field: 'step' } },
  });
  const right = points.filter((p) => p.n > nMax / 2);
  return [
    label(
      points.filter((p) => p.n <= nMax / 2),
      false,
    ),
    label(right, true),
  ];
}

/** Null when the run has no fit (the report says why in words). */
export function uslSpec(run: RunResult): ChartSpec | null {
  const m = run.models;
  const fitted = uslFitted(run);
  if (!m?.usl || fitted.length === 0) return null;
  const fit = m.usl;
  const unit = rateUnit(run);
  const measuredMaxN = Math.max(...fitted.map((r) => r.concurrency));
  const nMax = measuredMaxN * AXIS_MARGIN;
  const curve = Array.from({ length: CURVE_POINTS + 1 }, (_, i) => {
    const n = (nMax * i) / CURVE_POINTS;
    return { n, x: uslThroughput(fit, n) };
  });
  // each row's own attempt: a rerun shares its index with the attempt before it
  const counted = countedAttempts(run.steps);
  const points = fitted.map((r) => {
    const s = run.steps.find((x) => sameAttempt(x, r));
    return {
      n: r.concurrency,
      x: r.throughputPerSec,
      index: r.index,
      step: `step ${stepNo(r.index)}${(r.attempt ?? 1) > 1 ? ` (${r.attempt})` : ''}`,
      verdict: s ? pointCategory(s) : 'not-run',
      // drawn as the throughput chart draws it
      counted: s !== undefined && counted.has(s),
    };
  });
  // no rounding of the axis past the grid: the curve ends where the axis does
  const x = {
    field: 'n',
    type: 'quantitative' as const,
    title: 'concurrency N = X × W',
    scale: { domain: [0, nMax], nice: false },
  };
  const layers: object[] = [
    {
      data: { values: curve },
      mark: { type: 'line', color: COLOR.model, strokeWidth: 2 },
      encoding: { x, y: { field: 'x', type: 'quantitative', title: `successful ${unit}` } },
    },
    verdictPoints(points, x, 'x'),
    ...stepLabels(points, x, nMax),
  ];
  const nStarShown = uslShowsNStar(run);
  if (nStarShown) {
    layers.push({
      data: {
        values: [{ n: fit.nStar, label: `N* = ${sig3(fit.nStar!)}, peak ${fmtRate(fit.peakPerSec!)} ${unit}` }],
      },
      layer: [
        {
          mark: { type: 'rule', color: COLOR.knee, strokeDash: [4, 3] },
          encoding: { x: { field: 'n', type: 'quantitative' } },
        },
        {
          // at the foot of the rule, on its inner side: the curve and the step labels are at the top near N*
          mark: {
            type: 'text',
            ...(fit.nStar! > nMax / 2 ? { align: 'right', dx: -4 } : { align: 'left', dx: 4 }),
            y: { expr: 'height - 8' },
            color: COLOR.knee,
            fontSize: 11,
          },
          encoding: { x: { field: 'n', type: 'quantitative' }, text: { field: 'label' } },
        },
      ],
    });
  }
  const beyond =
    fit.nStar !== null && fit.peakPerSec !== null && !nStarShown
      ? `; N* = ${sig3(fit.nStar)} (peak ${fmtRate(fit.peakPerSec)} ${unit}) lies beyond the measured N, not drawn`
      : '';
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Universal Scalability Law fit',
      subtitle: [
        `α = ${fit.alpha.toPrecision(3)}, β = ${fit.beta.toPrecision(3)}, γ = ${fmtRate(fit.gamma)} ${unit}, R² = ${fit.r2.toFixed(3)}`,
        `fitted to ${stepsText(fitted)}${uslScopeText(run)}${beyond}`,
      ],
    },
    width: WIDTH_PX,
    height: HEIGHT_PX,
    config: BASE_CONFIG,
    layer: layers,
  } as ChartSpec;
}
