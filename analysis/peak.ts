/**
 * The peak of a judged run: the highest throughput of a step's whole steady window.
 *
 *   peak = max X over the attempts whose steady window had data for all of its planned seconds
 *          (any verdict but incomplete and not-run; contaminated ones are left out by the caller)
 *
 * An attempt cut short (incomplete: an interrupt or a run that ended mid-window) is never the peak,
 * even when it is the only one measured: a few seconds of a window can read a burst or the drain of
 * a backlog the step would not have sustained, and the gate and compare read the peak as a
 * measurement. What such an attempt read is kept for the report's peak line when it is above the
 * peak (cutAbovePeak), so no figure is hidden. docs/decisions/049.
 */
import type { RunResult, StepResult } from './types.ts';

/** An attempt whose steady window was cut short: judged on part of it. */
function cutShort(s: StepResult): boolean {
  return s.verdict === 'incomplete' && s.steadyS > 0;
}

/**
 * peakPerSec and peakStep over the attempts given: 0 and null when none has a whole steady window,
 * or none served anything (an audit's import whose every iteration failed read "peak 0.0 arrivals/s
 * (step 1)": a figure with no content, named after a step).
 */
export function peakOf(steps: readonly StepResult[]): { peakPerSec: number; peakStep: number | null } {
  let best: StepResult | null = null;
  for (const s of steps)
    if (
      s.steadyS > 0 &&
      !cutShort(s) &&
      s.throughputPerSec > 0 &&
      (best === null || s.throughputPerSec > best.throughputPerSec)
    )
      best = s;
  return { peakPerSec: best?.throughputPerSec ?? 0, peakStep: best?.index ?? null };
}

/**
 * The attempt cut short that read more than the peak (or read anything, when the run has no peak),
 * the highest such; null when none did. The report's peak line names it beside the peak, as not
 * counted.
 */
export function cutAbovePeak(run: Pick<RunResult, 'steps' | 'peakPerSec' | 'peakStep'>): StepResult | null {
  let best: StepResult | null = null;
  for (const s of run.steps) {
    if (!cutShort(s) || s.contaminated || !(s.throughputPerSec > 0)) continue;
    if (run.peakStep !== null && s.throughputPerSec <= run.peakPerSec) continue;
    if (best === null || s.throughputPerSec > best.throughputPerSec) best = s;
  }
  return best;
}
