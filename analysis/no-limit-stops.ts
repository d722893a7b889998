/**
 * The stops of a run whose failing step found no limit of the target: sends plateau refused for
 * their name, or names spread over threads past the run's limit (the scenario's failures), refused
 * connections (an outage), an import's failure nothing confirmed, and a closed-model run (offered
 * no rate). None establishes a capacity; each says what held before it and what to do.
 */
import { fmtInt, fmtPercent, fmtRate, fmtRatio, fmtTarget, quoted, unitOf } from './format.ts';
import type { Rules, StepResult, StopReason } from './types.ts';
import { generatorFix } from './generator-fix.ts';
import { OTHER_DOMINATES, REFUSED_DOMINATES, refusedDominates } from './other-failures.ts';
import { confirmingAttempt, failedAttemptsAt } from './deciding-steps.ts';
import { failureClause } from './failure-clause.ts';
import { stepName } from './step-name.ts';
import { MAX_NAMES, NAME_FIX } from './names-limit.ts';

/** Why a run stops at sends refused for their name: the scenario's failures, not the target's. */
export function refusedNamesWhy(refused: { count: number; first: string }, tail = ''): string {
  return `plateau refused ${fmtInt(refused.count)} ${refused.count === 1 ? 'send' : 'sends'} of the scenario for their name and failed their arrivals itself: those failures are the scenario's, not the target's${tail}${refused.first === '' ? '' : `; the first: "${quoted(refused.first, 240)}"`}`;
}

/**
 * Why a run stops at names spread over the engine threads that passed the run's limit together
 * (names-spread.ts): no send was refused, but such names are built from data, and a run of them has
 * no rows to report by; with the fix.
 */
export function namesSpreadWhy(spread: { names: number; first: string }, tail = ''): string {
  return `the scenario's names, spread over the engine threads, passed the run's ${MAX_NAMES} together: ${fmtInt(spread.names)} distinct names, each thread under its own ${MAX_NAMES} (past which a thread refuses a send; in a merge of runs, each run's threads); names built from data leave no rows to report by, and the run stops here as at a send refused for its name${tail}; the first past ${MAX_NAMES}: "${quoted(spread.first, 240)}"; ${NAME_FIX}`;
}

/** Why a step stops the run for its names (a thread refused sends, or the threads' names passed the limit together), null if none did. */
export function nameStopWhy(s: Pick<StepResult, 'refusedNames' | 'namesSpread'>, tail = ''): string | null {
  if (s.refusedNames !== undefined) return refusedNamesWhy(s.refusedNames, tail);
  return s.namesSpread !== undefined ? namesSpreadWhy(s.namesSpread, tail) : null;
}

/**
 * The stop of a run whose failing step failed of refused connections: every failed attempt at its
 * rate failed mostly of them, and they explain the failure (served, the refused requests would
 * have carried delivery to its bound). The target went away: it stopped, crashed or restarted,
 * perhaps under this load, which says nothing of where its throughput levels off. Null otherwise,
 * so a few refusals among a saturated target's failures, or an attempt that failed of 503s before
 * the target fell over, keep the limit they found.
 */
export function unreachableReason(
  steps: readonly StepResult[],
  bad: StepResult,
  held: number | null,
  rules: Rules,
): { stopReason: StopReason; stopDetail: string } | null {
  const last = failedOfKind(steps, bad, 'refused', rules.deliveryMin);
  if (last === null) return null;
  const refused = refusedDominates(last)!;
  const unit = unitOf(rules);
  return {
    stopReason: 'target-unreachable',
    stopDetail: `${stepName(last, unit)} failed of refused connections: ${fmtInt(refused.refused)} of its requests (${fmtPercent(refused.share)} of its failures) found nothing listening at the target, which stopped, crashed or restarted during it (perhaps under this load); that is an outage, not a plateau: ${held === null ? 'no step held before it' : `at least ${fmtRate(held)} ${unit} held before it`}; rerun once the target is up (and read its logs if it fell over under the load)`,
  };
}

