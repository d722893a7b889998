/**
 * The coarse search for a stepped plan in an offered series: every period P and ramp R (whole
 * seconds, the plan starting at second 0), start and step solved by least squares, scored by the
 * squared difference per second compared. Each (P, R) costs O(steps) through prefix sums of the
 * series, so all of them cost O(N^2) for N seconds: 11 million periods summed for an hour (about
 * 0.3 s here), 42 million for two (0.7 s); a day's series would take minutes. The best few go on
 * to plan-fit.ts, which places them to a twentieth of a second with the whole-second blur. Pure.
 *
 * The plan's mean rate over second s of period k (level_k = start + k x step, level_-1 = 0) is
 * start x a(s) + step x b(s), linear in (start, step):
 *   ramp second u (0 <= u < R), f = (u + 0.5) / R:  k = 0: a = f, b = 0;  k >= 1: a = 1, b = k - 1 + f
 *   hold second:                                    a = 1, b = k
 */

export interface Candidate {
  periodS: number;
  rampS: number;
  /** Squared difference per second compared, at the best start and step. */
  perSecond: number;
}

/** Steps whose hold shows at least this many seconds before `endS` (or the whole hold, if shorter) are the plan's. */
export function stepsSeen(endS: number, periodS: number, rampS: number, offsetS: number, minHoldS: number): number {
  const h = Math.min(minHoldS, periodS - rampS);
  const room = endS - offsetS - rampS - h;
  return room < 0 ? 0 : Math.floor(room / periodS) + 1;
}

/** Least squares of y ~ start x a + step x b from the sums; the squared difference left, or null when singular. */
export function solve2(m: {
  aa: number;
  ab: number;
  bb: number;
  ay: number;
  by: number;
  yy: number;
}): { start: number; step: number; sse: number } | null {
  const det = m.aa * m.bb - m.ab * m.ab;
  if (!(det > 1e-9 * Math.max(1, m.aa * m.bb))) return null;
  const start = (m.bb * m.ay - m.ab * m.by) / det;
  const step = (m.aa * m.by - m.ab * m.ay) / det;
  return { start, step, sse: Math.max(0, m.yy - start * m.ay - step * m.by) };
}

/**
 * The `keep` best (period, ramp) pairs, holds at least minHoldS, two steps seen at least, each
 * compared over all of [0, endS): the plan goes on past its last step seen (the next ramp, cut),
 * so no pair is scored on fewer seconds than another.
 */
export function coarseCandidates(y: readonly number[], endS: number, minHoldS: number, keep: number): Candidate[] {
  const Y = new Float64Array(endS + 1);
  const SY = new Float64Array(endS + 1);
  const YY = new Float64Array(endS + 1);
  for (let s = 0; s < endS; s++) {
    Y[s + 1] = Y[s] + y[s];
    SY[s + 1] = SY[s] + s * y[s];
    YY[s + 1] = YY[s] + y[s] * y[s];
  }
  const best: Candidate[] = [];
  const sums = { aa: 0, ab: 0, bb: 0, ay: 0, by: 0, yy: YY[endS] };
  for (let P = minHoldS; P <= endS; P++) {
    // two steps seen: a ramp at most endS - P - minHoldS (stepsSeen), and a hold of minHoldS at least
    const maxR = Math.min(P - minHoldS, endS - P - minHoldS);
    for (let R = 0; R <= maxR; R++) {
      let aa = 0;
      let ab = 0;
      let bb = 0;
      let ay = 0;
      let by = 0;
      for (let k = 0; k * P < endS; k++) {
        const s0 = k * P;
        // a ramp of u = 0 .. r - 1 of its R seconds: f = (u + 0.5) / R, sum of f r^2 / 2R, of f^2 (r^3 / 3 - r / 12) / R^2
        const r = Math.min(R, endS - s0);
        if (r > 0) {
          const Ys = Y[s0 + r] - Y[s0];
          const fy = (SY[s0 + r] - SY[s0] - (s0 - 0.5) * Ys) / R;
          const f1 = (r * r) / (2 * R);
          const f2 = ((r * r * r) / 3 - r / 12) / (R * R);
          if (k === 0) {
            aa += f2;
            ay += fy;
          } else {
            aa += r;
            ab += r * (k - 1) + f1;
            bb += r * (k - 1) * (k - 1) + 2 * (k - 1) * f1 + f2;
            ay += Ys;
            by += (k - 1) * Ys + fy;
          }
        }
        const h0 = s0 + R;
        const len = Math.min(P - R, endS - h0);
        if (len <= 0) continue;
        const Yh = Y[h0 + len] - Y[h0];
        aa += len;
        ab += k * len;
        bb += k * k * len;
        ay += Yh;
        by += k * Yh;
      }
      sums.aa = aa;
      sums.ab = ab;
      sums.bb = bb;
      sums.ay = ay;
      sums.by = by;
      const fit = solve2(sums);
      if (fit === null || fit.start <= 0 || fit.step <= 0) continue;
      const perSecond = fit.sse / endS;
      if (best.length < keep || perSecond < best[best.length - 1].perSecond) {
        best.push({ periodS: P, rampS: R, perSecond });
        best.sort((p, q) => p.perSecond - q.perSecond);
        if (best.length > keep) best.pop();
      }
    }
  }
  return best;
}
