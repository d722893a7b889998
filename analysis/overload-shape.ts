/**
 * What shape overload takes past the knee: a plateau (throughput flat), a collapse (it falls), errors
 * (the target fails requests) or generator-bound; and what a step's window shows its target sustained.
 */
import { fmtPercent, fmtTarget, stepNo, unitCounts } from './format.ts';
import { failuresKept, type FailedAt } from './failures-with-rate.ts';
import type { OverloadShape, RateUnit, Rules, StepResult } from './types.ts';
import { otherFailuresClause } from './other-failures.ts';
import { ERROR_NOTE_MIN, stillFollowing } from './failure-clause.ts';

const MEANINGS: Record<OverloadShape['shape'], string> = {
  plateau:
    'throughput stays flat past the knee: requests queue (a thread pool or connection pool with a wait queue); latency grows with the queue',
  collapse:
    "throughput falls as load rises (retrograde scaling): contention or coherency costs grow with concurrency (Gunther's USL beta > 0); back off to below the knee",
  errors:
    'past the knee the target fails requests instead of queueing them (a fail-fast pool, timeouts, rate limits): clients that retry turn this into a retry storm',
  shortfall:
    'throughput still rose past the knee, more slowly than the offered rate: the target nears its limit (its queues grow) somewhere between the last step held and this one; finer steps find where',
  'generator-bound': 'the load generator, not the target, reached its limit: capacity is not known from this run',
  none: 'no step past the knee was measured',
};

/**
 * The throughput step s fell to, when under 95% of `before`'s (a collapse), else null. Where the
 * successes are a lower bound (Rules.okLowerBound) the most it can have served, every completion a
 * success: a fall is shown only where even that is under (a run read 120 -> 112 whose exact count was 130).
 */
/** The errors shape where no step held and no warmup ran: no knee to be past, nothing lower to compare with. */
const FIRST_STEP_ERRORS =
  'the first step failed them, with no step held below it: the target fails requests instead of queueing them from the lowest offered rate on (a fail-fast pool, timeouts, rate limits), or the scenario sends requests it rejects at any rate; the errors table says which, and a warmup at a lower rate tells the two apart';

export function fellTo(s: StepResult, before: StepResult, okLowerBound: boolean): number | null {
  const most = okLowerBound ? s.completedPerSec : s.throughputPerSec;
  return most < 0.95 * sustainedPerSec(before) ? most : null;
}

/**
 * What a step's window shows its target sustained: its throughput, at most the rate it was offered
 * (a window that drained a backlog delivered more than offered without sustaining it: decision 043).
 */
export function sustainedPerSec(s: Pick<StepResult, 'throughputPerSec' | 'ratePerSec'>): number {
  return Math.min(s.throughputPerSec, s.ratePerSec);
}

/**
 * The shape of the first failing step relative to the best throughput before it: a collapse is
 * throughput below 95% of that best (the knee step itself may already have tipped over).
 */
