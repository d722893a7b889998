/**
 * Gunther's Universal Scalability Law, fitted by Levenberg-Marquardt (ml-levenberg-marquardt):
 *
 *   X(N) = gamma N / (1 + alpha (N - 1) + beta N (N - 1))
 *
 * alpha: contention (the serial share), beta: coherency (crosstalk between N workers), gamma:
 * throughput at N = 1. With beta > 0 throughput peaks at N* = sqrt((1 - alpha) / beta) and falls
 * beyond it (retrograde scaling).
 *
 * Conditioning: the raw parameters differ by orders of magnitude (gamma ~ 10^2, beta ~ 10^-4), so
 * the fit runs on p = [gamma Nmax / Xmax, alpha Nmax, beta Nmax^2] against X / Xmax, where every
 * term is O(1) at N = Nmax. Start values come from Gunther's linearisation: with C = X / gamma0,
 * N / C - 1 = alpha (N - 1) + beta N (N - 1), a least-squares fit with two regressors.
 */
import { levenbergMarquardt } from 'ml-levenberg-marquardt';
import { NAME_RISE_FLOOR_MS } from '../names-knee.ts';
import type { LittleRow, UslFit } from '../types.ts';

export interface UslPoint {
  concurrency: number;
  throughputPerSec: number;
}
export interface UslParams {
  alpha: number;
  beta: number;
  gamma: number;
}

/** Fewest points a three-parameter fit is worth making from. */
export const USL_MIN_POINTS = 4;

/**
 * A fitted step's mean W more than this many times the step before it (and more than
 * QUEUE_RISE_FLOOR_MS above it) reads as a queue: N rose that many times faster than X did. Along
 * the law's rising branch W only grows with contention, about 2x from N = 1 to N* where alpha is
 * small; an open arrival rate past what the target serves queues instead, and W jumps by the queue
 * (a user's run held every step, and its last read N = 73.6 against 1.74 the step before, W 127 ms
 * against 3.66 ms on 1.22x the throughput: fitted, that step stretched the curve into a peak of
 * 1,772.4 arrivals/s, 3x the 580 measured).
 */
export const QUEUE_W_FACTOR = 4;
/** The few ms a mean must also rise by to read as a queue: a GC pause over a fast target's sub-ms mean multiplies it. */
export const QUEUE_RISE_FLOOR_MS = NAME_RISE_FLOOR_MS;

/** A row whose W jumped like a queue's over the row before it (see QUEUE_W_FACTOR). */
export function queuedOver(prev: LittleRow, row: LittleRow): boolean {
  return row.meanMs > QUEUE_W_FACTOR * prev.meanMs && row.meanMs - prev.meanMs > QUEUE_RISE_FLOOR_MS;
}

/**
 * The rows up to and including the knee (the last holding step) from the first whose N jumped like
 * a queue's (queuedOver) on: held, yet N there counts waiting requests as past the knee it does.
 * Empty without such a row.
 */
export function uslQueuedRows(little: readonly LittleRow[], kneeStep: number | null): LittleRow[] {
  if (kneeStep === null) return [];
  const upTo = little.filter((r) => r.index <= kneeStep);
  const first = upTo.findIndex((r, i) => i > 0 && queuedOver(upTo[i - 1], r));
  return first === -1 ? [] : upTo.slice(first);
}

/**
 * The rows the law is fitted to: the steps up to and including the knee (the last holding step),
 * short of any whose N jumped like a queue's (uslQueuedRows). Past the knee the target is
 * saturated: arrivals queue, W grows with the queue and N = X x W counts waiting requests, not
 * concurrency served (a demo queue at 400 req/s reads N of 370 at one second of wait), so a fit
 * that took them would stretch the curve over a queue and predict a peak no step reached. Empty
 * without a knee (no step held).
 */
export function uslFitRows(little: readonly LittleRow[], kneeStep: number | null): LittleRow[] {
  if (kneeStep === null) return [];
  const queued = new Set(uslQueuedRows(little, kneeStep));
  return little.filter((r) => r.index <= kneeStep && !queued.has(r));
}

/** X(N) of the law. */
export function uslThroughput(p: UslParams, n: number): number {
  return (p.gamma * n) / (1 + p.alpha * (n - 1) + p.beta * n * (n - 1));
}

