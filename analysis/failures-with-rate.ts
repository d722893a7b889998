/**
 * Do a failed first step's failures fall with the rate? The warmup ran the same scenario before it,
 * at a lower rate (half the first step's by default): where it failed about the step's share of its
 * arrivals, the failures are the requests' own (a route that answers 500 at any rate), and "start
 * lower" would fail them too (a reviewer's run: 15% failed at 100 arrivals/s and at the warmup's 50).
 * Decided on the counts, never on two shares being equal (docs/decisions/072):
 *
 *   p_w = (f_w + 1) / (n_w + 2),  p_s = (f_s + 1) / (n_s + 2)      (Agresti-Caffo: one failure and
 *                                                                    one success added to each side)
 *   fall = max(p_s x r_w / r_s, 1 - (1 - p_s) x r_s / r_w)          the most the warmup's share could be
 *                                                                    had the failures fallen with the rate
 *   z = (p_w - fall) / sqrt(p_w (1 - p_w) / (n_w + 2) + c^2 p_s (1 - p_s) / (n_s + 2)),  c = dfall/dp_s
 *   they do not fall  <=>  r_w < r_s and z >= 1.645 (one-sided 5%)
 *
 * The first term of `fall` is a share in proportion to the rate (halved at half the rate); the
 * second what a limit at the step's successes, (1 - p_s) x r_s, would shed at the warmup's rate (a
 * rate limiter answering 503 past 20/s fails 60% at 50/s and 80% at 100/s: a fall, not a constant).
 * Pure.
 */
import { WARMUP_PHASE } from './phases.ts';
import type { AnalysedRecord, StageOutcome } from './types.ts';

/** Arrivals completed and failed at one offered rate. */
export interface FailedAt {
  ratePerSec: number;
  completed: number;
  failed: number;
}

/** One-sided 5%: the warmup's share lies above `fall` with 95% confidence. */
export const KEPT_Z = 1.645;

/**
 * The warmup's arrivals at its rate: from its first judged window on (its ramp's, at lower rates,
 * left out); null without a warmup that judged a window and completed an arrival in it.
 */
export function warmupFailedAt(records: readonly AnalysedRecord[], stages: readonly StageOutcome[]): FailedAt | null {
  const record = stages.find((s) => s.name === 'warmup')?.warmup;
  const fromS = record?.windows[0]?.fromS;
  if (!record || fromS === undefined || !(record.ratePerSec > 0)) return null;
  let completed = 0;
  let ok = 0;
  for (const r of records) {
    if (r.phase !== WARMUP_PHASE || r.tS < fromS) continue;
    completed += r.completed;
    ok += r.ok;
  }
  return completed > 0 ? { ratePerSec: record.ratePerSec, completed, failed: completed - ok } : null;
}

/** The z of the warmup's share over the most a fall with the rate would leave it (the formula above). */
export function keptZ(lower: FailedAt, step: FailedAt): number {
  const pw = (lower.failed + 1) / (lower.completed + 2);
  const ps = (step.failed + 1) / (step.completed + 2);
  const k = lower.ratePerSec / step.ratePerSec;
  const proportional = ps * k;
  const shed = 1 - (1 - ps) / k;
  const [fall, c] = proportional >= shed ? [proportional, k] : [shed, 1 / k];
  const se = Math.sqrt((pw * (1 - pw)) / (lower.completed + 2) + (c * c * ps * (1 - ps)) / (step.completed + 2));
  return (pw - fall) / se;
}

/** The failures did not fall from `step`'s rate to the lower one: its share is about the step's, on the counts. */
export function failuresKept(lower: FailedAt, step: FailedAt): boolean {
  if (!(lower.ratePerSec > 0) || lower.ratePerSec >= step.ratePerSec || lower.completed === 0) return false;
  return keptZ(lower, step) >= KEPT_Z;
}
