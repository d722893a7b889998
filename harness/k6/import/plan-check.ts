/**
 * Step flags given at an import, checked against the file: each judged window's offered rate (k6
 * iterations started plus dropped, at the second they were due: IngestStats.offeredPerS) must be
 * the step's rate. A plan the run was never offered judges delivery against rates of the user's
 * own making: a hold of 8 s given as 12 read delivery 1.43 and printed a capacity. Pure.
 */
import type { StepPlan } from '../../../analysis/types.ts';

/** A window's offered rate may differ from its step's by this share of the rate (k6 schedules arrivals exactly)... */
const REL_TOL = 0.05;
/** ...or by this many arrivals/s, whichever is more (a low rate's rounding). */
const ABS_TOL = 1;

export interface RateMismatch {
  index: number;
  ratePerSec: number;
  offeredPerSec: number;
  fromS: number;
  toS: number;
}

/**
 * Seconds the load may start after t0 (k6 writes its first vus point before it has started its
 * VUs: derive-steps allows 3; whole-second stamps blur one more), tried in half seconds: flags the
 * run ran, placed from t0 with a settle shorter than that, would judge a window reaching its ramp.
 */
const MAX_START_S = 4;

/**
 * The steps whose judged window the file offered another rate in, at the start offset (0 to
 * MAX_START_S) that leaves the fewest; none when the flags fit at one. A window the file does not
 * hold at the latest offset is not judged.
 */
export function flagMismatches(steps: readonly StepPlan[], offered: readonly number[]): RateMismatch[] {
  let best: RateMismatch[] | null = null;
  for (let shift = 0; shift <= MAX_START_S; shift += 0.5) {
    const m = mismatchesAt(steps, offered, shift);
    if (best === null || m.length < best.length) best = m;
    if (m.length === 0) break;
  }
  return best ?? [];
}

function mismatchesAt(steps: readonly StepPlan[], offered: readonly number[], shift: number): RateMismatch[] {
  const out: RateMismatch[] = [];
  for (const s of steps) {
    const fromS = Math.ceil(s.steadyStartS + shift);
    const toS = Math.floor(s.steadyEndS + shift);
    // the same steps at every offset: those whose window the file holds at the latest
    if (toS <= fromS || Math.floor(s.steadyEndS + MAX_START_S) > offered.length) continue;
    let sum = 0;
    for (let t = fromS; t < toS; t++) sum += offered[t];
    const offeredPerSec = sum / (toS - fromS);
    if (Math.abs(offeredPerSec - s.ratePerSec) > Math.max(REL_TOL * s.ratePerSec, ABS_TOL))
      out.push({ index: s.index, ratePerSec: s.ratePerSec, offeredPerSec, fromS, toS });
  }
  return out;
}

/** The mismatches in a sentence, the first few. */
export function mismatchText(file: string, m: readonly RateMismatch[], unit: string): string {
  const shown = m
    .slice(0, 4)
    .map(
      (x) =>
        `step ${x.index + 1} is ${x.ratePerSec} ${unit} by the flags, the file offered ${x.offeredPerSec.toFixed(1)} in its judged window (${x.fromS}-${x.toS} s)`,
    )
    .join('; ');
  return `the step flags do not match ${file}: ${shown}${m.length > 4 ? `; and ${m.length - 4} more` : ''} (offered: k6 iterations started plus dropped, at the second they were due)`;
}

/** Offered arrivals after the flags' last hold (a rate above the top step's): k6 ran further than the flags say. */
export interface LoadBeyond {
  /** Second the flags' plan ended at, latest start offset and a part second allowed. */
  fromS: number;
  seconds: number;
  arrivals: number;
  /** The highest rate offered in one of those seconds. */
  maxPerSec: number;
}

/**
 * Load the file offered after the flags' last step ended (at the latest start offset, plus a
 * second for a part one) at a rate above that step's: the flags stop short of the run, and read
 * whole they would say "every step held, raise the top rate" of a run whose top steps failed.
 * Null when nothing above the top rate came after (k6's end, or a ramp down).
 */
export function loadBeyond(steps: readonly StepPlan[], offered: readonly number[]): LoadBeyond | null {
  const last = steps.at(-1);
  if (!last) return null;
  const fromS = Math.ceil(last.holdEndS + MAX_START_S) + 1;
  let seconds = 0,
    arrivals = 0,
    maxPerSec = 0;
  for (let t = fromS; t < offered.length; t++) {
    if (offered[t] <= 0) continue;
    seconds++;
    arrivals += offered[t];
    maxPerSec = Math.max(maxPerSec, offered[t]);
  }
  const above = maxPerSec > last.ratePerSec * (1 + REL_TOL) + ABS_TOL;
  return seconds >= 2 && above ? { fromS, seconds, arrivals: Math.round(arrivals), maxPerSec } : null;
}
