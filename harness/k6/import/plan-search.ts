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

/** The plan without its last step seen is taken only when it fits this many times better per second. */
export const FEWER_GAIN = 4;

/**
 * The plan without its last step seen fits so much better (FEWER_GAIN times, and by more than an
 * arrival a second squared: an exact series fits both to rounding) that the step was not one.
 */
export function fewerFits(all: number, fewer: number | null): boolean {
  return fewer !== null && all > 1 && fewer < all / FEWER_GAIN;
}

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

/** The `keep` best (period, ramp) pairs, holds at least minHoldS, two steps at least, over seconds [0, endS). */
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
      const n = stepsSeen(endS, P, R, 0, minHoldS);
      if (n < 2) continue;
      const W = Math.min(endS, n * P);
      const m = { aa: 0, ab: 0, bb: 0, ay: 0, by: 0, yy: 0 };
      const F1 = R / 2;
      const F2 = R > 0 ? R / 3 - 1 / (12 * R) : 0;
      let fewer: number | null = null;
      for (let k = 0; k < n; k++) {
        // the plan without its last step seen (fewerFits): what follows the last hold may pass for a
        // step, when it offered less than that plan's next step would have (a ramp down, a cut)
        if (k === n - 1 && k >= 2) {
          const f = solve2({ ...m, yy: YY[k * P] });
          if (f && f.start > 0 && f.step > 0) {
            const due = R * (f.start + (k - 1) * f.step) + f.step * F1 + (W - k * P - R) * (f.start + k * f.step);
            if (Y[W] - Y[k * P] < due) fewer = f.sse / (k * P);
          }
        }
        const s0 = k * P;
        if (R > 0) {
          const Ys = Y[s0 + R] - Y[s0];
          const fy = (SY[s0 + R] - SY[s0] - (s0 - 0.5) * Ys) / R;
          if (k === 0) {
            m.aa += F2;
            m.ay += fy;
          } else {
            m.aa += R;
            m.ab += R * (k - 1) + F1;
            m.bb += R * (k - 1) * (k - 1) + 2 * (k - 1) * F1 + F2;
            m.ay += Ys;
            m.by += (k - 1) * Ys + fy;
          }
        }
        const h0 = s0 + R;
        const len = Math.min(P - R, W - h0);
        const Yh = Y[h0 + len] - Y[h0];
        m.aa += len;
        m.ab += k * len;
        m.bb += k * k * len;
        m.ay += Yh;
        m.by += k * Yh;
      }
      m.yy = YY[W];
      const fit = solve2(m);
      const all = fit && fit.start > 0 && fit.step > 0 ? fit.sse / W : null;
      const perSecond = all !== null && !fewerFits(all, fewer) ? all : fewer;
      if (perSecond === null) continue;
      if (best.length < keep || perSecond < best[best.length - 1].perSecond) {
        best.push({ periodS: P, rampS: R, perSecond });
        best.sort((p, q) => p.perSecond - q.perSecond);
        if (best.length > keep) best.pop();
      }
    }
  }
  return best;
}
