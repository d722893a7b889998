/**
 * Derives the stepped plan of an imported k6 run from its own data, for when the user does not
 * give it. The offered rate is in the arrivals, never in what completed: each second's iterations
 * started plus dropped_iterations, both at the second they were due (the ingest's offeredPerS,
 * which neither an iteration longer than the buckets wait for nor whole-second CSV timestamps
 * shift: bucketizer.ts). It is flat during a hold and moves during a ramp, also in a step whose
 * target collapsed (what it could not serve was dropped, and a drop is an arrival).
 *
 *   hold   = a maximal run of >= 3 seconds whose offered rates stay within tol of each other,
 *            tol = max(2, 3% of the rate)
 *   rate   = the median of the run's seconds (an edge second that was partly ramp, or a second
 *            that whole-second timestamps made one arrival richer or poorer, does not move it)
 *   ramp, hold = the split of the period (the least-squares slope of the holds' centres, or a
 *            second either side) whose plan lies closest to the whole offered series
 *            (plan-fit.ts): a hold's edges and the gaps between holds are each up to two
 *            seconds off, whole-second timestamps blurring them most
 *   start, step = the least-squares line rate_i = start + i x step through the holds' rates,
 *            each rounded: a hold 1/s off (239 for 240) moves neither
 *
 * Pure; returns a `steps` config section when every hold lies within tol of start + i x step and
 * centred within 1.5 s of its place with equal ramps and holds, else says why not (the user then passes the
 * step flags).
 */
import type { BucketRecord } from '../../../analysis/types.ts';
import { fitRampHold } from './plan-fit.ts';

export interface DerivedSteps {
  startPerSec: number;
  stepPerSec: number;
  maxPerSec: number;
  rampS: number;
  holdS: number;
}

interface Hold {
  fromS: number;
  toS: number;
  ratePerSec: number;
}

const MIN_HOLD_S = 3;
/**
 * How far a found hold's centre may lie from the fitted plan's: its edge seconds may each be partly
 * ramp, or blurred by whole-second stamps, which shortens a hold from both ends, moving its start
 * by up to two seconds but its centre by less.
 */
const POSITION_TOL_S = 1.5;

/**
 * How far a hold's seconds may differ: 3% of the rate, at least 2; with whole-second timestamps at
 * least sqrt(rate) / 2 too, for the share of each iteration's start between two seconds makes a
 * steady rate's seconds vary by about sqrt(rate / 12) (rate 50: 49.1 to 51.8).
 */
function tolOf(ratePerSec: number, wholeSeconds = false): number {
  return Math.max(2, 0.03 * ratePerSec, wholeSeconds ? Math.sqrt(ratePerSec) / 2 : 0);
}

/**
 * Offered arrivals per second from stored buckets, indexed by tS (missing seconds are 0): what an
 * import without the ingest's own tally has (an iteration counted late sits in a later bucket).
 */
export function offeredPerSecond(records: readonly BucketRecord[]): number[] {
  const out: number[] = [];
  for (const r of records) out[r.tS] = (out[r.tS] ?? 0) + r.started + r.dropped;
  return Array.from(out, (v) => v ?? 0);
}

export function findHolds(offered: readonly number[], wholeSeconds = false): Hold[] {
  const holds: Hold[] = [];
  let from = 0;
  for (let t = 1; t <= offered.length; t++) {
    const run = offered.slice(from, t + 1);
    const flat = t < offered.length && Math.max(...run) - Math.min(...run) <= tolOf(Math.max(...run), wholeSeconds);
    if (flat) continue;
    if (t - from >= MIN_HOLD_S && offered[from] > 0) {
      const last = holds.at(-1);
      const rate = rateOf(offered.slice(from, t), wholeSeconds);
      // grown greedily, a hold can end at an edge second that the next run then starts from: two
      // runs that touch at the same rate are one hold (a step with no ramp before it differs by a step)
      if (
        last &&
        last.toS === from &&
        Math.abs(last.ratePerSec - rate) <= tolOf(Math.max(last.ratePerSec, rate), wholeSeconds)
      )
        holds[holds.length - 1] = {
          ...last,
          toS: t,
          ratePerSec: Math.round(rateOf(offered.slice(last.fromS, t), wholeSeconds)),
        };
      else holds.push({ fromS: from, toS: t, ratePerSec: Math.round(rate) });
    }
    from = t;
  }
  return holds;
}