/** N* = sqrt((1 - alpha) / beta), null when there is no interior peak (beta 0 or alpha >= 1). */
export function uslPeakConcurrency(p: UslParams): number | null {
  if (!(p.beta > 0) || p.alpha >= 1) return null;
  return Math.sqrt((1 - p.alpha) / p.beta);
}

/** R^2 = 1 - SS_res / SS_tot on X. */
function rSquared(points: readonly UslPoint[], p: UslParams): number {
  const mean = points.reduce((a, q) => a + q.throughputPerSec, 0) / points.length;
  let res = 0,
    tot = 0;
  for (const q of points) {
    res += (q.throughputPerSec - uslThroughput(p, q.concurrency)) ** 2;
    tot += (q.throughputPerSec - mean) ** 2;
  }
  if (tot === 0) return res === 0 ? 1 : 0;
  return 1 - res / tot;
}

/** Least squares y = a u + b v without intercept (2x2 normal equations); null when singular. */
function twoRegressors(u: readonly number[], v: readonly number[], y: readonly number[]): [number, number] | null {
  let uu = 0,
    uv = 0,
    vv = 0,
    uy = 0,
    vy = 0;
  for (let i = 0; i < y.length; i++) {
    uu += u[i] * u[i];
    uv += u[i] * v[i];
    vv += v[i] * v[i];
    uy += u[i] * y[i];
    vy += v[i] * y[i];
  }
  const det = uu * vv - uv * uv;
  if (Math.abs(det) < 1e-12 * Math.max(1, uu * vv)) return null;
  return [(uy * vv - vy * uv) / det, (vy * uu - uy * uv) / det];
}

/** Start values from the linearisation, gamma0 = the largest X / N (the least contended point). */
function startValues(points: readonly UslPoint[]): UslParams {
  const gamma = Math.max(...points.map((q) => q.throughputPerSec / q.concurrency));
  const ys = points.map((q) => q.concurrency / (q.throughputPerSec / gamma) - 1);
  const ab = twoRegressors(
    points.map((q) => q.concurrency - 1),
    points.map((q) => q.concurrency * (q.concurrency - 1)),
    ys,
  );
  return { gamma, alpha: Math.min(0.99, Math.max(0, ab?.[0] ?? 0.05)), beta: Math.max(0, ab?.[1] ?? 0) };
}

interface Scale {
  nMax: number;
  xMax: number;
}

const toP = (p: UslParams, s: Scale): number[] => [
  (p.gamma * s.nMax) / s.xMax,
  p.alpha * s.nMax,
  p.beta * s.nMax * s.nMax,
];
const fromP = (q: readonly number[], s: Scale): UslParams => ({
  gamma: (q[0] * s.xMax) / s.nMax,
  alpha: q[1] / s.nMax,
  beta: q[2] / (s.nMax * s.nMax),
});

/** One LM run from `start`; the model and its analytic Jacobian are in scaled form (see above). */
function fitFrom(points: readonly UslPoint[], start: UslParams, s: Scale): UslParams {
  const x = points.map((q) => q.concurrency / s.nMax);
  const y = points.map((q) => q.throughputPerSec / s.xMax);
  const denom = ([, a, b]: number[], u: number) => 1 + (a * (u * s.nMax - 1)) / s.nMax + b * u * (u - 1 / s.nMax);
  const model = (q: number[]) => (u: number) => (q[0] * u) / denom(q, u);
  const jacobian = (q: number[]) => (u: number) => {
    const d = denom(q, u);
    const f = (q[0] * u) / (d * d);
    return [u / d, -f * (u - 1 / s.nMax), -f * u * (u - 1 / s.nMax)];
  };
  const result = levenbergMarquardt({ x, y }, model, {
    initialValues: toP(start, s),
    minValues: [1e-9, 0, 0],
    maxValues: [1e9, s.nMax, 1e9],
    jacobianFunction: jacobian,
    damping: 1e-2,
    maxIterations: 500,
    errorTolerance: 1e-12,
  });
  return fromP(result.parameterValues, s);
}

/** Sum of squared residuals in X. */
function sse(points: readonly UslPoint[], p: UslParams): number {
  return points.reduce((acc, q) => acc + (q.throughputPerSec - uslThroughput(p, q.concurrency)) ** 2, 0);
}