export function overloadShape(
  knee: StepResult | null,
  bad: StepResult | null,
  bestBefore: StepResult | null = knee,
  unit: RateUnit = 'req/s',
  okLowerBound = false,
  /** The stop rule's bounds, by which a step whose capture held is told apart (a shortfall); absent, it is not. */
  rules?: Pick<Rules, 'deliveryMin' | 'captureMin'>,
  /** The warmup's arrivals and their failures: with no knee, the lower rate a first step's failures are read against. */
  warmup: FailedAt | null = null,
): OverloadShape {
  if (!bad) return { shape: 'none', evidence: 'every measured step held', meaning: MEANINGS.none };
  if (bad.generatorBound)
    return {
      shape: 'generator-bound',
      evidence: bad.verdictDetail ?? 'the generator could not keep its schedule',
      meaning: MEANINGS['generator-bound'],
    };
  if (bad.errorRate >= 0.05) {
    const evidence = `${(bad.errorRate * 100).toFixed(1)}% of ${unitCounts(unit)} failed at ${bad.ratePerSec} ${unit} (${Object.entries(
      bad.errors,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')})`;
    return {
      shape: 'errors',
      evidence,
      meaning:
        otherFailuresClause(bad) ??
        failingBefore(knee, bad, unit) ??
        failingInWarmup(knee, bad, warmup, unit) ??
        (knee !== null
          ? MEANINGS.errors
          : warmup
            ? MEANINGS.errors.replace('past the knee', 'from the first step')
            : FIRST_STEP_ERRORS),
    };
  }
  const most = bestBefore ? fellTo(bad, bestBefore, okLowerBound) : null;
  if (bestBefore && most !== null) {
    return {
      shape: 'collapse',
      evidence: okLowerBound
        ? `throughput fell from at least ${sustainedPerSec(bestBefore).toFixed(1)} ${unit} (at ${bestBefore.ratePerSec} offered) to at most ${most.toFixed(1)} ${unit} at ${bad.ratePerSec} offered (its completions)`
        : `throughput fell from ${sustainedPerSec(bestBefore).toFixed(1)} ${unit} (at ${bestBefore.ratePerSec} offered) to ${bad.throughputPerSec.toFixed(1)} ${unit} at ${bad.ratePerSec} offered`,
      meaning: MEANINGS.collapse,
    };
  }
  const evidence = `throughput ${bad.throughputPerSec.toFixed(1)} ${unit} at ${bad.ratePerSec} offered vs ${knee?.throughputPerSec.toFixed(1) ?? '?'} at the knee`;
  // a delivery just missed while the capture held is no flat throughput (a reviewer's 160.7 -> 266.7 read 'plateau')
  if (rules && knee && stillFollowing(bad, rules))
    return {
      shape: 'shortfall',
      evidence: `${evidence}, ${bad.capture!.toFixed(2)} of the added rate captured`,
      meaning: MEANINGS.shortfall,
    };
  return { shape: 'plateau', evidence, meaning: MEANINGS.plateau };
}

/**
 * The meaning of a step's errors that failed at about the same share before the knee: no response
 * to overload, but failures present throughout (a check rejecting some answers, a request the
 * target refuses for some data), which took delivery under its bound. Null otherwise.
 */
function failingBefore(knee: StepResult | null, bad: StepResult, unit: RateUnit): string | null {
  if (!knee || knee.errorRate < ERROR_NOTE_MIN || knee.errorRate < bad.errorRate / 2) return null;
  return `${fmtPercent(knee.errorRate)} of ${unitCounts(unit)} already failed at the knee (step ${stepNo(knee.index)}): these failures were there below the knee too, so they are no response to overload; they took delivery under its bound: fix them (the errors by name) and rerun to find the capacity`;
}

/**
 * The meaning of a first step's errors that the warmup, at its lower rate, failed about as often
 * (failures-with-rate.ts): no response to overload either. Null otherwise, or past a knee.
 */
function failingInWarmup(
  knee: StepResult | null,
  bad: StepResult,
  warmup: FailedAt | null,
  unit: RateUnit,
): string | null {
  if (knee || !warmup || !failuresKept(warmup, bad)) return null;
  return `the warmup, at ${fmtTarget(warmup.ratePerSec)} ${unit}, failed ${fmtPercent(warmup.failed / warmup.completed)} of its ${unitCounts(unit)} too: these failures do not fall with the rate, so they are no response to overload; they took delivery under its bound: fix them (the errors by name) and rerun to find the capacity`;
}

/**
 * The overload shape of a failed step judged on its last attempt (the confirmation the run stopped
 * on), where a first attempt can be an outlier: a generator stall read a collapse to 0.1/s that the
 * confirmation, at 85 of 89, did not repeat. Where the attempts' shapes differ the evidence says so.
 */
export function confirmedOverloadShape(
  knee: StepResult | null,
  attempts: readonly StepResult[],
  bestBefore: StepResult | null,
  unit: RateUnit = 'req/s',
  okLowerBound = false,
  rules?: Pick<Rules, 'deliveryMin' | 'captureMin'>,
  warmup: FailedAt | null = null,
): OverloadShape {
  const last = attempts.at(-1) ?? null;
  const shape = overloadShape(knee, last, bestBefore, unit, okLowerBound, rules, warmup);
  const first =
    attempts.length > 1 ? overloadShape(knee, attempts[0], bestBefore, unit, okLowerBound, rules, warmup) : null;
  if (!first || first.shape === shape.shape) return shape;
  return {
    ...shape,
    evidence: `${shape.evidence} (attempt ${attempts.length}, which the run stopped on; attempt 1 read ${first.shape}: ${first.evidence})`,
  };
}
