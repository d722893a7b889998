/**
 * Capacity, knee, peak and the stop reason of a judged run.
 *
 *   capacity = X of the last step of the holding prefix (steps 0..k all hold, step k+1 does not)
 *   knee     = that step k
 *   peak     = max X over every step whose steady window is whole (peak.ts: may lie after the knee,
 *              e.g. a noisy rerun; never a step cut short)
 *
 * Steps after the first non-holding step never raise capacity: the plateau is where the rule
 * first fired.
 */
import {
  fmtInt,
  fmtPercent,
  fmtRate,
  fmtRatio,
  fmtRatioBelow,
  fmtSignedRate,
  fmtSignedTarget,
  fmtTarget,
  quoted,
  stepNo,
  unitCounts,
  unitOf,
} from './format.ts';
import type { Cut, RateUnit, Rules, RunResult, StageOutcome, StepResult, StopReason } from './types.ts';
import { cutWords } from './cut.ts';
import { fellTo, sustainedPerSec } from './overload-shape.ts';
import { generatorFix } from './generator-fix.ts';
import { captureBaseline } from './judge.ts';
import { peakOf } from './peak.ts';
import { otherFailuresClause, refusedDominates } from './other-failures.ts';

export type StopSummary = Pick<
  RunResult,
  'capacityPerSec' | 'heldAtLeastPerSec' | 'kneeStep' | 'peakPerSec' | 'peakStep' | 'stopReason' | 'stopDetail'
>;

/** Error share above which a stop sentence names the errors. */
const ERROR_NOTE_MIN = 0.01;

/** "step 17 (850 arrivals/s)", or with a note inside the same parentheses: "(850 arrivals/s, attempt 2 ...)". */
export function stepName(s: Pick<StepResult, 'index' | 'ratePerSec'>, unit: RateUnit, note = ''): string {
  return `step ${stepNo(s.index)} (${fmtTarget(s.ratePerSec)} ${unit}${note === '' ? '' : `, ${note}`})`;
}

/** "step 3 (300 req/s)", or "step 3 (300 req/s, attempt 2)" for a rerun. */
export function attemptName(s: Pick<StepResult, 'index' | 'ratePerSec' | 'attempt'>, unit: RateUnit): string {
  return stepName(s, unit, (s.attempt ?? 1) > 1 ? `attempt ${s.attempt}` : '');
}

/** Why a run stops at sends refused for their name: the scenario's failures, not the target's. */
export function refusedNamesWhy(refused: { count: number; first: string }, tail = ''): string {
  return `plateau refused ${fmtInt(refused.count)} ${refused.count === 1 ? 'send' : 'sends'} of the scenario for their name and failed their arrivals itself: those failures are the scenario's, not the target's${tail}${refused.first === '' ? '' : `; the first: "${quoted(refused.first, 240)}"`}`;
}

/**
 * The stop of a run whose scenario sent names plateau refused (from the first attempt with any):
 * stopped there, no capacity established; what held before that attempt is kept as a lower bound.
 */
function refusedNamesStop(all: readonly StepResult[], rules: Rules): StopSummary | null {
  const at = all.findIndex((s) => s.refusedNames !== undefined);
  if (at === -1) return null;
  const refused = all[at];
  const before = decidingSteps(all.slice(0, at));
  const prefix = holdingPrefixLength(before);
  const knee = prefix > 0 ? before[prefix - 1] : null;
  const held = knee === null ? null : sustainedPerSec(knee);
  const unit = unitOf(rules);
  return {
    capacityPerSec: null,
    heldAtLeastPerSec: held,
    kneeStep: knee?.index ?? null,
    ...peakOf(all.filter((s) => !s.contaminated)),
    stopReason: 'error',
    stopDetail: `${attemptName(refused, unit)}: ${refusedNamesWhy(refused.refusedNames!, `, so this run establishes no capacity (${held === null ? 'no step held before it' : `at least ${fmtRate(held)} ${unit} held before it`})`)}`,
  };
}

/** Number of leading steps that hold. */
function holdingPrefixLength(steps: readonly StepResult[]): number {
  const firstBad = steps.findIndex((s) => s.verdict !== 'holds');
  return firstBad === -1 ? steps.length : firstBad;
}

