/**
 * A stepped plan laid over the offered series second by second (each second the plan's mean rate
 * over it; with whole-second timestamps, blurred as their shared starts blur it), to a twentieth
 * of a second, from the coarse candidates of plan-search.ts. Mass is kept whichever way a second's
 * arrivals were shared, so the ramps' shape decides. Pure.
 */
import { solve2, stepsSeen, type Candidate } from './plan-search.ts';

/** A plan's levels, step after step without end (fitted as start x the plan of 1 + 0 plus step x that of 0 + 1). */
export interface PlanShape {
  startPerSec: number;
  stepPerSec: number;
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
  const k = Math.floor(tau / periodS);
  const holdS = periodS - rampS;
  // the whole steps before k: ramps (mean of the two levels) and holds
  const done = (rampS / 2) * (levelSum(k, p) + levelSum(k - 1, p)) + holdS * levelSum(k, p);
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

/**
 * Shifts of the plan's start tried, seconds: -1 to 3 by 0.05. t0 is the first vus point less a
 * second, its whole second with whole-second stamps, and k6 writes that point before it has
 * initialised its VUs (up to a second or two for thousands): the load starts up to 3 s after t0.
 */
const OFFSETS = Array.from({ length: 81 }, (_, i) => -1 + i * 0.05);

/**
 * The plan closest to `offered` over seconds [0, endS): each coarse candidate's period and ramp and
 * their neighbours (a second either way), the plan's start shifted by up to a second either way
 * (t0 is known to within one), its start and step solved by least squares at each, compared over
 * all of [0, endS) (the plan goes on past its last step: a run cut in a ramp fits it). Its steps
 * are those whose hold shows for 3 s (or all but a second of it, if shorter) before countEndS.
 */
export function placePlan(
  offered: readonly number[],
  endS: number,
  countEndS: number,
  candidates: readonly Candidate[],
  minHoldS: number,
  blurred = false,
): PlacedPlan | null {
  let best: PlacedPlan | null = null;
  const tried = new Set<string>();
  const A: PlanShape = { startPerSec: 1, stepPerSec: 0 };
  const B: PlanShape = { startPerSec: 0, stepPerSec: 1 };
  for (const c of candidates) {
    for (const periodS of [c.periodS, c.periodS - 1, c.periodS + 1]) {
      for (const rampS of [c.rampS, c.rampS - 1, c.rampS + 1]) {
        const key = `${periodS}/${rampS}`;
        if (rampS < 0 || periodS - rampS < minHoldS || tried.has(key)) continue;
        tried.add(key);
        for (const offsetS of OFFSETS) {
          const steps = stepsSeen(countEndS, periodS, rampS, offsetS, Math.min(minHoldS, periodS - rampS - 1));
          if (steps < 2) continue;
          const m = { aa: 0, ab: 0, bb: 0, ay: 0, by: 0, yy: 0 };
          for (let t = 0; t < endS; t++) {
            const a = expectedAt(t - offsetS, A, rampS, periodS, blurred);
            const b = expectedAt(t - offsetS, B, rampS, periodS, blurred);
            const v = offered[t];
            m.aa += a * a;
            m.ab += a * b;
            m.bb += b * b;
            m.ay += a * v;
            m.by += b * v;
            m.yy += v * v;
          }
          const fit = solve2(m);
          if (fit === null || fit.start <= 0 || fit.step <= 0) continue;
          const perSecond = fit.sse / endS;
          if (best === null || perSecond < best.perSecond - 1e-9)
            best = { periodS, rampS, offsetS, startPerSec: fit.start, stepPerSec: fit.step, steps, perSecond };
        }
      }
    }
  }
  return best;
}

export interface PlacedPlan {
  periodS: number;
  rampS: number;
  /** The plan's start, seconds after t0's second 0. */
  offsetS: number;
  /** Least-squares start and step, not yet rounded. */
  startPerSec: number;
  stepPerSec: number;
  /** Steps whose hold shows before the end of the series. */
  steps: number;
  perSecond: number;
}