/**
 * A hold's rate: the median of its seconds (an edge second partly ramp does not move it); with
 * whole-second timestamps, whose shared starts make every second vary a little, the mean of its
 * seconds but the first and last (its blurred edges), which that noise moves less.
 */
function rateOf(seconds: readonly number[], wholeSeconds: boolean): number {
  if (!wholeSeconds || seconds.length < 5) return median(seconds);
  const inner = seconds.slice(1, -1);
  return inner.reduce((a, v) => a + v, 0) / inner.length;
}

function median(values: readonly number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** The least-squares line y_i = intercept + i x slope through values y_0, y_1, ... */
function lineThrough(ys: readonly number[]): { intercept: number; slope: number } {
  const meanI = (ys.length - 1) / 2;
  const meanY = ys.reduce((a, y) => a + y, 0) / ys.length;
  let cov = 0;
  let varI = 0;
  ys.forEach((y, i) => {
    cov += (i - meanI) * (y - meanY);
    varI += (i - meanI) ** 2;
  });
  const slope = cov / varI;
  return { intercept: meanY - slope * meanI, slope };
}

/** rate_i = start + i x step over the holds (i = 0, 1, ...), both rounded. */
function fitLine(rates: readonly number[]): { startPerSec: number; stepPerSec: number } {
  const { intercept, slope } = lineThrough(rates);
  return { startPerSec: Math.round(intercept), stepPerSec: Math.round(slope) };
}

/** The period (ramp + hold) the holds' centres are spaced by: their least-squares slope, rounded. */
function periodOf(holds: readonly Hold[]): number {
  return Math.round(lineThrough(holds.map((h) => (h.fromS + h.toS) / 2)).slope);
}

/**
 * @param offered arrivals due per second (IngestStats.offeredPerS); from the records when absent.
 * @param wholeSeconds the output's timestamps are whole seconds (IngestStats.wholeSeconds): its
 *   iterations' starts are blurred over two seconds, which the fit of the ramps allows for.
 */
export function deriveSteps(
  records: readonly BucketRecord[],
  offered: readonly number[] = offeredPerSecond(records),
  wholeSeconds = false,
): { steps: DerivedSteps; holds: Hold[] } | { steps: null; why: string } {
  const holds = findHolds(offered, wholeSeconds);
  if (holds.length < 2)
    return { steps: null, why: `found ${holds.length} hold(s) of a steady offered rate; a stepped run has at least 2` };
  const { startPerSec, stepPerSec } = fitLine(holds.map((h) => h.ratePerSec));
  if (stepPerSec <= 0 || startPerSec <= 0)
    return {
      steps: null,
      why: `the holds' rates do not rise from a start above 0 (${holds.map((h) => h.ratePerSec).join(', ')} arrivals/s)`,
    };
  const shape = { startPerSec, stepPerSec, steps: holds.length };
  const gaps = holds.slice(1).map((h, i) => h.fromS - holds[i].toS);
  const fit = fitRampHold(offered, shape, periodOf(holds), MIN_HOLD_S, wholeSeconds, median(gaps));
  if (fit === null)
    return {
      steps: null,
      why: `the holds (${holds.map((h) => `${h.fromS}-${h.toS} s`).join(', ')}) leave no room for a ramp and a hold`,
    };
  const { rampS, holdS, offsetS } = fit;
  const off = holds.find(
    (h, i) =>
      Math.abs(h.ratePerSec - (startPerSec + i * stepPerSec)) > tolOf(h.ratePerSec, wholeSeconds) ||
      Math.abs((h.fromS + h.toS) / 2 - (offsetS + rampS + holdS / 2 + i * (rampS + holdS))) > POSITION_TOL_S,
  );
  if (off) {
    return {
      steps: null,
      why: `the holds (${holds.map((h) => `${h.ratePerSec}/s at ${h.fromS}-${h.toS} s`).join(', ')}) are not start + i x step with ${rampS} s ramps and ${holdS} s holds`,
    };
  }
  return {
    steps: { startPerSec, stepPerSec, maxPerSec: startPerSec + (holds.length - 1) * stepPerSec, rampS, holdS },
    holds,
  };
}