/** What the rule saw at the first failing step, e.g. "delivered 0.82 < 0.90". */
function failureClause(s: StepResult, prev: StepResult | null, rules: Rules): string {
  const unit = unitOf(rules);
  if (s.delivery < rules.deliveryMin) {
    return `delivered ${rules.okLowerBound ? 'at least ' : ''}${fmtRatioBelow(s.delivery, rules.deliveryMin)} < ${fmtRatio(rules.deliveryMin)} (${fmtRate(s.throughputPerSec)} ${unit} achieved)`;
  }
  const gained = prev ? fmtSignedRate(s.throughputPerSec - captureBaseline(prev, rules)) : '?';
  const added = prev ? fmtSignedTarget(s.ratePerSec - prev.ratePerSec) : '?';
  return `captured ${s.capture === null ? fmtRatio(null) : fmtRatioBelow(s.capture, rules.captureMin)} < ${fmtRatio(rules.captureMin)} of the added rate (${gained} ${unit} for ${added} offered)`;
}

/** Extra clauses: collapse (X fell below the knee) and errors. */
function shapeNotes(s: StepResult, knee: StepResult | null, unit: RateUnit, okLowerBound = false): string {
  const notes: string[] = [];
  const most = knee ? fellTo(s, knee, okLowerBound) : null;
  if (knee && most !== null) {
    notes.push(
      okLowerBound
        ? `throughput fell from at least ${fmtRate(sustainedPerSec(knee))} to at most ${fmtRate(most)} ${unit} (collapse)`
        : `throughput fell from ${fmtRate(sustainedPerSec(knee))} to ${fmtRate(s.throughputPerSec)} ${unit} (collapse)`,
    );
  }
  if (s.errorRate >= ERROR_NOTE_MIN)
    notes.push(`${okLowerBound ? 'up to ' : ''}${fmtPercent(s.errorRate)} of completed ${unitCounts(unit)} failed`);
  return notes.length > 0 ? `; ${notes.join('; ')}` : '';
}

function interruptedDetail(where: string, capacityPerSec: number | null, unit: RateUnit): string {
  const held =
    capacityPerSec === null
      ? 'no step held before it'
      : `at least ${fmtRate(capacityPerSec)} ${unit} held before it: capacity not established`;
  return `${where}; ${held}`;
}

