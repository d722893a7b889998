/**
 * A stepped plan laid over the offered series second by second (each second the plan's mean rate
 * over it; with whole-second timestamps, blurred as their shared starts blur it), to a twentieth
 * of a second, from the coarse candidates of plan-search.ts. Mass is kept whichever way a second's
 * arrivals were shared, so the ramps' shape decides. Pure.
 */
import { solve2, stepsSeen, type Candidate } from './plan-search.ts';
import { secondBlur, type SecondBlur } from './second-blur.ts';

/**
 * Arrivals by tau seconds after the plan's start (the integral of its rate), for its two shapes at
 * once: a = start 1, step 0 (every level 1) and b = start 0, step 1 (level k is k). Each step is a
 * ramp from the level before (0 before step 1) to its own over rampS, then its hold. The plan's
 * arrivals for (start, step) are start x a + step x b.
 */
function arrivalsBy(tau: number, rampS: number, periodS: number, out: { a: number; b: number }): void {
  if (tau <= 0) {
    out.a = 0;
    out.b = 0;
    return;
  }
  const k = Math.floor(tau / periodS);
  const holdS = periodS - rampS;
  const into = tau - k * periodS;
  // the k whole steps before: their ramps (mean of the two levels) and holds; levels 0..k-1 sum to
  // k for a and k(k-1)/2 for b, levels -1..k-2 (the one before each: 0 before the first) to k-1 and (k-1)(k-2)/2
  const a0 = k <= 0 ? 0 : k;
  const b0 = k <= 0 ? 0 : (k * (k - 1)) / 2;
  const a1 = k <= 1 ? 0 : k - 1;
  const b1 = k <= 1 ? 0 : ((k - 1) * (k - 2)) / 2;
  let a = (rampS / 2) * (a0 + a1) + holdS * a0;
  let b = (rampS / 2) * (b0 + b1) + holdS * b0;
  // this step: level (a 1, b k), the one before (a 1 and b k-1, or 0 before the first)
  const beforeA = k === 0 ? 0 : 1;
  const beforeB = k === 0 ? 0 : k - 1;
  if (into < rampS) {
    const f = (into * into) / (2 * rampS);
    a += beforeA * into + (1 - beforeA) * f;
    b += beforeB * into + (k - beforeB) * f;
  } else {
    a += (rampS * (beforeA + 1)) / 2 + (into - rampS);
    b += (rampS * (beforeB + k)) / 2 + k * (into - rampS);
  }
  out.a = a;
  out.b = b;
}

/**
 * Shifts of the plan's start tried, seconds: -1 to 3 by 0.05 (offset i is -1 + i / 20). t0 is the
 * first vus point less a second, its whole second with whole-second stamps, and k6 writes that
 * point before it has initialised its VUs (up to a second or two for thousands): the load starts
 * up to 3 s after t0.
 */
const OFFSETS = 81;
/**
 * The ramps tried around a coarse candidate's. The coarse search has the plan start at second 0, so
 * a start up to 3 s later (k6's VU init) reads there as a ramp up to 3 s longer (the holds keep
 * their ends). Sweeps of 12-05, starts 2.5 s late: 61 -> 99 of 104 chosen plans exact, 158 -> 201 of
 * 240 random ones; on time, the same plans; 1 to 1.5 s late, a few 1 s ramps more read as none.
 */
const RAMPS_AROUND = [0, -1, 1, -2, -3];
/** Offsets i and i + 5 are a quarter second apart: the plan's rates over them share a quarter-second grid. */
const PHASES = 5;

/**
 * The plan's arrivals over the second from each quarter second, for each start offset and its two
 * shapes (a: start 1, step 0; b: start 0, step 1): for offset i = 5q + r, second t shifted by m / 4
 * s (second-blur.ts) is index 4t - q - m of row r. The plan's arrivals are taken once per quarter
 * second of each of the 5 phases, not per second, offset and blur.
 */
