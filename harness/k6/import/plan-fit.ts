/**
 * The ramp and hold of a stepped plan, fitted to the whole offered series rather than read off the
 * holds' edges. A hold found by its flat rate may lose or gain an edge second (a second partly
 * ramp; whole-second timestamps, which share each iteration's start between two seconds), so its
 * length, and the gaps between holds, are each up to two seconds off; the holds' rates and centres
 * are not. Here every candidate (period near the centres' slope, each split of it into ramp and
 * hold, the plan's start shifted by up to a second either way) is laid over the offered series
 * second by second (each second the plan's mean rate over it), and the one with the least squared
 * difference wins. Mass is kept whichever way a second's arrivals were shared, so the ramps' shape
 * decides. Pure.
 */

export interface PlanShape {
  startPerSec: number;
  stepPerSec: number;
  /** The number of holds (steps) in the plan. */
  steps: number;
}

/** Arrivals of levels 0..k-1 together: k x start + step x k(k-1)/2 (0 for k <= 0). */
function levelSum(k: number, p: PlanShape): number {
  return k <= 0 ? 0 : k * p.startPerSec + (p.stepPerSec * k * (k - 1)) / 2;
}

/**
 * Arrivals the plan has made by tau seconds after its start (the integral of its rate): each step
 * a ramp from the level before (0 before step 1) to its own over rampS, then its hold.
 */
function arrivalsBy(tau: number, p: PlanShape, rampS: number, periodS: number): number {
  if (tau <= 0) return 0;
  const k = Math.min(Math.floor(tau / periodS), p.steps);
  const holdS = periodS - rampS;
  // the whole steps before k: ramps (mean of the two levels) and holds
  const done = (rampS / 2) * (levelSum(k, p) + levelSum(k - 1, p)) + holdS * levelSum(k, p);
  if (k >= p.steps) return done;
  const level = p.startPerSec + k * p.stepPerSec;
  const before = k === 0 ? 0 : level - p.stepPerSec;
  const into = tau - k * periodS;
  if (into < rampS) return done + before * into + ((level - before) * into * into) / (2 * rampS);
  return done + (rampS * (before + level)) / 2 + level * (into - rampS);
}

/** The plan's mean rate over [from, from + 1). */
function meanOver(from: number, p: PlanShape, rampS: number, periodS: number): number {
  return arrivalsBy(from + 1, p, rampS, periodS) - arrivalsBy(from, p, rampS, periodS);
}

/**
 * Whole-second timestamps: an iteration's start is shared over the second from (its stamp - its
 * duration), which lies up to a second before its true start; the share it gives a second is then
 * its true start moved by the difference of two uniform [0, 1) draws: a triangle on (-1, 1).
 */
const BLUR = [-0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75].map((z) => ({ z, w: (1 - Math.abs(z)) / 4 }));

/** What a second of the offered series reads under the plan (blurred: whole-second timestamps). */
function expectedAt(from: number, p: PlanShape, rampS: number, periodS: number, blurred: boolean): number {
  if (!blurred) return meanOver(from, p, rampS, periodS);
  let sum = 0;
  for (const { z, w } of BLUR) sum += w * meanOver(from - z, p, rampS, periodS);
  return sum;
}

/** Shifts of the plan's start tried, seconds (t0 is known to within a second): -1 to 1 by 0.05. */
const OFFSETS = Array.from({ length: 41 }, (_, i) => -1 + i * 0.05);

/** Periods up to this try every ramp; a longer one tries the ramps within RAMP_SPREAD_S of the gaps' estimate. */
const ALL_RAMPS_UP_TO_S = 40;
const RAMP_SPREAD_S = 3;

/**
 * The ramp and hold (whole seconds, hold >= minHoldS) whose plan lies closest to `offered`, with
 * the start's shift; periods tried: periodGuessS and a second either side. Only the plan's own
 * seconds are compared (its last hold's end on: a graceful stop, or nothing).
 */
export function fitRampHold(
  offered: readonly number[],
  p: PlanShape,
  periodGuessS: number,
  minHoldS: number,
  blurred = false,
  rampGuessS = 0,
): { rampS: number; holdS: number; offsetS: number } | null {
  let best: { rampS: number; holdS: number; offsetS: number; sse: number } | null = null;
  for (const periodS of [periodGuessS, periodGuessS - 1, periodGuessS + 1]) {
    const few = periodS > ALL_RAMPS_UP_TO_S;
    const fromR = few ? Math.max(0, Math.round(rampGuessS) - RAMP_SPREAD_S) : 0;
    const toR = few ? Math.round(rampGuessS) + RAMP_SPREAD_S : periodS;
    for (let rampS = fromR; rampS <= toR && periodS - rampS >= minHoldS; rampS++) {
      for (const offsetS of OFFSETS) {
        const endS = Math.min(offered.length, Math.floor(p.steps * periodS + offsetS));
        let sse = 0;
        for (let t = 0; t < endS; t++) sse += (offered[t] - expectedAt(t - offsetS, p, rampS, periodS, blurred)) ** 2;
        // the same error over fewer seconds is no better: per second compared
        sse /= Math.max(1, endS);
        if (best === null || sse < best.sse - 1e-9) best = { rampS, holdS: periodS - rampS, offsetS, sse };
      }
    }
  }
  return best && { rampS: best.rampS, holdS: best.holdS, offsetS: best.offsetS };
}
