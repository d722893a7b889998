/**
 * What would let the load generator drive a step it could not (or held over its bounds), read from
 * the step's symptom: the one sentence the stop reason (stop-reason.ts), the gate's "cannot judge"
 * (gate/judgeable.ts), the capacity within the objective (slo.ts) and the downstream verdict
 * (downstream-evidence.ts) give. Pure.
 */
import { fmtInt } from './format.ts';
import type { StepResult } from './types.ts';
import { droppedForWantOfVUs } from './generator-symptoms.ts';
import { stalledNotBusy } from './stalls.ts';
import { generatorsOwn } from './verdicts.ts';

/** More VUs, with how many were allocated where a step says. */
function moreVUs(allocated: number | null, imported: boolean): string {
  const n = allocated === null ? '' : fmtInt(allocated);
  return imported
    ? `raise the k6 scenario's maxVUs${n === '' ? '' : ` (${n} were allocated)`} and run it again`
    : `allow more VUs (vus.max and verdicts.maxVUsBound${n === '' ? '' : `; ${n} were allocated`})`;
}

const MORE_CORES = 'give the generator more cores or workers (--workers), or a machine of its own';
/** k6: no threads of plateau's to add. */
const K6_MORE_CORES =
  'give the generator more cores or a machine of its own (k6 can split the plan over machines: k6.executionSegment)';

/** The fix, an imperative clause ("allow more VUs (...)"); an imported k6 run's in its script's terms. */
export function generatorFix(step: StepResult, imported = false): string {
  // drops while the target queued were the target's (decision 046): more VUs would queue more there
  const s = step.waitedOnTarget ? generatorsOwn(step) : step;
  // a saturated generator's VUs were held by its own queue: more would only add to it
  if (droppedForWantOfVUs(s) > 0 && s.generatorSaturated !== true) return moreVUs(s.vusAllocatedMax, imported);
  // its lateness came from outside (the target or other processes on its machine, CPU steal)
  if (stalledNotBusy(s))
    return 'run the generator on a machine of its own or a quieter one: its threads were mostly idle, so it was stalled, not short of CPU';
  // k6: no threads of plateau's to add; its process's CPU share is what was measured
  if (s.generatorBusy == null && s.generatorCpu != null) return K6_MORE_CORES;
  return MORE_CORES;
}

/**
 * The fix where no step records the symptom to choose by (a summary that flags the run
 * generator-bound and none of its steps): generatorFix's remedies for drops and for CPU, each with
 * when (an imported k6 run's in its terms).
 */
export function generatorFixUnread(imported = false): string {
  return `${moreVUs(null, imported)} where arrivals were dropped; otherwise ${imported ? K6_MORE_CORES : MORE_CORES}`;
}
