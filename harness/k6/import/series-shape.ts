/**
 * The shape of an offered series before a plan is fitted to it (derive-steps.ts): where it stops
 * being at its top, and whether it held one rate only. Pure.
 */
import { edgeNoise, median, tolOf } from './offered-noise.ts';

/** Seconds either side of the top that its noise is measured over. */
const AROUND_TOP_S = 5;

/**
 * One past the last second at the series' top (its highest 3-second mean, less the tolerance or,
 * at whole-second timestamps, what the edges' noise measured around it allows if more), judged on
 * its whole seconds (up to fullEndS): a stepped plan ends at its top, so what falls after
 * it (k6 stages ramping down to 0) is no step, however many periods it lasts. A cut ramp to a next
 * step rises above it and is kept. Means, not medians: a second's count is off by what its edges
 * moved to its neighbours (output/offered.ts), which a sum of seconds cancels and a median does
 * not; a collapsed step's seconds at whole-second stamps read 209 to 256 for 240/s, and a median
 * of 3 cut its hold seconds short of its end.
 */
export function topEnd(
  offered: readonly number[],
  fullEndS: number,
  arrivalsEnd: number,
  wholeSeconds: boolean,
): number {
  // second 0 is left out of the means: the arrivals due before t0 are counted in it (a --t0 up to
  // a second late piles a second's more there)
  const mean3 = (t: number) => {
    const from = Math.max(1, t - 1);
    const to = Math.min(fullEndS, t + 2);
    let sum = 0;
    for (let s = from; s < to; s++) sum += offered[s];
    return sum / (to - from);
  };
  if (fullEndS < 2) return arrivalsEnd;
  let top = 0;
  let topS = 1;
  for (let t = 1; t < fullEndS; t++) {
    const m = mean3(t);
    if (m > top) [top, topS] = [m, t];
  }
  // two 3-second means differ by their four edges, 2/3 of an edge's noise: 3 of that is allowed
  const noise = wholeSeconds ? edgeNoise(offered, topS - AROUND_TOP_S, Math.min(fullEndS, topS + AROUND_TOP_S + 1)) : 0;
  const atTop = top - Math.max(tolOf(top, wholeSeconds), 2 * noise);
  let last = fullEndS - 1;
  while (last > 1 && mean3(last) < atTop) last--;
  if (last < fullEndS - 1) return last + 1;
  // at the top to its last whole second: the part seconds after it too while their 3-second median is
  const med = (t: number) => median([offered[t - 1], offered[t], offered[t + 1] ?? 0]);
  while (last + 1 < arrivalsEnd && med(last + 1) >= atTop) last++;
  return last + 1;
}

/**
 * One rate held from where the arrivals first reach it to the end (a constant-arrival-rate, or a
 * single stage; before it, if anything, a rise to it): its level (the seconds' median, rounded)
 * and where it starts; null when any second (its 3-second median) lies off it. A stepped plan's
 * steps differ by more than that spread (fitUpTo refuses smaller ones), so none fits.
 */
export function flatRate(
  offered: readonly number[],
  endS: number,
  wholeSeconds: boolean,
  minHoldS: number,
): { perSec: number; fromS: number } | null {
  if (endS < minHoldS) return null;
  const level = median(offered.slice(0, endS).filter((v) => v > 0));
  const tol = tolOf(level, wholeSeconds);
  const med = (t: number) => median([offered[Math.max(0, t - 1)], offered[t], offered[Math.min(endS - 1, t + 1)]]);
  const fromS = offered.findIndex((v) => Math.abs(v - level) <= tol);
  if (fromS < 0 || endS - fromS < minHoldS) return null;
  for (let t = 0; t < endS; t++) if (t < fromS ? offered[t] > level + tol : Math.abs(med(t) - level) > tol) return null;
  return { perSec: Math.round(level), fromS };
}