function secondRows(endS: number, rampS: number, periodS: number) {
  // second t under offset i = 5q + r (-1 + q / 4 + r / 20 s), shifted by m / 4 s, runs from
  // t - offset - m / 4 = base_r + j / 4, with base_r = 1 - r / 20 and j = 4t - q - m (q <= 16, |m| <= 4)
  const lo = -((OFFSETS - 1) / PHASES + 4);
  const hi = 4 * endS + 8;
  const n = hi - lo + 1;
  const point = { a: 0, b: 0 };
  const rows: { a: Float64Array; b: Float64Array }[] = [];
  const gA = new Float64Array(n);
  const gB = new Float64Array(n);
  for (let r = 0; r < PHASES; r++) {
    const base = 1 - r / 20;
    for (let j = lo; j <= hi; j++) {
      arrivalsBy(base + j / 4, rampS, periodS, point);
      gA[j - lo] = point.a;
      gB[j - lo] = point.b;
    }
    const rowA = new Float64Array(n - 4);
    const rowB = new Float64Array(n - 4);
    for (let j = 0; j < n - 4; j++) {
      rowA[j] = gA[j + 4] - gA[j];
      rowB[j] = gB[j + 4] - gB[j];
    }
    rows.push({ a: rowA, b: rowB });
  }
  return { rows, lo };
}

/**
 * The plan closest to `offered` over seconds [0, endS): each coarse candidate's period and ramp and
 * their neighbours (periods a second either way, ramps a second longer or up to 3 s shorter:
 * RAMPS_AROUND), the plan's start shifted by -1 to 3 s (OFFSETS), its start and step solved by
 * least squares at each, compared over all of [0, endS) (the plan goes on past its last step: a
 * run cut in a ramp fits it). Its steps are those whose hold shows for 3 s (or all but a second of
 * it, if shorter) before countEndS. `blurred`: how each second read the plan (second-blur.ts);
 * false, sharp (millisecond stamps); true, the triangle of whole-second stamps and iterations of
 * random lengths.
 */
export function placePlan(
  offered: readonly number[],
  endS: number,
  countEndS: number,
  candidates: readonly Candidate[],
  minHoldS: number,
  blurred: boolean | SecondBlur = false,
): PlacedPlan | null {
  const blur = typeof blurred === 'boolean' ? secondBlur(endS, blurred) : blurred;
  const { start: bFrom, m: bShift, w: bWeight } = blur;
  let best: PlacedPlan | null = null;
  const tried = new Set<string>();
  let yy = 0;
  for (let t = 0; t < endS; t++) yy += offered[t] * offered[t];
  for (const c of candidates) {
    for (const periodS of [c.periodS, c.periodS - 1, c.periodS + 1]) {
      for (const rampS of RAMPS_AROUND.map((d) => c.rampS + d)) {
        const key = `${periodS}/${rampS}`;
        if (rampS < 0 || periodS - rampS < minHoldS || tried.has(key)) continue;
        tried.add(key);
        const { rows, lo } = secondRows(endS, rampS, periodS);
        for (let i = 0; i < OFFSETS; i++) {
          const offsetS = -1 + i / 20;
          const steps = stepsSeen(countEndS, periodS, rampS, offsetS, Math.min(minHoldS, periodS - rampS - 1));
          if (steps < 2) continue;
          const { a: rowA, b: rowB } = rows[i % PHASES];
          const q = Math.floor(i / PHASES);
          const m = { aa: 0, ab: 0, bb: 0, ay: 0, by: 0, yy };
          for (let t = 0, at = -q - lo; t < endS; t++, at += 4) {
            // what second t reads of the plan: its seconds shifted as the blur says
            let a = 0;
            let b = 0;
            for (let k = bFrom[t]; k < bFrom[t + 1]; k++) {
              a += bWeight[k] * rowA[at - bShift[k]];
              b += bWeight[k] * rowB[at - bShift[k]];
            }
            const v = offered[t];
            m.aa += a * a;
            m.ab += a * b;
            m.bb += b * b;
            m.ay += a * v;
            m.by += b * v;
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