/** The reason of a limit found before the run was interrupted, with where the cut fell. */
function cutAfterLimit(
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
function cutOfSteps(steps: readonly StepResult[]): Cut | null {
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
function whereInterrupted(all: readonly StepResult[], cut: Cut | null, unit: RateUnit): string {
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

function reasonAndDetail(
  steps: readonly StepResult[],
  ran: readonly StepResult[],
  prefix: number,
  plannedSteps: number,
  /** Where the run was interrupted; null when it was not. */
  where: string | null,
  rules: Rules,
  capacityPerSec: number | null,
): { stopReason: StopReason; stopDetail: string } {
  const unit = unitOf(rules);
  if (where !== null) return { stopReason: 'interrupted', stopDetail: interruptedDetail(where, capacityPerSec, unit) };
  const bad = steps[prefix];
  const knee = prefix > 0 ? steps[prefix - 1] : null;
  if (!bad) {
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
      stopDetail: `all ${steps.length} planned steps held; the last, ${stepName(last, unit)}, achieved ${fmtRate(last.throughputPerSec)} ${unit}: capacity is at least ${last.throughputPerSec > last.ratePerSec ? `the ${fmtTarget(last.ratePerSec)} ${unit} offered` : 'that'}, raise the top rate to find the plateau`,
    };
  }
  if (bad.verdict === 'incomplete' || bad.verdict === 'not-run') {
    return {
      stopReason: 'error',
      stopDetail: `${stepName(bad, unit)} ${bad.reasons[0] ?? 'has no data'}, and the run was not marked interrupted: it ended early`,
    };
  }
  if (bad.generatorBound) {
    return {
      stopReason: 'generator-bound',
      stopDetail: `${stepName(bad, unit)} failed because the load generator could not keep up, not the target${bad.verdictDetail ? ` (${bad.verdictDetail})` : ''}: this run cannot establish capacity; ${capacityPerSec === null ? 'no step held' : `at least ${fmtRate(capacityPerSec)} ${unit} held`}. To measure further, ${generatorFix(bad, rules.imported)}`,
    };
  }
  // only where the failures matter (1% or more): a couple of kind other among thousands casts no doubt
  const other = bad.errorRate >= ERROR_NOTE_MIN ? otherFailuresClause(bad) : null;
  if (prefix === 0) {
    // a generator symptom with no step held to judge the target's tail by: no side is blamed
    const whose = bad.inconclusive
      ? `; ${bad.verdictDetail}`
      : other !== null
        ? `: ${other}`
        : ': the target sustains less than the lowest offered rate; start lower';
    return {
      stopReason: 'failed-first-step',
      stopDetail: `${stepName(bad, unit)}, the first step, ${failureClause(bad, null, rules)}${whose}${shapeNotes(bad, null, unit, rules.okLowerBound)}`,
    };
  }
  // the figures of the attempt the run stopped on: a confirmation can fail on another rule than the first
  const last = confirmingAttempt(steps, bad);
  const which = last === bad ? '' : `attempt ${last.attempt ?? 1}, which confirmed it`;
  return {
    stopReason: 'plateau',
    stopDetail: `${stepName(last, unit, which)} ${failureClause(last, knee, rules)}: throughput stopped following the offered rate at about ${fmtInt(Math.max(last.throughputPerSec, knee?.throughputPerSec ?? 0))} ${unit}${shapeNotes(last, knee, unit, rules.okLowerBound)}${other === null ? '' : `; but ${other}`}`,
  };
}

/** The failed attempts at bad's rate among the deciding steps, in order: the first, then its confirmation. */
export function failedAttemptsAt(steps: readonly StepResult[], bad: StepResult | null): StepResult[] {
  return bad === null ? [] : steps.filter((s) => s.index === bad.index && s.verdict === 'fails');
}

/** The last failed attempt at bad's rate at the target: the confirmation, where one ran. */
function confirmingAttempt(steps: readonly StepResult[], bad: StepResult): StepResult {
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
): StopSummary {
  const where = interrupted ? whereInterrupted(all, cut === undefined ? cutOfSteps(all) : cut, unitOf(rules)) : null;
  const steps = decidingSteps(all);
  const prefix = holdingPrefixLength(steps);
  const knee = prefix > 0 ? steps[prefix - 1] : null;
  // at most what the knee was offered (a window that drained a backlog did not sustain its surge);
  // a closed model was offered no rate
  const heldAtLeastPerSec = knee === null ? null : closedModel ? knee.throughputPerSec : sustainedPerSec(knee);
  const heldLater = heldAfterFailure(steps);
  // a step failed because nothing listened at the target: an outage, not a limit (in a run cut
  // short after it too: the cut confirms no limit there)
  const outage = failedAtTarget(steps[prefix])
    ? unreachableReason(steps, steps[prefix], heldAtLeastPerSec, rules)
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
  const failedStage = stages.find((s) => s.status === 'fail' && s.name !== 'steps' && s.name !== 'report');
  // interrupted: the attempt the interrupt cut was never decided, so no refusal stopped the run live
  const refusal = failedStage || interrupted ? null : refusedNamesStop(all, rules);
  if (refusal !== null) return refusal;
  const reason =
    failedStage && !interrupted
      ? { stopReason: `${failedStage.name}-failed` as StopReason, stopDetail: failedStage.detail }
      : closedModel
        ? closedModelReason(heldAtLeastPerSec, rules)
        : (heldLater !== null || lastUnconfirmed) && !interrupted
          ? unconfirmedReason(steps[prefix], knee, heldLater, heldAtLeastPerSec, rules, steps.slice(prefix + 1))
          : outage !== null && where !== null
            ? cutAfterLimit(outage, where)
            : (outage ?? reasonAndDetail(steps, all, prefix, plannedSteps, where, rules, heldAtLeastPerSec));
  // a run cut short after its limit was confirmed (an import's file ending mid-step past two failed
  // steps): the limit's reason, and the cut said after it
  const said =
    where !== null && established && reason.stopReason === 'interrupted'
      ? cutAfterLimit(reasonAndDetail(steps, all, prefix, plannedSteps, null, rules, heldAtLeastPerSec), where)
      : reason;
  return {
    capacityPerSec: established ? heldAtLeastPerSec : null,
    heldAtLeastPerSec,
    kneeStep: knee?.index ?? null,
    ...peakOf(all.filter((s) => !s.contaminated)),
    ...said,
  };
}

/**
 * The stop of a run whose failing step failed of refused connections: every failed attempt at its
 * rate failed mostly of them, and they explain the failure (served, the refused requests would
 * have carried delivery to its bound). The target went away: it stopped, crashed or restarted,
 * perhaps under this load, which says nothing of where its throughput levels off. Null otherwise,
 * so a few refusals among a saturated target's failures, or an attempt that failed of 503s before
 * the target fell over, keep the limit they found.
 */
function unreachableReason(
  steps: readonly StepResult[],
  bad: StepResult,
  held: number | null,
  rules: Rules,
): { stopReason: StopReason; stopDetail: string } | null {
  const attempts = failedAttemptsAt(steps, bad).filter((s) => !s.generatorBound);
  if (attempts.length === 0 || !attempts.every((s) => refusalsFailedIt(s, rules.deliveryMin))) return null;
  const last = confirmingAttempt(steps, bad);
  const refused = refusedDominates(last)!;
  const unit = unitOf(rules);
  return {
    stopReason: 'target-unreachable',
    stopDetail: `${stepName(last, unit)} failed of refused connections: ${fmtInt(refused.refused)} of its requests (${fmtPercent(refused.share)} of its failures) found nothing listening at the target, which stopped, crashed or restarted during it (perhaps under this load); that is an outage, not a plateau: ${held === null ? 'no step held before it' : `at least ${fmtRate(held)} ${unit} held before it`}; rerun once the target is up (and read its logs if it fell over under the load)`,
  };
}

/** The step's failures are mostly refusals, and served they would have carried its delivery to the bound. */
function refusalsFailedIt(s: StepResult, deliveryMin: number): boolean {
  const refused = refusedDominates(s);
  if (refused === null || s.ratePerSec <= 0 || s.steadyS <= 0) return false;
  return (s.throughputPerSec + refused.refused / s.steadyS) / s.ratePerSec >= deliveryMin;
}

/** A step that failed at the target's hand (not the generator's, not inconclusive). */
function failedAtTarget(s: StepResult | undefined): boolean {
  return s !== undefined && s.verdict === 'fails' && !s.generatorBound && !s.inconclusive;
}

/**
 * The stop of an import whose first failure nothing confirmed: a later step held after it (`later`),
 * or none after it failed too (`later` null): one window, never rerun.
 */
function unconfirmedReason(
  bad: StepResult,
  knee: StepResult | null,
  later: StepResult | null,
  held: number | null,
  rules: Rules,
  /** The steps after the failure: a generator-bound one could not confirm it, and gets its own fix. */
  after: readonly StepResult[] = [],
): { stopReason: StopReason; stopDetail: string } {
  const unit = unitOf(rules);
  const bound = after.find((s) => s.generatorBound);
  const heldBefore = `capacity not established${held === null ? '' : ` (${fmtRate(held)} ${unit} held before it)`}`;
  return {
    stopReason: 'unconfirmed',
    stopDetail:
      later !== null
        ? `${stepName(bad, unit)} ${failureClause(bad, knee, rules)}, but ${stepName(later, unit)} held after it (${fmtRate(later.throughputPerSec)} ${unit} achieved): the failure was no limit (a run that goes on past a failure, as an imported k6 run does, has no rerun to confirm it); ${heldBefore}: judge a run that stops at its knee, or look at what failed in ${stepName(bad, unit)}`
        : `${stepName(bad, unit)} ${failureClause(bad, knee, rules)}, and no step after it confirmed the failure (a live run reruns a failed step; an imported run is confirmed by a later step that fails too): ${heldBefore}: ${bound ? `${stepName(bound, unit)} could not confirm it, the generator's limit: ${generatorFix(bound, rules.imported)}` : `run the k6 scenario with a stage or two past ${fmtTarget(bad.ratePerSec)} ${unit}`}`,
  };
}

/** The stop of a closed-model run: whatever its steps did, they were judged against rates it was never offered. */
function closedModelReason(held: number | null, rules: Rules): { stopReason: StopReason; stopDetail: string } {
  const unit = unitOf(rules);
  return {
    stopReason: 'closed-model',
    stopDetail: `a closed-model k6 run (constant-vus, ramping-vus...): its VUs set the load and it was offered no rate, so delivery and capture against the rates given at the import measure nothing; capacity not established${held === null ? '' : ` (${fmtRate(held)} ${unit} held)`}: run a ramping-arrival-rate scenario to measure one`,
  };
}

/**
 * Did a step fail at the target past the knee? Not the generator's limit, not unjudged, and
 * confirmed: in an import (which never reruns) by a later step that failed at the target too; in a
 * live run cut short, by a second failed attempt at its rate (its rerun).
 */
function limitFound(
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
