/**
 * Offered arrivals: each second's iterations started plus dropped, tallied at the second they
 * were due, for the whole run (IngestStats.offeredPerS, one number a second). An iteration that
 * ran longer than lateS is counted late in the buckets, never here, so deriving the steps of a
 * collapsed step does not depend on how long its iterations took. With whole-second timestamps
 * (CSV timeFormat unix or rfc3339) a sample stamped S happened in [S, S + 1 s): an iteration's
 * start lies in [S - d, S + 1 s - d) for its duration d, a drop in [S, S + 1 s). The offered tally
 * shares each between the seconds that span overlaps, in proportion, which keeps a step's rate
 * when durations grow (a collapsing step), where the middle moved a share of its arrivals a second
 * and read 143/s for 150.
 *
 * Where those spans lie against the seconds (IngestStats.offeredPhases) is how a plan fitted to
 * such seconds must blur its own (import/second-blur.ts): seconds whose arrivals' spans lie on them
 * (drops, with t0 on a whole second; iterations of a few ms) read the plan sharp, those whose spans
 * lie a random part of a second off them (iterations of random lengths) read it blurred over two.
 */

/** Quarter seconds a span may start at within a second (OfferedPhases). */
export const PHASES = 4;

/**
 * Whole-second timestamps: for each second tS, the arrivals whose span (the second they may lie
 * in) starts in it, by where: [PHASES x tS + q] counts spans [tS + q / 4, tS + 1 + q / 4), each
 * span's start rounded to the nearest quarter second.
 */
export type OfferedPhases = number[];

/** Arrivals due at timeMs (iterations started, dropped): out[tS] (offeredPerS), never shifted by lateness. */
export function offer(out: number[], t0Ms: number, timeMs: number, n: number): void {
  const tS = Math.max(0, Math.floor((timeMs - t0Ms) / 1000));
  while (out.length <= tS) out.push(0);
  out[tS] += n;
}

/**
 * n arrivals due anywhere in the second from fromMs: shared by the seconds it overlaps, in
 * proportion; with `phases`, also counted by where that second starts (OfferedPhases).
 */
export function offerSpread(out: number[], t0Ms: number, fromMs: number, n: number, phases?: OfferedPhases): void {
  const at = (fromMs - t0Ms) / 1000;
  const tS = Math.floor(at);
  const later = at - tS;
  offer(out, t0Ms, t0Ms + tS * 1000, n * (1 - later));
  if (later > 0) offer(out, t0Ms, t0Ms + (tS + 1) * 1000, n * later);
  if (phases === undefined) return;
  const q = Math.round(PHASES * later);
  const i = PHASES * Math.max(0, q === PHASES ? tS + 1 : tS) + (q % PHASES);
  while (phases.length <= i) phases.push(0);
  phases[i] += n;
}
