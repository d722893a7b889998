/**
 * The mix the peak's window served. A mix's arrivals are offered in its weights to the arrival
 * (smooth weighted round robin), and a held step's window serves them so; where a step dropped
 * arrivals or queued them past its window, the entries served in it can drift from the weights,
 * and its throughput is then of another mix: an audit's peak of 168.8 arrivals/s, above the 163
 * the demo states for its mix, served checkout at 4.15% of its arrivals against a weight of 5%.
 * Said beside the peak where an entry drifted past the 2% (and by 2 arrivals or more). Pure.
 */
import type { RunResult, StepResult } from './types.ts';

/** How far an entry's share of the arrivals a window served may drift from its weight's. */
export const MIX_DRIFT_MAX = 0.02;

/** An entry a window served off its weight: its share of the window's ended arrivals, and its weight's share. */
export interface MixDrift {
  name: string;
  served: number;
  weight: number;
}

/** The entry of the peak's window that drifted most from its weight past MIX_DRIFT_MAX, or null. */
export function peakMixDrift(run: Pick<RunResult, 'steps' | 'peakStep' | 'peakPerSec' | 'traffic'>): MixDrift | null {
  if (run.peakStep === null) return null;
  const s = run.steps.find((x) => x.index === run.peakStep && x.throughputPerSec === run.peakPerSec);
  return s ? windowMixDrift(run, s) : null;
}

/**
 * The same of the capacity's window: the knee's held attempt. Each entry of it kept up with its
 * share within the delivery bound (decision 076), so its mix can still be off its weights by up
 * to a tenth, which the headline then says.
 */
export function kneeMixDrift(run: Pick<RunResult, 'steps' | 'kneeStep' | 'traffic'>): MixDrift | null {
  if (run.kneeStep === null) return null;
  const s = run.steps.find((x) => x.index === run.kneeStep && x.verdict === 'holds');
  return s ? windowMixDrift(run, s) : null;
}

function windowMixDrift(run: Pick<RunResult, 'traffic'>, s: Pick<StepResult, 'byName'>): MixDrift | null {
  const entries = run.traffic?.entries ?? [];
  if (entries.length < 2 || !s.byName) return null;
  const counts = entries.map((e) => s.byName?.[e.name]?.completed ?? 0);
  const n = counts.reduce((a, c) => a + c, 0);
  const weights = entries.reduce((a, e) => a + e.weight, 0);
  if (n === 0 || !(weights > 0)) return null;
  let worst: (MixDrift & { drift: number }) | null = null;
  entries.forEach((e, i) => {
    const weight = e.weight / weights;
    const served = counts[i] / n;
    const drift = Math.abs(served / weight - 1);
    if (drift <= MIX_DRIFT_MAX || Math.abs(counts[i] - n * weight) < 2) return;
    if (worst === null || drift > worst.drift) worst = { name: e.name, served, weight, drift };
  });
  if (worst === null) return null;
  const { name, served, weight } = worst;
  return { name, served, weight };
}
