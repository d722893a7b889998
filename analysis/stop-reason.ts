/**
 * The ordinary stop reason of a judged run, read at its first deciding step that did not hold:
 * interrupted, the plan's end (max-rate-reached, or an early end), a step with no data, the
 * generator's limit, the first step failed, or the plateau. The stops that find no limit where a
 * step failed (an outage, an unconfirmed failure, a closed model, refused names) are
 * no-limit-stops.ts's; stop.ts chooses between them.
 */
import { fmtInt, fmtPercent, fmtRate, fmtRatio, fmtTarget, quoted, unitCounts, unitOf } from './format.ts';
import type { RateUnit, Rules, StepResult, StopReason } from './types.ts';
import { FAILED_MIN, NAME_SHARE_WARN } from './failures-in-held.ts';
import { generatorFix } from './generator-fix.ts';
import { otherFailuresClause } from './other-failures.ts';
import { confirmingAttempt } from './deciding-steps.ts';
import {
  ERROR_NOTE_MIN,
  entryBehind,
  failureClause,
  failuresClause,
  failuresFailedIt,
  answersRejected,
  shapeNotes,
  stillFollowing,
} from './failure-clause.ts';
import { sustainedPerSec } from './overload-shape.ts';
import { interruptedDetail } from './interrupted-stop.ts';
import { stepName } from './step-name.ts';
import { failuresKept, type FailedAt } from './failures-with-rate.ts';

type StopLine = { stopReason: StopReason; stopDetail: string };

/**
 * The stop reason at `steps[prefix]`, the first deciding step that did not hold (none: the plan's
 * end), or `interrupted` where the run was cut short.
 */
export function reasonAndDetail(
  steps: readonly StepResult[],
  ran: readonly StepResult[],
  prefix: number,
  plannedSteps: number,
  /** Where the run was interrupted; null when it was not. */
  where: string | null,
  rules: Rules,
  capacityPerSec: number | null,
  /** The warmup's arrivals and their failures, null without a warmup: a failed first step is read against it. */
  warmup: FailedAt | null = null,
): StopLine {
  const unit = unitOf(rules);
  if (where !== null) return { stopReason: 'interrupted', stopDetail: interruptedDetail(where, capacityPerSec, unit) };
  const bad = steps[prefix];
  if (!bad) return endOfPlanReason(steps, ran, plannedSteps, unit);
  if (bad.verdict === 'incomplete' || bad.verdict === 'not-run') {
    return {
      stopReason: 'error',
      stopDetail: `${stepName(bad, unit)} ${bad.reasons[0] ?? 'has no data'}, and the run was not marked interrupted: it ended early`,
    };
  }
  if (bad.generatorBound) return generatorBoundReason(bad, capacityPerSec, rules);
  // only where the failures matter (1% or more): a couple of kind other among thousands casts no doubt
  const other = bad.errorRate >= ERROR_NOTE_MIN ? otherFailuresClause(bad) : null;
  if (prefix === 0) return failedFirstStepReason(bad, other, rules, warmup);
  return plateauReason(steps, bad, steps[prefix - 1], other, rules);
}

/** Every deciding step held: the plan ran to its top rate, or it ended before it with steps unrun. */
function endOfPlanReason(
  steps: readonly StepResult[],
  ran: readonly StepResult[],
  plannedSteps: number,
  unit: RateUnit,
): StopLine {
  if (steps.length === 0) return { stopReason: 'error', stopDetail: 'the plan has no steps' };
  // a contaminated step ran too: it counts as run, though it does not decide
  const ranSteps = new Set(ran.map((s) => s.index)).size;
  if (ranSteps < plannedSteps) {
    return {
      stopReason: 'error',
      stopDetail: `the run ended after ${stepName(ran[ran.length - 1], unit)}: the remaining ${plannedSteps - ranSteps} planned steps produced no data`,
    };
  }
  const last = steps[steps.length - 1];
  return {
    stopReason: 'max-rate-reached',
    stopDetail: `${heldText(steps, ran, plannedSteps)}; the last, ${stepName(last, unit)}, achieved ${fmtRate(last.throughputPerSec)} ${unit}: capacity is at least ${last.throughputPerSec > last.ratePerSec ? `the ${fmtTarget(last.ratePerSec)} ${unit} offered` : 'that'}, raise the top rate to find the plateau`,
  };
}

/**
 * "all 4 planned steps held", or where a rate ran with no attempt that decides (the topology
 * changed during each), "2 of 3 planned steps held; step 2 left out: ...": never counted as held.
 */
function heldText(steps: readonly StepResult[], ran: readonly StepResult[], plannedSteps: number): string {
  const deciding = new Set(steps.map((s) => s.index));
  const out = [...new Set(ran.map((s) => s.index).filter((i) => !deciding.has(i)))];
  if (out.length === 0) return `all ${steps.length} planned steps held`;
  const why = (i: number) =>
    ran.every((s) => s.index !== i || s.contaminated)
      ? 'the topology changed during every attempt at its rate'
      : 'no attempt at its rate decides';
  const named = out.map((i) => `step ${i + 1} left out: ${why(i)}`).join('; ');
  return `${steps.length} of ${plannedSteps} planned steps held; ${named}`;
}

/** The load generator, not the target, failed the step: no capacity, and what would let it keep up. */
function generatorBoundReason(bad: StepResult, capacityPerSec: number | null, rules: Rules): StopLine {
  const unit = unitOf(rules);
  return {
    stopReason: 'generator-bound',
    stopDetail: `${stepName(bad, unit)} failed because the load generator could not keep up, not the target${bad.verdictDetail ? ` (${bad.verdictDetail})` : ''}: this run cannot establish capacity; ${capacityPerSec === null ? 'no step held' : `at least ${fmtRate(capacityPerSec)} ${unit} held`}. To measure further, ${generatorFix(bad, rules.imported)}`,
  };
}

