/**
 * Which attempts decide a run: the deciding steps (no transient, contaminated or replaced
 * generator-bound attempt), their holding prefix, the failures at the target past it and the
 * attempt that confirmed one, and whether that failure is a limit. What stop.ts builds capacity and
 * knee from, and what the report, the gate and the models read the knee's attempt by.
 */
import type { RunResult, StepResult } from './types.ts';

/** Number of leading steps that hold. */
export function holdingPrefixLength(steps: readonly StepResult[]): number {
  const firstBad = steps.findIndex((s) => s.verdict !== 'holds');
  return firstBad === -1 ? steps.length : firstBad;
}

/** The failed attempts at bad's rate among the deciding steps, in order: the first, then its confirmation. */
export function failedAttemptsAt(steps: readonly StepResult[], bad: StepResult | null): StepResult[] {
  return bad === null ? [] : steps.filter((s) => s.index === bad.index && s.verdict === 'fails');
}

/** The last failed attempt at bad's rate at the target: the confirmation, where one ran. */
export function confirmingAttempt(steps: readonly StepResult[], bad: StepResult): StepResult {
  return (
    failedAttemptsAt(steps, bad)
      .filter((s) => !s.generatorBound)
      .at(-1) ?? bad
  );
}

/**
 * The attempts that decide a run: not transient (a rerun at its rate held), not contaminated (the
 * topology changed), and not a generator-bound attempt that a later attempt at the same rate
 * replaced (rerun with more VUs: what the rerun found is the answer at that rate).
 */
export function decidingSteps(all: readonly StepResult[]): StepResult[] {
  const replaced = (s: StepResult) =>
    s.generatorBound === true &&
    all.some((o) => o.index === s.index && (o.attempt ?? 1) > (s.attempt ?? 1) && !o.contaminated);
  return all.filter((s) => !s.transient && !s.contaminated && !replaced(s));
}

/**
 * The failure that made the load generator the run's limit, or null: the deciding steps' first
 * failure, when generator-bound. A failure at the target whose confirming rerun the generator could
 * not drive stays the target's: that rerun failed too, which confirms it (limitFound), and the stop
 * line reads the first. The one reading for the run's generatorBound (its headline), its overload
 * shape and the gate, so that none calls a run generator-bound whose capacity another states.
 */
export function generatorBoundFailure(all: readonly StepResult[]): StepResult | null {
  const bad = decidingSteps(all).find((s) => s.verdict !== 'holds');
  return bad?.generatorBound === true ? bad : null;
}

/**
 * The failed attempts at bad's rate that read the target, for its overload shape: those the
 * generator could drive, unless bad itself was the generator's (then its shape is generator-bound).
 */
export function attemptsAtTarget(steps: readonly StepResult[], bad: StepResult | null): StepResult[] {
  const all = failedAttemptsAt(steps, bad);
  return bad?.generatorBound ? all : all.filter((s) => !s.generatorBound);
}

/** An attempt that held and counts: neither transient nor contaminated. */
export function heldAndCounts(s: StepResult): boolean {
  return s.verdict === 'holds' && !s.transient && !s.contaminated;
}

/**
 * The step that held and counts after the deciding steps' first failure at the target, or null:
 * an import goes on past a failure, and a step that held after it says the failure was no limit.
 */
export function heldAfterFailure(deciding: readonly StepResult[]): StepResult | null {
  const prefix = holdingPrefixLength(deciding);
  return failedAtTarget(deciding[prefix]) ? (deciding.slice(prefix + 1).find(heldAndCounts) ?? null) : null;
}

/** The knee's own attempt: the one at the knee's rate that held and decides (not a failed or transient one). */
export function kneeResult(run: Pick<RunResult, 'steps' | 'kneeStep'>): StepResult | null {
  if (run.kneeStep === null) return null;
  return run.steps.find((s) => s.index === run.kneeStep && heldAndCounts(s)) ?? null;
}

/** A step that failed at the target's hand (not the generator's, not inconclusive). */
export function failedAtTarget(s: StepResult | undefined): boolean {
  return s !== undefined && s.verdict === 'fails' && !s.generatorBound && !s.inconclusive;
}

/**
 * Did a step fail at the target past the knee? Not the generator's limit, not unjudged, and
 * confirmed: in an import (which never reruns) by a later step that failed at the target too; in a
 * live run cut short, by a second failed attempt at its rate (its rerun).
 */
export function limitFound(
  bad: StepResult | undefined,
  all: readonly StepResult[],
  interrupted: boolean,
  imported: boolean,
): boolean {
  if (!bad || bad.verdict !== 'fails' || bad.generatorBound || bad.inconclusive) return false;
  // an import reruns nothing, cut short or not: a later step that failed at the target too confirms
  if (imported) return all.some((s) => s.index > bad.index && failedAtTarget(s) && !s.contaminated);
  if (!interrupted) return true;
  return all.filter((s) => s.index === bad.index && s.verdict === 'fails').length > 1;
}
