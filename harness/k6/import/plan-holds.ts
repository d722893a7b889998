/**
 * The holds of a plan placed over an offered series (derive-steps.ts): each one's seconds, the
 * rate they offered and how noisy they are; and the plan's start and step, the line through them.
 * Pure.
 */
import type { PlacedPlan } from './plan-fit.ts';
import { edgeNoise, secondNoise } from './offered-noise.ts';
import { roundest } from './roundest.ts';

/** A hold of the derived plan: its seconds in the series and the mean rate they offered. */
export interface Hold {
  fromS: number;
  toS: number;
  ratePerSec: number;
}

export interface HoldSeconds {
  hold: Hold;
  /** Its inner seconds (its edges left out when it has 3 or more), whose mean is its rate. */
  seconds: number[];
  /** The seconds judged for a trend. */
  flat: number[];
  /** With whole-second timestamps, what an edge between its seconds moves, as they measure it (edgeNoise); else 0. */
  edgeSd: number;
}

/** The holds of the plan over the series: each one's whole seconds, its own edges left out (partly ramp, or blurred). */
export function holdsOf(
  offered: readonly number[],
  plan: PlacedPlan,
  endS: number,
  wholeSeconds: boolean,
): HoldSeconds[] {
  const out: HoldSeconds[] = [];
  for (let k = 0; k < plan.steps; k++) {
    const fromS = Math.max(0, Math.ceil(plan.offsetS + k * plan.periodS + plan.rampS));
    const toS = Math.min(endS, Math.floor(plan.offsetS + (k + 1) * plan.periodS));
    const whole = offered.slice(fromS, toS);
    const inner = whole.length >= 3 ? whole.slice(1, -1) : whole;
    const rate = inner.reduce((a, v) => a + v, 0) / Math.max(1, inner.length);
    // judged flat over its inner seconds, or all of them when fewer than 3 are inner
    out.push({
      hold: { fromS, toS, ratePerSec: Math.round(rate) },
      seconds: inner,
      flat: inner.length >= 3 ? inner : whole,
      // a collapsed step's seconds stray many times further than a second's known noise; measured
      // on all its seconds: its inner ones alone (4 of a 6 s hold) too often read it low
      edgeSd: wholeSeconds ? edgeNoise(offered, fromS, toS) : 0,
    });
  }
  return out;
}

/**
 * Start and step: the least-squares line through the holds' means (each hold's own seconds, its
 * edges left out: an edge second that took in a part of the ramp, or the arrivals before t0, moves
 * none), each weighted by its certainty, so a hold a cut left short counts little; each rounded to
 * the roundest whole number within two standard errors. A hold's mean is uncertain by about its
 * edges' noise x sqrt(2) / its seconds (what its two edges share with their neighbours): 0.9/s
 * for 15 s at 1000/s with whole-second timestamps, too much to round to the nearest whole number,
 * and people write plans in round numbers (1000, not 999). A collapsed step's noise, measured,
 * weighs its hold less: taken as a second's known noise, a 320/s hold read 324 weighed as much as
 * a clean one, and the plan read 80 + i x 82.
 */
export function levels(holds: readonly HoldSeconds[], wholeSeconds: boolean) {
  let sw = 0;
  let swx = 0;
  let swxx = 0;
  let swy = 0;
  let swxy = 0;
  holds.forEach((h, x) => {
    const len = Math.max(1, h.seconds.length);
    const y = h.seconds.reduce((a, v) => a + v, 0) / len;
    const w = 1 / (meanSd(h, y, wholeSeconds) / len) ** 2;
    sw += w;
    swx += w * x;
    swxx += w * x * x;
    swy += w * y;
    swxy += w * x * y;
  });
  const d = sw * swxx - swx * swx;
  const slope = (sw * swxy - swx * swy) / d;
  const intercept = (swy - slope * swx) / sw;
  const within = (se: number) => (wholeSeconds ? 2 * se : 0);
  return {
    startPerSec: roundest(intercept, within(Math.sqrt(swxx / d))),
    stepPerSec: roundest(slope, within(Math.sqrt(sw / d))),
  };
}

/** What a hold's mean is uncertain by, times its seconds: its edges' noise (known, or measured if more) x sqrt(2). */
export function meanSd(h: HoldSeconds, ratePerSec: number, wholeSeconds: boolean): number {
  return Math.SQRT2 * Math.max(secondNoise(ratePerSec, wholeSeconds), h.edgeSd);
}