/**
 * The first step failed: the target sustains less than the lowest rate, unless its failures say
 * otherwise (the answers' own, or a share the warmup's lower rate failed as well).
 */
function failedFirstStepReason(bad: StepResult, other: string | null, rules: Rules, warmup: FailedAt | null): StopLine {
  const unit = unitOf(rules);
  // a generator symptom with no step held to judge the target's tail by: no side is blamed
  const ofFailures = !bad.inconclusive && other === null && failuresFailedIt(bad, rules);
  const rejected = ofFailures && answersRejected(bad);
  const kept = ofFailures && !rejected && warmup !== null && failuresKept(warmup, bad);
  const failures = rejected || kept;
  const whose = bad.inconclusive
    ? `; ${bad.verdictDetail}`
    : other !== null
      ? `: ${other}`
      : rejected
        ? // a lower rate would fail them as well: 'start lower' would send the user the wrong way
          `: ${failuresClause(bad, rules, unit)}; a lower rate would fail them too: read the errors table (kinds, samples, by name) and fix the request, its check or the target`
        : kept
          ? `: ${failuresClause(bad, rules, unit)}${keptClause(warmup, bad, unit)}`
          : ': the target sustains less than the lowest offered rate; start lower';
  return {
    stopReason: 'failed-first-step',
    stopDetail: `${stepName(bad, unit)}, the first step, ${failureClause(bad, null, rules)}${whose}${shapeNotes(bad, null, unit, rules.okLowerBound, failures)}`,
  };
}

/**
 * A step past the knee failed: throughput stopped following the offered rate; or, where its capture
 * held, still followed it short of it (the limit lies between the knee and this step); or its
 * completions kept up and its failures failed it.
 */
function plateauReason(
  steps: readonly StepResult[],
  bad: StepResult,
  knee: StepResult,
  other: string | null,
  rules: Rules,
): StopLine {
  const unit = unitOf(rules);
  // the figures of the attempt the run stopped on: a confirmation can fail on another rule than the first
  const last = confirmingAttempt(steps, bad);
  const which = last === bad ? '' : `attempt ${last.attempt ?? 1}, which confirmed it`;
  // only where the capture held: past a knee where throughput stopped following (a fail-fast
  // pool's 503s), the failures are how the target sheds the load it cannot serve
  const following = stillFollowing(last, rules);
  const failures = following && failuresFailedIt(last, rules);
  const behind = entryBehind(last, rules);
  const what = behind
    ? `the mix is held back by "${quoted(behind.name, 60)}", which fell behind while the others kept up: the mix's limit lies between the ${fmtRate(sustainedPerSec(knee))} ${unit} held and this step's ${fmtTarget(last.ratePerSec)}${rules.imported === true ? '' : ' (finer steps find it: --step-rate)'}`
    : failures
      ? failuresClause(last, rules, unit)
      : following
        ? `throughput still followed the offered rate (captured ${fmtRatio(last.capture)} of the added rate), short of it: the limit lies between the ${fmtRate(sustainedPerSec(knee))} ${unit} held and the ${fmtRate(last.throughputPerSec)} achieved${rules.imported === true ? '' : ' (finer steps find it: --step-rate)'}`
        : `throughput stopped following the offered rate at about ${fmtInt(Math.max(last.throughputPerSec, knee.throughputPerSec))} ${unit}`;
  return {
    stopReason: 'plateau',
    stopDetail: `${stepName(last, unit, which)} ${failureClause(last, knee, rules)}: ${what}${shapeNotes(last, knee, unit, rules.okLowerBound, failures)}${other === null ? '' : `; but ${other}`}`,
  };
}

/** Names a stop line lists, at most: the rest are counted. */
const NAMES_SHOWN = 3;

/** The names that failed, most failures first: ": broken 40 of 40 failed (http_5xx), ..." ("" without names that failed). */
function failingNames(step: Pick<StepResult, 'byName'>): string {
  const failing = Object.entries(step.byName ?? {})
    .filter(([, n]) => n.failed >= FAILED_MIN && n.errorRate >= NAME_SHARE_WARN)
    .sort((a, b) => b[1].failed - a[1].failed);
  const shown = failing.slice(0, NAMES_SHOWN).map(([name, n], i) => {
    const kinds = Object.entries(n.errors)
      .filter(([, c]) => (c ?? 0) > 0)
      .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
      .map(([k]) => k);
    return `${quoted(name, 60)} ${fmtInt(n.failed)} of ${fmtInt(n.completed)}${i === 0 ? ' failed' : ''}${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}`;
  });
  const more = failing.length - shown.length;
  return shown.length === 0 ? '' : `: ${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
}

/**
 * The stop's clause where the failures kept their share at the warmup's lower rate: both shares
 * with their counts and rates, and what to fix instead of starting lower.
 */
function keptClause(warmup: FailedAt, step: StepResult, unit: RateUnit): string {
  const share = (f: FailedAt) => `${fmtPercent(f.failed / f.completed)} of ${fmtInt(f.completed)}`;
  return `; they do not fall with the rate, so starting lower would fail them too (the warmup at ${fmtTarget(warmup.ratePerSec)} ${unit} failed ${share(warmup)} ${unitCounts(unit)}, this step at ${fmtTarget(step.ratePerSec)} ${share(step)}): fix what fails in the target or in the scenario's requests${failingNames(step)}; the errors table gives kinds and samples`;
}
