/**
 * Can a run's capacity be judged at all? A run that was interrupted before its limit was confirmed,
 * whose limit was the load generator, or whose target changed under it (contaminated) says nothing
 * about the target's capacity: the gate answers "cannot judge" (exit 3) instead of pass or fail. A
 * run cut short after its limit was confirmed established its capacity (interrupted-stop.ts
 * establishedCapacity, which the report's headline reads too): it is judged. Pure; reads the
 * RunResult's flags, its stop reason, its steps' flags and its stage outcomes.
 */
import { generatorBoundFailure } from '../deciding-steps.ts';
import { establishedCapacity } from '../interrupted-stop.ts';
import { symptomText } from '../generator-symptoms.ts';
import { generatorFix, generatorFixUnread } from '../generator-fix.ts';
import type { RunResult, StepResult } from '../types.ts';

type Flagged = StepResult & { generatorBound?: boolean; contaminated?: boolean };

/** The steps judged up to and including the first that did not hold (contaminated ones among them). */
function judgedPrefix(run: RunResult): Flagged[] {
  const firstBad = run.steps.findIndex((s) => s.verdict !== 'holds' && !(s as { transient?: boolean }).transient);
  return (firstBad === -1 ? run.steps : run.steps.slice(0, firstBad + 1)) as Flagged[];
}

/**
 * What would let an interrupted run be judged, as a clause after its stop detail. A run stopped by
 * limits.maxDurationS has its fix in that detail already (raise it: analyze.ts), and running it
 * again to its end would reach the same limit: nothing added.
 */
function cutFix(run: RunResult): string {
  if (run.durationCapS !== undefined && run.stopReason === 'interrupted') return '';
  return `; ${
    run.rules.imported
      ? 'import the whole output of a k6 run with a stage or two past its limit (a later step that fails too confirms a failure)'
      : 'run it again to its end (a run cut short once a rerun confirmed its limit can be judged)'
  }`;
}

/** Why the run cannot be judged; empty when it can. */
export function unjudgeableReasons(run: RunResult): string[] {
  const out: string[] = [];
  const stop = run.stopReason as string;
  // a stop of its own (a closed model, an outage) gives its own reason and fix, cut short or not
  if (stop === 'error') out.push(`the run ended early: ${run.stopDetail}`);
  else if (stop === 'closed-model') out.push(`closed model: ${run.stopDetail}`);
  else if (stop === 'unconfirmed') out.push(`a failure nothing confirmed: ${run.stopDetail}`);
  else if (stop === 'target-unreachable') out.push(`the target was unreachable: ${run.stopDetail}`);
  else if (stop === 'scenario-errors') out.push(`the scenario's own errors failed the run: ${run.stopDetail}`);
  else if (stop === 'topology-unsteady') out.push(`the topology never held still: ${run.stopDetail}`);
  // cut short after its limit was confirmed, a run keeps its capacity (the report shows it): judged
  else if ((run.interrupted || stop === 'interrupted') && establishedCapacity(run) === null)
    out.push(
      `interrupted before its limit was confirmed, so it established no capacity: ${run.stopDetail}${cutFix(run)}`,
    );
  // the failing attempt that decides, as the headline reads it (a generator-bound confirmation of a
  // failure at the target does not make the run the generator's: deciding-steps.ts)
  const genStep = generatorBoundFailure(run.steps) ?? undefined;
  if (run.generatorBound || stop === 'generator-bound' || genStep) {
    out.push(
      `generator-bound: the load generator, not the target, was the limit${genStep ? ` (step ${genStep.index + 1})` : ''}; ${genStep ? generatorFix(genStep, run.rules.imported) : generatorFixUnread(run.rules.imported)}`,
    );
  }
  const cap =
    run.kneeStep === null
      ? null
      : (run.steps as Flagged[]).find((s) => s.index === run.kneeStep && s.verdict === 'holds' && !s.contaminated);
  if (!genStep && cap?.generatorLimited)
    out.push(
      `generator-limited: capacity rests on step ${cap.index + 1}, which held while the generator was over its bounds (${symptomText(cap.generatorLimited, cap)}); ${generatorFix(cap, run.rules.imported)}`,
    );
  const dirty = judgedPrefix(run).find((s) => s.contaminated);
  // a topology that never held still says so above, with its fix
  if ((run.contaminated || dirty) && stop !== 'topology-unsteady')
    out.push(
      `contaminated: the target changed during a judged step${dirty ? ` (step ${dirty.index + 1})` : ''}; rerun on a steady topology`,
    );
  const failedStage = run.stages.find((s) => s.status === 'fail' && s.name !== 'steps' && s.name !== 'report');
  if (failedStage) out.push(`stage ${failedStage.name} failed: ${failedStage.detail}`);
  return out;
}
