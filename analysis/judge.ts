/**
 * The stop rule. A step is judged on its steady window only (the hold minus its settle time; the
 * ramp never counts):
 *
 *   X        = ok completions in the window / seconds of the window with data   (arrivals/s: req/s where an arrival is one request)
 *   delivery = X / rate
 *   capture  = (X_i - min(X_{i-1}, rate_{i-1})) / (rate_i - rate_{i-1})        (null for the first step)
 *   holds   <=> delivery >= deliveryMin  and  (capture null or capture >= captureMin)
 *
 * X_{i-1} counts at most what was offered: a window that drained a backlog (a stall just before
 * it; its successes above the arrivals it offered) did not sustain its surge, and taken whole it
 * cut the next step's capture (0.59 where 749 of 750/s were delivered: a plateau that was not there).
 *
 * Only successful completions count as throughput: a server that answers 503 fast completes a
 * lot and delivers nothing.
 */
import { aggregate, refusedNamesOf, type Aggregate, type NameAggregate } from './buckets.ts';
import { entryShort, entryShortText } from './entry-delivery.ts';
import {
  fmtInt,
  fmtPercent,
  fmtRate,
  fmtRatio,
  fmtRatioBelow,
  fmtSignedRate,
  fmtSignedTarget,
  fmtTarget,
  unitCounts,
  unitOf,
} from './format.ts';
import { meanUs, percentileMs, type Histogram } from './histogram.ts';
import { DEFAULT_QUANTILES, percentiles } from './percentiles.ts';
import { STEPS_PHASE } from './phases.ts';
import { sustainedPerSec } from './overload-shape.ts';
import type { AnalysedRecord, EntryShort, NameResult, Rules, StepPlan, StepResult, StepVerdict } from './types.ts';

/** A failing step's error share above which its reasons also name the errors. */
const ERROR_REASON_MIN = 0.01;

/**
 * The steady window in whole buckets: a bucket tS covers [tS, tS+1), so only buckets fully inside
 * [steadyStartS, steadyEndS) count: tS in [ceil(steadyStartS), floor(steadyEndS)).
 */
export function steadyWindowS(step: StepPlan): { fromS: number; toS: number; plannedS: number } {
  const fromS = Math.ceil(step.steadyStartS);
  const toS = Math.floor(step.steadyEndS);
  return { fromS, toS, plannedS: Math.max(0, toS - fromS) };
}

/**
 * capture = ΔX / Δrate against the previous step, whose X counts at most its offered rate (the
 * file's comment); null without a previous step with data or a rate increase.
 */
function captureOf(step: StepPlan, throughputPerSec: number, prev: StepResult | null, rules: Rules): number | null {
  if (prev === null || prev.steadyS === 0) return null;
  const addedPerSec = step.ratePerSec - prev.ratePerSec;
  if (addedPerSec <= 0) return null;
  return (throughputPerSec - captureBaseline(prev, rules)) / addedPerSec;
}

/** The previous step's throughput as the next capture's baseline: at most its rate, but where a closed model offered none. */
export function captureBaseline(prev: StepResult, rules: Rules): number {
  return rules.closedModel ? prev.throughputPerSec : sustainedPerSec(prev);
}

interface Figures {
  step: StepPlan;
  prev: StepResult | null;
  agg: Aggregate;
  plannedS: number;
  throughputPerSec: number;
  delivery: number;
  capture: number | null;
  errorRate: number;
  short: EntryShort | null;
}

/** The verdict and, unless it holds, why, in words with numbers. */
function decide(f: Figures, rules: Rules): { verdict: StepVerdict; reasons: string[] } {
  const { agg, plannedS, step } = f;
  if (agg.seconds === 0)
    return { verdict: 'not-run', reasons: [`no data in the steady window (${fmtInt(plannedS)} s planned)`] };
  if (agg.seconds < plannedS) {
    return {
      verdict: 'incomplete',
      reasons: [`steady window has data for ${fmtInt(agg.seconds)} s of ${fmtInt(plannedS)} s planned`],
    };
  }
  const reasons: string[] = [];
  const unit = unitOf(rules);
  if (f.delivery < rules.deliveryMin) {
    reasons.push(
      `delivery ${rules.okLowerBound ? 'at least ' : ''}${fmtRatioBelow(f.delivery, rules.deliveryMin)} < ${fmtRatio(rules.deliveryMin)}: ${fmtRate(f.throughputPerSec)} ${unit} achieved of ${fmtTarget(step.ratePerSec)} offered`,
    );
  }
  if (f.capture !== null && f.capture < rules.captureMin && f.prev !== null) {
    const gainedPerSec = f.throughputPerSec - captureBaseline(f.prev, rules);
    const addedPerSec = step.ratePerSec - f.prev.ratePerSec;
    reasons.push(
      `capture ${fmtRatioBelow(f.capture, rules.captureMin)} < ${fmtRatio(rules.captureMin)}: ${fmtSignedRate(gainedPerSec)} ${unit} for ${fmtSignedTarget(addedPerSec)} offered`,
    );
  }
  if (f.short) reasons.push(entryShortText(f.short, unit, rules.deliveryMin));
  if (reasons.length > 0 && f.errorRate >= ERROR_REASON_MIN) {
    reasons.push(
      `${rules.okLowerBound ? 'up to ' : ''}${fmtPercent(f.errorRate)} of ${fmtInt(agg.completed)} completed ${unitCounts(unit)} failed`,
    );
  }
  return { verdict: reasons.length === 0 ? 'holds' : 'fails', reasons };
}

