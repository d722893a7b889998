/**
 * How much an imported run's offered arrivals per second may vary and still be one rate: the
 * tolerance of a hold's seconds, the noise of one second's count (whole-second timestamps blur each
 * iteration's start over two seconds), whether seconds trend (a ramp, not a hold), and the small
 * statistics they use. Pure: derive-steps.ts fits a plan with them, plan-check.ts and
 * ended-early.ts judge one.
 */

/**
 * How far a hold's seconds may differ: 3% of the rate, at least 2; with whole-second timestamps at
 * least sqrt(rate) / 2 too, for the share of each iteration's start between two seconds makes a
 * steady rate's seconds vary by about sqrt(rate / 12) (rate 50: 49.1 to 51.8).
 */
export function tolOf(ratePerSec: number, wholeSeconds = false): number {
  return Math.max(2, 0.03 * ratePerSec, wholeSeconds ? Math.sqrt(ratePerSec) / 2 : 0);
}

/**
 * The noise of one second's offered count at this rate: whole-second timestamps share each
 * iteration's start between two seconds, about sqrt(rate / 12); otherwise the count's rounding.
 */
export function secondNoise(ratePerSec: number, wholeSeconds: boolean): number {
  return wholeSeconds ? Math.sqrt(Math.max(1, ratePerSec) / 12) : 0.3;
}

/**
 * With whole-second timestamps, what an edge between seconds [fromS, toS) of a hold moves to a
 * neighbour (its standard deviation), as those seconds measure it. secondNoise holds where an
 * iteration's start lies anywhere in its span; where starts and drops take turns (a collapsed step)
 * the starts are read off their seconds and the drops on them, and a collapsed 240/s hold read 209
 * to 256 where sqrt(240 / 12) is 4.5. A second's count is its rate plus the edge after it less the
 * one before, so the differences of neighbouring seconds (their mean, a trend, taken out) are
 * e2 - 2 e1 + e0, of 6 times an edge's variance. 0 for fewer than 3 seconds.
 */
export function edgeNoise(offered: readonly number[], fromS: number, toS: number): number {
  const d: number[] = [];
  for (let t = Math.max(0, fromS); t + 1 < toS; t++) d.push(offered[t + 1] - offered[t]);
  if (d.length < 2) return 0;
  const mean = d.reduce((a, v) => a + v, 0) / d.length;
  return Math.sqrt(d.reduce((a, x) => a + (x - mean) ** 2, 0) / (d.length - 1) / 6);
}

/**
 * With millisecond stamps, how far an edge between two seconds may move a second's count: an
 * arrival either side of it (k6 starts an arrival a few ms off its schedule), at even odds.
 */
const EDGE_NOISE = 0.5;

/**
 * Seconds that rise (or fall) across the run by more than half its tolerance, by their
 * least-squares slope, and by more than three standard errors of it: a continuous ramp laid out as
 * short holds, not a stepped plan. The standard error is from the larger of a second's known noise
 * (secondNoise) and the seconds' own scatter (from 4 seconds on), so a short hold at whole seconds
 * is not taken for a ramp by chance; with millisecond stamps, at least that of whole arrivals
 * moving across the seconds' edges (EDGE_NOISE), which a hold's two ends share with its neighbours:
 * a hold of 60/s read 59, 60, 60, 60, 60, 61 (one arrival either side of its two ends) and was
 * refused as a rise from 59 to 61/s, as 3 of 30 clean runs of 20 to 80/s and 9 of 30 of 10 to 50/s
 * were (decision 071).
 */
export function trends(seconds: readonly number[], wholeSeconds: boolean, edgeSd = 0): boolean {
  const n = seconds.length;
  const { intercept, slope } = lineThrough(seconds);
  const mean = seconds.reduce((a, v) => a + v, 0) / n;
  if (Math.abs(slope) * (n - 1) <= tolOf(Math.max(...seconds), wholeSeconds) / 2) return false;
  let sxx = 0;
  let sse = 0;
  seconds.forEach((v, i) => {
    sxx += (i - (n - 1) / 2) ** 2;
    sse += (v - intercept - slope * i) ** 2;
  });
  const sigma = Math.max(secondNoise(mean, wholeSeconds), n >= 4 ? Math.sqrt(sse / (n - 2)) : 0, Math.SQRT2 * edgeSd);
  // an edge's arrival moves one second's count up and the next one's down: the slope sees the two
  // outer edges with weight (n - 1) / 2 each and every inner one with weight 1
  const edges = wholeSeconds ? 0 : (EDGE_NOISE * Math.sqrt((n - 1) ** 2 / 2 + n - 1)) / sxx;
  return Math.abs(slope) > 3 * Math.max(sigma / Math.sqrt(sxx), edges);
}

/** The least-squares line y_i = intercept + i x slope through values y_0, y_1, ... */
export function lineThrough(ys: readonly number[]): { intercept: number; slope: number } {
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

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}