/**
 * The stop of a run whose failing step failed of the scenario's own errors: every failed attempt at
 * its rate failed mostly of kind other (no answer of the target's made them: request(ctx) or run
 * threw, a send came after its transaction ended, a unique source ran out), and they explain the
 * failure (served, they would have carried delivery to its bound). A reviewer's transaction threw
 * in half its arrivals and the demo, which sustains 800/s, read "capacity 18.0". The run is not
 * stopped by the throws themselves (each costs its arrival); its analysis establishes no capacity.
 * Null otherwise: a few of them among the target's own failures keep the limit those found.
 */
export function scenarioErrorsReason(
  steps: readonly StepResult[],
  bad: StepResult,
  held: number | null,
  rules: Rules,
): { stopReason: StopReason; stopDetail: string } | null {
  const last = failedOfKind(steps, bad, 'other', rules.deliveryMin);
  if (last === null) return null;
  const total = Object.values(last.errors).reduce((a, n) => a + (n ?? 0), 0);
  const other = last.errors.other ?? 0;
  const first = last.errorSamples?.find((m) => m.startsWith('other: '));
  const unit = unitOf(rules);
  return {
    stopReason: 'scenario-errors',
    stopDetail: `${stepName(last, unit)} failed of the scenario's own errors: ${fmtInt(other)} of its arrivals (${fmtPercent(other / total)} of its failures) failed of kind other, which no answer of the target's made (request(ctx) or run threw, a send came after its transaction ended, or a transport error plateau does not classify)${first === undefined ? '' : `; the first: "${quoted(first.slice('other: '.length), 240)}"`}; served, they would have carried its delivery to ${fmtRatio(rules.deliveryMin)}: that is no limit of the target: ${held === null ? 'no step held before it' : `at least ${fmtRate(held)} ${unit} held before it`}; fix the scenario (the errors by name give each message) and rerun`,
  };
}

/** Over this share of a step's failures, the kind is what the step failed of (other-failures.ts). */
const DOMINATES = { other: OTHER_DOMINATES, refused: REFUSED_DOMINATES } as const;

/**
 * The attempt a run stopped on at `bad`'s rate (confirmingAttempt), where every failed attempt
 * there (the generator's aside) failed of `kind` (kindFailedIt); null otherwise.
 */
function failedOfKind(
  steps: readonly StepResult[],
  bad: StepResult,
  kind: keyof typeof DOMINATES,
  deliveryMin: number,
): StepResult | null {
  const attempts = failedAttemptsAt(steps, bad).filter((s) => !s.generatorBound);
  if (attempts.length === 0 || !attempts.every((s) => kindFailedIt(s, kind, deliveryMin))) return null;
  return confirmingAttempt(steps, bad);
}

/**
 * The step's failures are mostly of `kind` (refused connections, or the scenario's own errors), and
 * served they would have carried its delivery to the bound.
 */
function kindFailedIt(s: StepResult, kind: keyof typeof DOMINATES, deliveryMin: number): boolean {
  const total = Object.values(s.errors).reduce((a, n) => a + (n ?? 0), 0);
  const n = s.errors[kind] ?? 0;
  if (total === 0 || n / total <= DOMINATES[kind] || s.ratePerSec <= 0 || s.steadyS <= 0) return false;
  return (s.throughputPerSec + n / s.steadyS) / s.ratePerSec >= deliveryMin;
}

/**
 * The stop of an import whose first failure nothing confirmed: a later step held after it (`later`),
 * or none after it failed too (`later` null): one window, never rerun.
 */
export function unconfirmedReason(
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
export function closedModelReason(held: number | null, rules: Rules): { stopReason: StopReason; stopDetail: string } {
  const unit = unitOf(rules);
  return {
    stopReason: 'closed-model',
    stopDetail: `a closed-model k6 run (constant-vus, ramping-vus...): its VUs set the load and it was offered no rate, so delivery and capture against the rates given at the import measure nothing; capacity not established${held === null ? '' : ` (${fmtRate(held)} ${unit} held)`}: run a ramping-arrival-rate scenario to measure one`,
  };
}
