/**
 * Capacity, knee, peak and the stop reason of a judged run.
 *
 *   capacity = X of the last step of the holding prefix (steps 0..k all hold, step k+1 does not)
 *   knee     = that step k
 *   peak     = max X over every step whose steady window is whole (peak.ts: may lie after the knee,
 *              e.g. a noisy rerun; never a step cut short)
 *
 * Steps after the first non-holding step never raise capacity: the plateau is where the rule
 * first fired. Which attempts decide is deciding-steps.ts's; the ordinary stop reasons are
 * stop-reason.ts's, those that find no limit no-limit-stops.ts's, a cut run's interrupted-stop.ts's,
 * a topology that never held still topology-unsteady.ts's.
 */
import { fmtRate, unitOf } from './format.ts';
import type { Cut, RunResult, Rules, StageOutcome, StepResult, StopReason } from './types.ts';
import { sustainedPerSec } from './overload-shape.ts';
import { peakOf } from './peak.ts';
import { decidingSteps, failedAtTarget, heldAfterFailure, holdingPrefixLength, limitFound } from './deciding-steps.ts';
import { cutAfterLimit, cutOfSteps, whereInterrupted } from './interrupted-stop.ts';
import {
  closedModelReason,
  nameStopWhy,
  scenarioErrorsReason,
  unconfirmedReason,
  unreachableReason,
} from './no-limit-stops.ts';
import { reasonAndDetail } from './stop-reason.ts';
import type { FailedAt } from './failures-with-rate.ts';
import { attemptName } from './step-name.ts';
import { unsteadyDetail, unsteadyStep } from './topology-unsteady.ts';

export type StopSummary = Pick<
  RunResult,
  'capacityPerSec' | 'heldAtLeastPerSec' | 'kneeStep' | 'peakPerSec' | 'peakStep' | 'stopReason' | 'stopDetail'
>;

/**
 * A stop that establishes no capacity, before the attempts `before` (deciding steps) led to: what
 * held among them kept as the lower bound; `detail` words the stop, given "at least ... held
 * before it" (or "no step held before it").
 */
function stopBefore(
  all: readonly StepResult[],
  before: readonly StepResult[],
  rules: Rules,
  stopReason: StopReason,
  detail: (heldBefore: string) => string,
): StopSummary {
  const prefix = holdingPrefixLength(before);
  const knee = prefix > 0 ? before[prefix - 1] : null;
  const held = knee === null ? null : sustainedPerSec(knee);
  return {
    capacityPerSec: null,
    heldAtLeastPerSec: held,
    kneeStep: knee?.index ?? null,
    ...peakOf(all.filter((s) => !s.contaminated)),
    stopReason,
    stopDetail: detail(
      held === null ? 'no step held before it' : `at least ${fmtRate(held)} ${unitOf(rules)} held before it`,
    ),
  };
}

/**
 * The stop of a run whose scenario sent names plateau refused, or whose threads' names passed the
 * limit together (from the first attempt with either): stopped there, no capacity established;
 * what held before that attempt is kept as a lower bound.
 */
function refusedNamesStop(all: readonly StepResult[], rules: Rules): StopSummary | null {
  const at = all.findIndex((s) => nameStopWhy(s) !== null);
  if (at === -1) return null;
  const refused = all[at];
  return stopBefore(
    all,
    decidingSteps(all.slice(0, at)),
    rules,
    'error',
    (held) =>
      `${attemptName(refused, unitOf(rules))}: ${nameStopWhy(refused, `, so this run establishes no capacity (${held})`)}`,
  );
}

/**
 * The stop of a run whose topology never held still at a rate (topology-unsteady.ts), unless a
 * deciding step before that rate failed (its stop stands): no capacity (docs/decisions/091).
 */
function unsteadyStop(all: readonly StepResult[], rules: Rules): StopSummary | null {
  const first = unsteadyStep(all);
  if (first === null) return null;
  const before = decidingSteps(all.filter((s) => s.index < first.index));
  if (holdingPrefixLength(before) < before.length) return null;
  return stopBefore(all, before, rules, 'topology-unsteady', (held) => unsteadyDetail(all, first, held, unitOf(rules)));
}

/** What the deciding steps say of a run: its knee, what held, and whether the failure past it is a limit. */
interface Reading {
  /** The deciding steps (deciding-steps.ts), and how many of them lead holding. */
  steps: StepResult[];
  prefix: number;
  knee: StepResult | null;
  heldAtLeastPerSec: number | null;
  /** A step that held after the first failure at the target (an import goes on past one). */
  heldLater: StepResult | null;
  /** The stop of a failure of refused connections (an outage) or of the scenario's own errors: not a limit. */
  outage: { stopReason: StopReason; stopDetail: string } | null;
  /** An import's failure at the target past the knee that nothing confirmed. */
  lastUnconfirmed: boolean;
  /** The knee's throughput is the run's capacity. */
  established: boolean;
}

