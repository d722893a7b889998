/**
 * Errors the scenario's code left unhandled during the load (BucketRecord.unhandled,
 * harness/engine/unhandled.ts): rejections of promises it did not await, and exceptions its timers
 * or event handlers threw. They failed no arrival, so no verdict or figure shows them, and the run
 * goes on. One warning for the run, its count, the first message and where (the warmup, the
 * steps, or both), so that a user learns their transaction starts work it does not wait for.
 */
import { unhandledOf } from './buckets.ts';
import type { AnalysedRecord, Symptom } from './types.ts';

/** Marks a stored message as an exception's, not a rejection's (runs stored before it hold rejections only). */
export const THROWN = 'uncaught exception: ';

/** What an error the scenario left unhandled is, in the words of the samples and the report. */
export function unhandledText(message: string): string {
  return message.startsWith(THROWN)
    ? `a timer or event handler of the scenario's code threw, uncaught: ${message.slice(THROWN.length)}`
    : `a promise the scenario's code left unhandled rejected: ${message}`;
}

/** The run's line for one that came while no engine instance listened: no second is open to count it in. */
export function lateText(message: string): string {
  return `with no engine running, ${unhandledText(message)} (said here only, not counted in the report's warning; catch or await it in the scenario)`;
}

/** The fix, the same in preflight's refusal and the report's warning. */
export const UNHANDLED_FIX =
  'await every promise a transaction starts before run() returns (or end it with .catch), and catch errors inside the timers and handlers it sets, so that a failure fails its arrival';

export function unhandledWarning(records: readonly AnalysedRecord[]): Symptom[] {
  // in time: the warmup's seconds before the steps' (merged records are sorted by phase name)
  const ordered = [...records.filter((r) => r.phase === 'warmup'), ...records.filter((r) => r.phase !== 'warmup')];
  const { unhandled } = unhandledOf(ordered);
  if (!unhandled) return [];
  const phases = [...new Set(ordered.filter((r) => r.unhandled !== undefined).map((r) => r.phase))];
  return [
    {
      code: 'scenario-unhandled',
      step: null,
      figures: { count: unhandled.count, first: unhandled.first, phases: phases.join(', ') },
    },
  ];
}