/**
 * Judges one step from the buckets of its steady window (phase "steps" only). `summed`: the
 * window's durations already summed from the same records (durations.ts), not decoded again.
 */
export function judgeStep(
  step: StepPlan,
  prev: StepResult | null,
  records: readonly AnalysedRecord[],
  rules: Rules,
  summed?: Histogram,
): StepResult {
  const { fromS, toS, plannedS } = steadyWindowS(step);
  const agg = aggregate(records, STEPS_PHASE, fromS, toS, summed);
  const steadyS = agg.seconds;
  const throughputPerSec = steadyS > 0 ? agg.ok / steadyS : 0;
  const delivery = step.ratePerSec > 0 ? throughputPerSec / step.ratePerSec : 0;
  const capture = steadyS > 0 ? captureOf(step, throughputPerSec, prev, rules) : null;
  const errorRate = agg.completed > 0 ? agg.failed / agg.completed : 0;
  // where the whole fell short, that is its reason: an entry behind it says nothing more
  const completedOf = (name: string) => agg.byName.get(name)?.completed ?? 0;
  const short =
    delivery >= rules.deliveryMin
      ? entryShort(
          step.ratePerSec,
          steadyS,
          completedOf,
          rules.mix,
          rules.deliveryMin,
          (name) => {
            const n = agg.byName.get(name);
            return n ? percentileMs(n.duration, 50) : null;
          },
          (step.steadyStartS - step.holdStartS) * 1000,
        )
      : null;
  const { verdict, reasons } = decide(
    { step, prev, agg, plannedS, throughputPerSec, delivery, capture, errorRate, short },
    rules,
  );
  const duration = agg.hist.duration;
  return {
    index: step.index,
    ratePerSec: step.ratePerSec,
    steadyStartS: step.steadyStartS,
    steadyEndS: step.steadyEndS,
    steadyS,
    throughputPerSec,
    completedPerSec: steadyS > 0 ? agg.completed / steadyS : 0,
    delivery,
    capture,
    completed: agg.completed,
    ok: agg.ok,
    failed: agg.failed,
    errorRate,
    errors: agg.errors,
    dropped: agg.dropped,
    ...(agg.droppedBusy > 0 ? { droppedBusy: agg.droppedBusy } : {}),
    started: agg.started,
    latency: percentiles(duration, DEFAULT_QUANTILES, rules.minTailSamples),
    meanMs: duration.totalCount > 0 ? meanUs(duration) / 1000 : null,
    maxMs: duration.totalCount > 0 ? duration.maxValue / 1000 : null,
    reconnects: agg.reconnects,
    ...(agg.throttledMs !== null ? { throttledMs: Math.round(agg.throttledMs * 10) / 10 } : {}),
    ...(agg.cpuSteal !== null ? { cpuSteal: Math.round(agg.cpuSteal * 1000) / 1000 } : {}),
    lagP99Ms: percentileMs(agg.lag, 99),
    lagP90Ms: percentileMs(agg.lag, 90),
    lagSamples: agg.lag.totalCount,
    loopDelayMaxMs: agg.loopDelayMaxMs,
    generatorBusy: agg.busy,
    ...(agg.processCpu !== null ? { generatorCpu: Math.round(agg.processCpu * 1000) / 1000 } : {}),
    vusActiveMax: agg.vusActiveMax,
    vusAllocatedMax: agg.vusAllocatedMax,
    verdict,
    reasons,
    statuses: agg.statuses,
    errorSamples: agg.samples,
    ...(agg.requestsCounted ? { requestsPerSec: steadyS > 0 ? agg.requests / steadyS : 0 } : {}),
    ...(agg.requestsFailed !== null ? { requestsFailed: agg.requestsFailed } : {}),
    ...(agg.byName.size > 0 ? { byName: namesOf(agg, rules) } : {}),
    ...(short ? { entryShort: short } : {}),
    ...refusedNamesOf(
      records.filter((r) => r.phase === STEPS_PHASE && r.tS >= step.rampStartS && r.tS < step.holdEndS),
    ),
  };
}

/**
 * The steady window by name, sorted by name: each name's rates over the step's steady seconds
 * (the step's own denominator), its errors, and its duration percentiles under the step's rule.
 */
function namesOf(agg: Aggregate, rules: Rules): Record<string, NameResult> {
  const names = [...agg.byName.keys()].sort();
  return Object.fromEntries(names.map((name) => [name, nameResult(agg.byName.get(name)!, agg.seconds, rules)]));
}

function nameResult(n: NameAggregate, steadyS: number, rules: Rules): NameResult {
  const duration = n.duration;
  return {
    ...(n.transaction ? { transaction: true as const } : {}),
    completedPerSec: steadyS > 0 ? n.completed / steadyS : 0,
    throughputPerSec: steadyS > 0 ? n.ok / steadyS : 0,
    completed: n.completed,
    ok: n.ok,
    failed: n.failed,
    errorRate: n.completed > 0 ? n.failed / n.completed : 0,
    errors: n.errors,
    ...(Object.keys(n.statuses).length > 0 ? { statuses: n.statuses } : {}),
    latency: percentiles(duration, DEFAULT_QUANTILES, rules.minTailSamples),
    meanMs: duration.totalCount > 0 ? meanUs(duration) / 1000 : null,
    maxMs: duration.totalCount > 0 ? duration.maxValue / 1000 : null,
  };
}
