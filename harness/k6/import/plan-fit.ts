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

/** The plan's rate at tau seconds after its start: a ramp from the level before (0 before step 1) to each step's, then its hold. */
function rateAt(tau: number, p: PlanShape, rampS: number, periodS: number): number {
  if (tau < 0) return 0;
  const k = Math.floor(tau / periodS);
  if (k >= p.steps) return 0;
  const level = p.startPerSec + k * p.stepPerSec;
  const before = k === 0 ? 0 : level - p.stepPerSec;
  const into = tau - k * periodS;
  return into < rampS ? before + ((level - before) * into) / rampS : level;
}

const SAMPLES_PER_SECOND = 10;

/** The plan's mean rate over [from, from + 1). */
function meanOver(from: number, p: PlanShape, rampS: number, periodS: number): number {
  let sum = 0;
  for (let j = 0; j < SAMPLES_PER_SECOND; j++) sum += rateAt(from + (j + 0.5) / SAMPLES_PER_SECOND, p, rampS, periodS);
  return sum / SAMPLES_PER_SECOND;
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

/** Shifts of the plan's start tried, seconds (t0 is known to within a second). */
const OFFSETS = [-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1];

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
): { rampS: number; holdS: number; offsetS: number } | null {
  let best: { rampS: number; holdS: number; offsetS: number; sse: number } | null = null;
  for (const periodS of [periodGuessS, periodGuessS - 1, periodGuessS + 1]) {
    for (let rampS = 0; periodS - rampS >= minHoldS; rampS++) {
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
