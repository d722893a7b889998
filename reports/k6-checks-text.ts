/**
 * The words for k6 checks that failed on responses an imported run counted as successes
 * ('k6-checks-failed', made by the import: harness/k6/import/checks-note.ts): in the import's note
 * and the report's warning alike.
 */
import { fmtCountShare, fmtInt, stepList, stepNo } from '../analysis/format.ts';

/** A step's steady window: its checks and requests, each with those that failed; `step` 0-based. */
export interface StepChecks {
  step: number;
  checks: number;
  checksFailed: number;
  requests: number;
  requestsFailed: number;
}

/** What the user can do: make a rejected response a failed request plateau counts. */
const CHECKS_FIX =
  "have the service answer such a response with an error status, or reject it in k6's responseCallback, to count it as failed; or run the load from plateau k6-script, whose checks fail their requests";

/**
 * "k6 checks failed on responses counted as successes in steps 1-3 (the most at step 2: 66 of 200
 * checks failed, 33%, and 0 of 200 requests): ...".
 */
export function k6ChecksText(steps: readonly StepChecks[]): string {
  const most = steps.reduce((a, c) => (c.checksFailed / c.checks > a.checksFailed / a.checks ? c : a));
  const figures = `${fmtInt(most.checksFailed)} of ${fmtInt(most.checks)} checks failed, ${fmtCountShare(most.checksFailed / most.checks)}, and ${fmtInt(most.requestsFailed)} of ${fmtInt(most.requests)} requests`;
  const where =
    steps.length === 1
      ? `step ${stepNo(most.step)} (${figures})`
      : `steps ${stepList(steps.map((c) => c.step))} (the most at step ${stepNo(most.step)}: ${figures})`;
  return `k6 checks failed on responses counted as successes in ${where}: k6's check() fails no request, so delivery and capacity count those responses as served; ${CHECKS_FIX}`;
}

/** StepChecks as a warning's figures (Symptom figures hold arrays of numbers, not objects), and back. */
export function stepChecksFigures(steps: readonly StepChecks[]): Record<string, number[]> {
  return {
    steps: steps.map((c) => c.step),
    checks: steps.map((c) => c.checks),
    checksFailed: steps.map((c) => c.checksFailed),
    requests: steps.map((c) => c.requests),
    requestsFailed: steps.map((c) => c.requestsFailed),
  };
}

export function stepChecksOf(f: Readonly<Record<string, unknown>>): StepChecks[] {
  const at = (k: string, i: number) => (Array.isArray(f[k]) ? Number((f[k] as unknown[])[i]) : NaN);
  const steps = Array.isArray(f.steps) ? (f.steps as unknown[]) : [];
  return steps.map((_, i) => ({
    step: at('steps', i),
    checks: at('checks', i),
    checksFailed: at('checksFailed', i),
    requests: at('requests', i),
    requestsFailed: at('requestsFailed', i),
  }));
}
