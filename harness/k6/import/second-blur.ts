/**
 * How each second of an offered series read the plan's arrivals, for plan-fit.ts to blur the plan
 * the same way: second t read weight w of the arrivals of [t + s, t + 1 + s), for quarter-second
 * shifts s of -1 to 1 s. Millisecond stamps read each second sharp (s = 0). Whole-second stamps
 * share each arrival over the second it may lie in (output/offered.ts): an arrival whose second
 * starts a part p of a second after second t's start gives t the share 1 - p and t + 1 the share
 * p, so a second reads the spans of its arrivals at shift p (weight 1 - p) and p - 1 (weight p),
 * mixed as the arrivals around it lay (IngestStats.offeredPhases): sharp for drops (with t0 on a
 * whole second) and for iterations of a few ms, blurred over two seconds for iterations of random
 * lengths. Without that tally (a series alone), the blur of iterations of random lengths: a
 * triangle on (-1, 1). Pure.
 */
import { PHASES, type OfferedPhases } from '../output/offered.ts';

/** Per second t, its weights w[k] of spans shifted by m[k] quarter seconds, k from start[t] to start[t + 1]. */
export interface SecondBlur {
  start: Int32Array;
  /** The shift in quarter seconds, as plan-fit.ts indexes it: minus 4 x s. */
  m: Int8Array;
  w: Float64Array;
}

/** The triangle of whole-second stamps with iterations of random lengths: spans starting at every phase alike. */
const EVEN = [1, 1, 1, 1];

/**
 * The blur of seconds [fromS, fromS + n): sharp; or with whole-second stamps, each second's from
 * the phases of the spans that start in it and in the second before (none: sharp), or the
 * triangle without a tally.
 */
export function secondBlur(n: number, wholeSeconds: boolean, phases?: OfferedPhases, fromS = 0): SecondBlur {
  const start = new Int32Array(n + 1);
  const m: number[] = [];
  const w: number[] = [];
  const mix = [0, 0, 0, 0];
  for (let t = 0; t < n; t++) {
    start[t] = m.length;
    let sum = 0;
    for (let q = 0; q < PHASES; q++) {
      const at = PHASES * (fromS + t) + q;
      mix[q] = !wholeSeconds ? 0 : phases === undefined ? EVEN[q] : (phases[at] ?? 0) + (phases[at - PHASES] ?? 0);
      sum += mix[q];
    }
    if (sum === 0) {
      m.push(0);
      w.push(1);
      continue;
    }
    // phase q / 4: its own spans at shift q / 4 (share 1 - q / 4), the second before's at q / 4 - 1 (share q / 4)
    for (let q = 0; q < PHASES; q++) {
      const p = q / PHASES;
      if (mix[q] === 0) continue;
      m.push(-q);
      w.push((mix[q] / sum) * (1 - p));
      if (q === 0) continue;
      m.push(PHASES - q);
      w.push((mix[q] / sum) * p);
    }
  }
  start[n] = m.length;
  return { start, m: Int8Array.from(m), w: Float64Array.from(w) };
}
