/**
 * A run cut short: where the interrupt fell in the stop line's words, what held before it, a limit
 * found before the cut with the cut said after it, and the capacity such a run established (the one
 * reading of it for the report's headline and the gate).
 */
import { fmtInt, fmtRate, unitOf } from './format.ts';
import type { Cut, RateUnit, RunResult, StepResult, StopReason } from './types.ts';
import { cutWords } from './cut.ts';
import { attemptName, stepName } from './step-name.ts';

/** The detail of a run stopped `interrupted`: where, and what held before it (never a capacity). */
export function interruptedDetail(where: string, capacityPerSec: number | null, unit: RateUnit): string {
  const held =
    capacityPerSec === null
      ? 'no step held before it'
      : `at least ${fmtRate(capacityPerSec)} ${unit} held before it: capacity not established`;
  return `${where}; ${held}`;
}

/** The reason of a limit found before the run was interrupted, with where the cut fell. */
export function cutAfterLimit(
  limit: { stopReason: StopReason; stopDetail: string },
  where: string,
): { stopReason: StopReason; stopDetail: string } {
  return { ...limit, stopDetail: `${limit.stopDetail}; the run was then cut short (${where})` };
}

/**
 * The capacity a run established, or null: summarizeStop's rule (a step failed at the target past
 * the knee, and in a run cut short that failure was confirmed before the cut) as the run recorded
 * it. The one reading of it for the report's headline and the gate. A record stopped `interrupted`
 * with a capacity beside it predates a cut run keeping its limit's reason (schema 1 kept its knee
 * there, a lower bound): none established.
 */
export function establishedCapacity(run: Pick<RunResult, 'capacityPerSec' | 'stopReason'>): number | null {
  return run.stopReason === 'interrupted' ? null : run.capacityPerSec;
}

/**
 * Where a run that was cut short after its limit was confirmed was cut ("interrupted after step 5
 * (500 req/s, attempt 2)"); null for a run that was not interrupted, or was before its limit was confirmed.
 */
export function whereCutAfterLimit(
  run: Pick<RunResult, 'capacityPerSec' | 'stopReason' | 'interrupted' | 'steps' | 'rules' | 'cut'>,
): string | null {
  if (!run.interrupted || establishedCapacity(run) === null) return null;
  return whereInterrupted(run.steps, run.cut ?? cutOfSteps(run.steps), unitOf(run.rules));
}

/**
 * The cut as the judged steps alone show it (a run analysed before the cut was kept): the last
 * attempt's steady window, when it has data but not all of it; null otherwise.
 */
export function cutOfSteps(steps: readonly StepResult[]): Cut | null {
  const last = steps.at(-1);
  return last?.verdict === 'incomplete'
    ? { index: last.index, attempt: last.attempt ?? 1, ratePerSec: last.ratePerSec, phase: 'hold' }
    : null;
}

/**
 * Where the run was interrupted, in the steps stage's terms (cut.ts): during which attempt and
 * which part of it (its ramp, its hold and how far into its steady window, its rerun), after which
 * attempt; or after the last attempt when none was cut short.
 */
export function whereInterrupted(all: readonly StepResult[], cut: Cut | null, unit: RateUnit): string {
  return cutWords(cut, all, {
    cut: (c, note) => {
      const s = all.find((o) => o.index === c.index && (o.attempt ?? 1) === c.attempt && o.verdict === 'incomplete');
      const into =
        s === undefined
          ? ''
          : `${fmtInt(s.steadyS)} s into its ${fmtInt(Math.floor(s.steadyEndS) - Math.ceil(s.steadyStartS))} s steady window`;
      return stepName(c, unit, [note, into].filter((n) => n !== '').join(', '));
    },
    ended: (s) => attemptName(s, unit),
  });
}
