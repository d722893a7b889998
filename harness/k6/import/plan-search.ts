/**
 * The coarse search for a stepped plan in an offered series: every period P and ramp R (whole
 * seconds, the plan starting at second 0), start and step solved by least squares, scored by the
 * squared difference per second compared. Each (P, R) costs O(steps) through prefix sums of the
 * series, so all of them cost O(N^2) for N seconds: 13 million segment sums for an hour. The best
 * few go on to plan-fit.ts, which places them to a twentieth of a second with the whole-second
 * blur. Pure.
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
  const Y = [0];
  const SY = [0];
  const YY = [0];
  for (let s = 0; s < endS; s++) {
    Y.push(Y[s] + y[s]);
    SY.push(SY[s] + s * y[s]);
    YY.push(YY[s] + y[s] * y[s]);
  }
  const best: Candidate[] = [];
  for (let P = minHoldS; P <= endS; P++) {
    for (let R = 0; R <= P - minHoldS; R++) {
      if (stepsSeen(endS, P, R, 0, minHoldS) < 2) continue;
      const m = { aa: 0, ab: 0, bb: 0, ay: 0, by: 0, yy: YY[endS] };
      for (let k = 0; k * P < endS; k++) {
        const s0 = k * P;
        // a ramp of u = 0 .. r - 1 of its R seconds: f = (u + 0.5) / R, sum of f r^2 / 2R, of f^2 (r^3 / 3 - r / 12) / R^2
        const r = Math.min(R, endS - s0);
        if (r > 0) {
          const Ys = Y[s0 + r] - Y[s0];
          const fy = (SY[s0 + r] - SY[s0] - (s0 - 0.5) * Ys) / R;
          const f1 = (r * r) / (2 * R);
          const f2 = (r ** 3 / 3 - r / 12) / (R * R);
          if (k === 0) {
            m.aa += f2;
            m.ay += fy;
          } else {
            m.aa += r;
            m.ab += r * (k - 1) + f1;
            m.bb += r * (k - 1) * (k - 1) + 2 * (k - 1) * f1 + f2;
            m.ay += Ys;
            m.by += (k - 1) * Ys + fy;
          }
        }
        const h0 = s0 + R;
        const len = Math.min(P - R, endS - h0);
        if (len <= 0) continue;
        const Yh = Y[h0 + len] - Y[h0];
        m.aa += len;
        m.ab += k * len;
        m.bb += k * k * len;
        m.ay += Yh;
        m.by += k * Yh;
      }
      const fit = solve2(m);
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
