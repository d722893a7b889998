/**
 * Where an interruption cut the steps: the attempt running when the load stopped, and which part
 * of it. One rule for the steps stage's line (harness/pipeline/steps.ts) and the stop line
 * (interrupted-stop.ts), so the two say the same: "interrupted during step 4 (its rerun, attempt
 * 2), after its attempt 1", "during step 3 (its ramp), after step 2". Pure: attempts, records and
 * results in.
 */
import { STEPS_PHASE } from './phases.ts';
import type { AnalysedRecord, Cut, StepPlan, StepResult } from './types.ts';

export type { Cut };

/**
 * The last second of the steps that offered arrivals (started or dropped, summed over the
 * sources), or null when none did: the second the load stopped in. The seconds after it hold only
 * completions of the drain.
 */
export function lastLoadS(records: readonly AnalysedRecord[]): number | null {
  let last: number | null = null;
  for (const r of records)
    if (r.phase === STEPS_PHASE && r.started + r.dropped > 0 && (last === null || r.tS > last)) last = r.tS;
  return last;
}

/** An attempt whose steady window was judged whole: it ended before the cut. */
function ended(s: StepResult): boolean {
  return s.verdict !== 'not-run' && s.verdict !== 'incomplete';
}

/**
 * The attempt running at second `lastS` (null: no second offered load), or null when every
 * attempt had ended: the first whose hold had not ended by then and whose steady window was not
 * judged whole (the stop may fall in the last second of a hold that still counted).
 */
export function cutOf(
  attempts: readonly (StepPlan & { attempt?: number })[],
  lastS: number | null,
  judged: readonly StepResult[],
): Cut | null {
  const t = lastS ?? -1;
  const done = (a: StepPlan & { attempt?: number }) =>
    judged.some((s) => s.index === a.index && (s.attempt ?? 1) === (a.attempt ?? 1) && ended(s));
  const a = attempts.find((s) => t < s.holdEndS && !done(s));
  if (!a) return null;
  const phase = t < a.rampStartS ? 'before' : t < a.holdStartS ? 'ramp' : 'hold';
  return { index: a.index, attempt: a.attempt ?? 1, ratePerSec: a.ratePerSec, phase };
}

/** How a line names steps: the one cut (with a note on its part, or none), and the last that ended. */
export interface CutNames {
  cut: (cut: Cut, note: string) => string;
  ended: (s: StepResult) => string;
}

/**
 * Where the run was cut, after which attempt: "interrupted during step 4 (its rerun, attempt 2),
 * after its attempt 1", "interrupted before step 3, after step 2"; with no attempt cut (every one
 * had ended), "interrupted after step 5 (attempt 2)" as `names.ended` words it.
 */
export function cutWords(cut: Cut | null, judged: readonly StepResult[], names: CutNames): string {
  const last = judged.filter(ended).at(-1);
  if (cut === null) return last ? `interrupted after ${names.ended(last)}` : 'interrupted before any step ended';
  const part = cut.attempt > 1 ? `its rerun, attempt ${cut.attempt}` : `its ${cut.phase}`;
  const where =
    cut.phase === 'before' && cut.attempt === 1 ? `before ${names.cut(cut, '')}` : `during ${names.cut(cut, part)}`;
  const after = !last
    ? 'before any step ended'
    : last.index === cut.index
      ? `after its attempt ${last.attempt ?? 1}`
      : `after ${names.ended(last)}`;
  return `interrupted ${where}, ${after}`;
}