/**
 * A fitted N within this factor of N* makes the predicted peak a measured region's. Past this
 * factor times the largest fitted N no peak is predicted at all (UslFit.nStarFar): the curve
 * there rests on no step, and it turned on the noise of the first steps (two runs of one target
 * and settings, fitted to 4 and 5 steps, read peaks of 153.8 and 249.1 arrivals/s, N* 1.2x and
 * 2.9x the largest N; the capacity was 154).
 */
export const NEAR_N_FACTOR = 2;

/**
 * A predicted peak more than this many times the highest throughput a fitted step measured is not
 * given (UslFit.peakFar): no step came near it, and a curve through a gap reaches it on the
 * parameters alone (fitted 3.9 and 56, N* 16 between them, a peak of 438/s where 228 was all the
 * target gave; a held queue at N = 73.6, 1,772.4/s where 580 was).
 */
export const PEAK_X_FACTOR = 1.5;

/**
 * The fitted Ns either side of N* when none lies within NEAR_N_FACTOR of it (a gap the curve
 * crosses with no step: fitted 3.9 and 56, N* 16, a peak of 438/s where 228 was all the target
 * gave); null when a step lies near N*.
 */
function gapAround(nStar: number, points: readonly { concurrency: number }[]): [number, number] | null {
  const ns = points.map((q) => q.concurrency);
  if (ns.some((n) => n >= nStar / NEAR_N_FACTOR && n <= nStar * NEAR_N_FACTOR)) return null;
  const below = ns.filter((n) => n < nStar);
  const above = ns.filter((n) => n > nStar);
  return [below.length ? Math.max(...below) : 0, above.length ? Math.min(...above) : Infinity];
}

/** A point the fit can use: some concurrency and throughput. */
export function usableUslPoint(q: UslPoint): boolean {
  return q.concurrency > 0 && q.throughputPerSec > 0 && Number.isFinite(q.concurrency);
}

/**
 * The best of a few LM runs (from the linearisation and two generic starts). Null, with a reason,
 * when too few usable points exist or no run converges to finite parameters. `scope` names the
 * points in the note ("fitted to 8 <scope>").
 */
export function fitUsl(
  all: readonly UslPoint[],
  scope: string = "steps (N from Little's law)",
): { fit: UslFit | null; note: string } {
  const points = all.filter(usableUslPoint);
  if (points.length < USL_MIN_POINTS) {
    return {
      fit: null,
      note: `not fitted: needs at least ${USL_MIN_POINTS} ${scope} with throughput and latency, has ${points.length}`,
    };
  }
  const s: Scale = {
    nMax: Math.max(...points.map((q) => q.concurrency)),
    xMax: Math.max(...points.map((q) => q.throughputPerSec)),
  };
  const linear = startValues(points);
  const starts: UslParams[] = [
    linear,
    { ...linear, alpha: 0.1, beta: 0 },
    { ...linear, alpha: 0.01, beta: 1 / (s.nMax * s.nMax) },
  ];
  const fits = starts
    .map((start) => fitFrom(points, start, s))
    .filter((p) => [p.alpha, p.beta, p.gamma].every(Number.isFinite));
  if (fits.length === 0) return { fit: null, note: 'not fitted: the optimiser did not converge to finite parameters' };
  const best = fits.reduce((a, b) => (sse(points, b) < sse(points, a) ? b : a));
  const nStar = uslPeakConcurrency(best);
  const gap = nStar === null || nStar > s.nMax ? null : gapAround(nStar, points);
  const far = nStar !== null && nStar > NEAR_N_FACTOR * s.nMax;
  const peak = nStar === null || far ? null : uslThroughput(best, nStar);
  const peakFar = peak !== null && peak > PEAK_X_FACTOR * s.xMax;
  return {
    fit: {
      ...best,
      nStar,
      peakPerSec: peakFar ? null : peak,
      ...(far ? { nStarFar: true as const } : {}),
      ...(peakFar ? { peakFar: true as const } : {}),
      maxN: s.nMax,
      extrapolated: nStar !== null && (nStar > s.nMax || gap !== null),
      ...(gap ? { gapN: gap } : {}),
      r2: rSquared(points, best),
      points: points.length,
    },
    note: `fitted to ${points.length} ${scope}`,
  };
}
