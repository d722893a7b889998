/**
 * A k6 file of whole lines that ends mid-step: what a Ctrl-C, a threshold's abortOnFail or a
 * test.abort() leaves (k6 ends its output cleanly on each). Nothing in the file says the run
 * stopped early but the arrivals themselves: they end before the plan's last hold does, or in a
 * ramp above its last step (towards a next one). Read so, the import is judged as interrupted, as
 * a torn or cut-short file is: read whole, the step it ended in had "no data" or half its steady
 * window, and the run read as stop reason `error` with no fix.
 *
 * Pure: the arrivals due per second (IngestStats.offeredPerS) against the plan's steps.
 */
import type { RateUnit, StepPlan } from '../../../analysis/types.ts';
import { fmtInt } from '../../../analysis/format.ts';
import { edgeNoise, tolOf } from './offered-noise.ts';

export type EndedEarly =
  /** The arrivals end before `step`'s hold did (in its ramp when heldS is 0). */
  | { in: 'step'; lastS: number; step: StepPlan; heldS: number }
  /** After the last step's hold, the arrivals rose above its rate (`peakPerSec` at `atS`), then ended. */
  | { in: 'ramp-beyond'; lastS: number; step: StepPlan; peakPerSec: number; atS: number };

/**
 * Where the arrivals of a file k6 wrote whole end mid-step, or null where they reach the plan's
 * end. A second of slack: a complete run's last second of arrivals is the one its last hold ends
 * in (or the one before it, with a --t0 up to a second late).
 */
export function endedEarly(
  offered: readonly number[],
  steps: readonly StepPlan[],
  wholeSeconds: boolean,
): EndedEarly | null {
  const last = steps.at(-1);
  if (!last) return null;
  let lastS = offered.length - 1;
  while (lastS >= 0 && !(offered[lastS] > 0)) lastS--;
  if (lastS < 0) return null;
  if (lastS < last.holdEndS - 1) {
    const step = steps.filter((s) => s.rampStartS <= lastS).at(-1) ?? steps[0];
    return { in: 'step', lastS, step, heldS: Math.max(0, lastS - step.holdStartS) };
  }
  // whole seconds after the hold (the last one, a part second, left out) that rose above its rate
  // and stayed above it to the end: a ramp up, cut. Arrivals that fall back (a ramp down, a short
  // top step the derivation left out, then a ramp down) are a complete run's tail. At whole-second
  // stamps a collapsed last hold's seconds stray as far as its own noise (offered-noise.ts
  // edgeNoise: a second is off by its two edges): its last second, 331/s at 320/s, read as a next step cut
  const noise = wholeSeconds
    ? 3 * Math.SQRT2 * edgeNoise(offered, Math.ceil(last.holdStartS), Math.floor(last.holdEndS))
    : 0;
  const above = last.ratePerSec + Math.max(tolOf(last.ratePerSec, wholeSeconds), noise);
  const from = Math.ceil(last.holdEndS);
  let rose = -1;
  for (let t = from; t < lastS && rose < 0; t++) if (offered[t] > above) rose = t;
  if (rose < 0) return null;
  let peak = { perSec: 0, atS: -1 };
  for (let t = rose; t < lastS; t++) {
    if (!(offered[t] > above)) return null;
    if (offered[t] > peak.perSec) peak = { perSec: offered[t], atS: t };
  }
  return { in: 'ramp-beyond', lastS, step: last, peakPerSec: peak.perSec, atS: peak.atS };
}

/** What the import says of a file that ended mid-step: where, the likely cause, and how it is judged. */
export function endedEarlyNote(file: string, e: EndedEarly, unit: RateUnit, derived: boolean): string {
  const step = `step ${e.step.index + 1} (${fmtInt(e.step.ratePerSec)} ${unit})`;
  const planned = derived ? 'of the steps derived from its arrivals' : 'of the plan the flags give';
  const holdS = Math.round(e.step.holdEndS - e.step.holdStartS);
  const where =
    e.in === 'ramp-beyond'
      ? `${e.lastS + 1 - Math.round(e.step.holdEndS)} s after the hold of ${step}, the last ${planned}, above its rate (${fmtInt(Math.round(e.peakPerSec))}/s at ${e.atS} s): k6 had gone on to a next step, cut before 3 s of its hold showed`
      : e.heldS === 0
        ? `in the ramp to ${step} ${planned}, before its hold began`
        : `${fmtInt(e.heldS)} s into the ${fmtInt(holdS)} s hold of ${step} ${planned}`;
  return `${file} ends with whole lines, but its arrivals end at ${e.lastS}-${e.lastS + 1} s, ${where}: k6 stopped before the end of its plan (Ctrl-C, a threshold's abortOnFail, or test.abort()?${derived ? '' : '; or the flags plan more steps than the run had'}). The run is judged as interrupted: what its steps held is a lower bound, and a capacity needs a failure past the knee that a later complete step confirmed by failing too (an import has no rerun), and its last second of load, cut part way, is not judged`;
}
