/**
 * How a step is named in a sentence: its number (from 1) and target rate, and which attempt a
 * rerun was. One spelling for the stop line, the steps stage's line and the cut's words.
 */
import { fmtTarget, stepNo } from './format.ts';
import type { RateUnit, StepResult } from './types.ts';

/** "step 17 (850 arrivals/s)", or with a note inside the same parentheses: "(850 arrivals/s, attempt 2 ...)". */
export function stepName(s: Pick<StepResult, 'index' | 'ratePerSec'>, unit: RateUnit, note = ''): string {
  return `step ${stepNo(s.index)} (${fmtTarget(s.ratePerSec)} ${unit}${note === '' ? '' : `, ${note}`})`;
}

/** "step 3 (300 req/s)", or "step 3 (300 req/s, attempt 2)" for a rerun. */
export function attemptName(s: Pick<StepResult, 'index' | 'ratePerSec' | 'attempt'>, unit: RateUnit): string {
  return stepName(s, unit, (s.attempt ?? 1) > 1 ? `attempt ${s.attempt}` : '');
}
