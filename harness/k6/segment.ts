/**
 * Execution segments (k6's `--execution-segment 1/4:1/2`): this instance runs a stripe of the
 * global arrival sequence, so its share of every rate is the segment's length. The live stop rule
 * of one instance judges its share; `plateau report --merge` judges the sum (merged rates add up
 * to the whole plan when the segments cover (0, 1]).
 */
import type { Plan } from '../plan.ts';
import { PlateauError, EXIT } from '../errors.ts';

/** One bound: "1/4", "25%", "0.25". */
function bound(text: string): number {
  const t = text.trim();
  const v = t.endsWith('%') ? Number(t.slice(0, -1)) / 100 : t.includes('/') ? Number(t.split('/')[0]) / Number(t.split('/')[1]) : Number(t);
  if (!Number.isFinite(v) || v < 0 || v > 1) {
    throw new PlateauError(`execution segment bound "${text}" is not a fraction in [0, 1]`, 'write it as k6 does: 1/4:1/2, 25%:50% or 0.25:0.5', 'segment-invalid', EXIT.usage);
  }
  return v;
}

/** Length of "from:to" (a bare "to" means 0:to); 1 for none. */
export function segmentLength(segment: string | undefined): number {
  if (!segment) return 1;
  const [a, b] = segment.includes(':') ? segment.split(':') : ['0', segment];
  const from = bound(a);
  const to = bound(b);
  if (!(to > from)) throw new PlateauError(`execution segment "${segment}" is empty`, 'the end must be after the start, e.g. 0:1/2', 'segment-invalid', EXIT.usage);
  return to - from;
}

/** The plan as one instance sees it: every step's rate scaled by the segment's length. */
export function planShare(plan: Plan, segment: string | undefined): Plan {
  const share = segmentLength(segment);
  if (share === 1) return plan;
  const steps = plan.steps.map((s) => ({ ...s, ratePerSec: Math.round(s.ratePerSec * share * 1000) / 1000 }));
  return { ...plan, steps, expectedSteadySamples: plan.expectedSteadySamples.map((n) => Math.round(n * share)) };
}
