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

/** The steps whose judged window the file offered another rate in; windows past the file's end are not judged. */
export function flagMismatches(steps: readonly StepPlan[], offered: readonly number[]): RateMismatch[] {
  const out: RateMismatch[] = [];
  for (const s of steps) {
    const fromS = Math.ceil(s.steadyStartS);
    const toS = Math.floor(s.steadyEndS);
    if (toS <= fromS || toS > offered.length) continue;
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
