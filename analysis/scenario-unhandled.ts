/**
 * Rejections of promises the scenario's code left unhandled during the load (BucketRecord.unhandled,
 * harness/engine/unhandled.ts): they failed no arrival, so no verdict or figure shows them, and the
 * run goes on. One warning for the run, its count, the first message and where (the warmup, the
 * steps, or both), so that a user learns their transaction starts work it does not wait for.
 */
import { unhandledOf } from './buckets.ts';
import type { AnalysedRecord, Symptom } from './types.ts';

/** What a rejection the scenario left unhandled is, in the words of the samples and the report. */
export function unhandledText(message: string): string {
  return `a promise the scenario's code left unhandled rejected: ${message}`;
}

/** The fix, the same in preflight's refusal and the report's warning. */
export const UNHANDLED_FIX =
  'await every promise a transaction starts before run() returns (or end it with .catch), so that its failure fails its arrival';

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