/** The deciding steps of `all` read for capacity, knee and stop (Reading). */
function readSteps(all: readonly StepResult[], interrupted: boolean, rules: Rules, closedModel: boolean): Reading {
  const steps = decidingSteps(all);
  const prefix = holdingPrefixLength(steps);
  const knee = prefix > 0 ? steps[prefix - 1] : null;
  // at most what the knee was offered (a window that drained a backlog did not sustain its surge);
  // a closed model was offered no rate
  const heldAtLeastPerSec = knee === null ? null : closedModel ? knee.throughputPerSec : sustainedPerSec(knee);
  const heldLater = heldAfterFailure(steps);
  // a step failed because nothing listened at the target: an outage, not a limit (in a run cut
  // short after it too: the cut confirms no limit there)
  // or because the scenario's own code failed its arrivals: no limit of the target either
  const outage = failedAtTarget(steps[prefix])
    ? (unreachableReason(steps, steps[prefix], heldAtLeastPerSec, rules) ??
      scenarioErrorsReason(steps, steps[prefix], heldAtLeastPerSec, rules))
    : null;
  const limit = limitFound(steps[prefix], all, interrupted, rules.imported === true);
  // an import's failure at the target past the knee that nothing confirmed (it cannot rerun a step)
  const lastUnconfirmed =
    rules.imported === true &&
    knee !== null &&
    heldLater === null &&
    outage === null &&
    failedAtTarget(steps[prefix]) &&
    !limit;
  const established = knee !== null && !closedModel && heldLater === null && outage === null && limit;
  return { steps, prefix, knee, heldAtLeastPerSec, heldLater, outage, lastUnconfirmed, established };
}

/**
 * Capacity, knee, peak and stop reason of steps judged in order. The knee's throughput is the
 * capacity only where a step failed at the target after it (and, in an interrupted run, that
 * failure was confirmed); otherwise it is what the run held at least.
 */
export function summarizeStop(
  all: readonly StepResult[],
  plannedSteps: number,
  interrupted: boolean,
  rules: Rules,
  stages: readonly StageOutcome[] = [],
  /** A closed-model run (an imported k6 run whose VUs set the load): no offered rate, no capacity. */
  closedModel = false,
  /** Where an interruption cut the steps (cut.ts cutOf), null when no attempt was cut; absent, read from the steps. */
  cut?: Cut | null,
  /** The warmup's arrivals and their failures (failures-with-rate.ts), null or absent without a warmup. */
  warmup: FailedAt | null = null,
): StopSummary {
  const failedStage = stages.find((s) => s.status === 'fail' && s.name !== 'steps' && s.name !== 'report');
  // interrupted: the attempt the interrupt cut was never decided, so no refusal stopped the run live
  const refusal = failedStage || interrupted ? null : refusedNamesStop(all, rules);
  if (refusal !== null) return refusal;
  const unsteady = failedStage || interrupted ? null : unsteadyStop(all, rules);
  if (unsteady !== null) return unsteady;
  const where = interrupted ? whereInterrupted(all, cut === undefined ? cutOfSteps(all) : cut, unitOf(rules)) : null;
  const { steps, prefix, knee, heldAtLeastPerSec, heldLater, outage, lastUnconfirmed, established } = readSteps(
    all,
    interrupted,
    rules,
    closedModel,
  );
  const reason =
    failedStage && !interrupted
      ? { stopReason: `${failedStage.name}-failed` as StopReason, stopDetail: failedStage.detail }
      : closedModel
        ? closedModelReason(heldAtLeastPerSec, rules)
        : (heldLater !== null || lastUnconfirmed) && !interrupted
          ? unconfirmedReason(steps[prefix], knee, heldLater, heldAtLeastPerSec, rules, steps.slice(prefix + 1))
          : outage !== null && where !== null
            ? cutAfterLimit(outage, where)
            : (outage ?? reasonAndDetail(steps, all, prefix, plannedSteps, where, rules, heldAtLeastPerSec, warmup));
  // a run cut short after its limit was confirmed (an import's file ending mid-step past two failed
  // steps): the limit's reason, and the cut said after it
  const said =
    where !== null && established && reason.stopReason === 'interrupted'
      ? cutAfterLimit(reasonAndDetail(steps, all, prefix, plannedSteps, null, rules, heldAtLeastPerSec, warmup), where)
      : reason;
  return {
    capacityPerSec: established ? heldAtLeastPerSec : null,
    heldAtLeastPerSec,
    kneeStep: knee?.index ?? null,
    ...peakOf(all.filter((s) => !s.contaminated)),
    ...said,
  };
}
