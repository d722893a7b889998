/**
 * The stop rule. A step is judged on its steady window only (the hold minus its settle time; the
 * ramp never counts):
 *
 *   X        = ok completions in the window / seconds of the window with data   (req/s)
 *   delivery = X / rate
 *   capture  = (X_i - X_{i-1}) / (rate_i - rate_{i-1})        (null for the first step)
 *   holds   <=> delivery >= deliveryMin  and  (capture null or capture >= captureMin)
 *
 * Only successful completions count as throughput: a server that answers 503 fast completes a
 * lot and delivers nothing.
 */
import { aggregate, mergeRecords, type Aggregate } from './buckets.ts';
import { fmtInt, fmtPercent, fmtRate, fmtRatio, fmtRatioBelow, fmtSignedRate, fmtSignedTarget, fmtTarget } from './format.ts';
import { percentileMs } from './histogram.ts';
import { DEFAULT_QUANTILES, percentiles } from './percentiles.ts';
import { decidingSteps, heldAndCounts, summarizeStop } from './stop.ts';
import { crossCheck, poolReading, serverWindow } from './server.ts';
import { overloadShape } from './verdicts.ts';
import type { AnalyzeInput, BucketRecord, PromqlWindow, Rules, RunResult, ServerSample, StepPlan, StepResult, StepVerdict } from './types.ts';
import { runWarnings } from './warnings.ts';
import { modelsOf } from './models/index.ts';
import { seriesOf } from './series.ts';

/** Phase of the buckets that step judging reads ("warmup" buckets are ignored). */
export const STEPS_PHASE = 'steps';

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

/** capture = ΔX / Δrate against the previous step; null without a previous step with data or a rate increase. */
function captureOf(step: StepPlan, throughputPerSec: number, prev: StepResult | null): number | null {
  if (prev === null || prev.steadyS === 0) return null;
  const addedPerSec = step.ratePerSec - prev.ratePerSec;
  if (addedPerSec <= 0) return null;
  return (throughputPerSec - prev.throughputPerSec) / addedPerSec;
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
}

/** The verdict and, unless it holds, why, in words with numbers. */
function decide(f: Figures, rules: Rules): { verdict: StepVerdict; reasons: string[] } {
  const { agg, plannedS, step } = f;
  if (agg.seconds === 0) return { verdict: 'not-run', reasons: [`no data in the steady window (${fmtInt(plannedS)} s planned)`] };
  if (agg.seconds < plannedS) {
    return { verdict: 'incomplete', reasons: [`steady window has data for ${fmtInt(agg.seconds)} s of ${fmtInt(plannedS)} s planned`] };
  }
  const reasons: string[] = [];
  if (f.delivery < rules.deliveryMin) {
    reasons.push(`delivery ${fmtRatioBelow(f.delivery, rules.deliveryMin)} < ${fmtRatio(rules.deliveryMin)}: ${fmtRate(f.throughputPerSec)} req/s achieved of ${fmtTarget(step.ratePerSec)} offered`);
  }
  if (f.capture !== null && f.capture < rules.captureMin && f.prev !== null) {
    const gainedPerSec = f.throughputPerSec - f.prev.throughputPerSec;
    const addedPerSec = step.ratePerSec - f.prev.ratePerSec;
    reasons.push(`capture ${fmtRatioBelow(f.capture, rules.captureMin)} < ${fmtRatio(rules.captureMin)}: ${fmtSignedRate(gainedPerSec)} req/s for ${fmtSignedTarget(addedPerSec)} offered`);
  }
  if (reasons.length > 0 && f.errorRate >= ERROR_REASON_MIN) {
    reasons.push(`${fmtPercent(f.errorRate)} of ${fmtInt(agg.completed)} completed requests failed`);
  }
  return { verdict: reasons.length === 0 ? 'holds' : 'fails', reasons };
}

/** Judges one step from the buckets of its steady window (phase "steps" only). */
export function judgeStep(step: StepPlan, prev: StepResult | null, records: readonly BucketRecord[], rules: Rules): StepResult {
  const { fromS, toS, plannedS } = steadyWindowS(step);
  const agg = aggregate(records, STEPS_PHASE, fromS, toS);
  const steadyS = agg.seconds;
  const throughputPerSec = steadyS > 0 ? agg.ok / steadyS : 0;
  const delivery = step.ratePerSec > 0 ? throughputPerSec / step.ratePerSec : 0;
  const capture = steadyS > 0 ? captureOf(step, throughputPerSec, prev) : null;
  const errorRate = agg.completed > 0 ? agg.failed / agg.completed : 0;
  const { verdict, reasons } = decide({ step, prev, agg, plannedS, throughputPerSec, delivery, capture, errorRate }, rules);
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
    meanMs: duration.totalCount > 0 ? duration.mean / 1000 : null,
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
  };
}

/**
 * Judges the planned steps in order (prev = the step judged before). Every step up to the last
 * one with data is reported (steps after a failure too, e.g. a confirmation rerun); trailing
 * steps that never ran are left out, except that step 0 is always reported.
 */
export function judgeSteps(steps: readonly StepPlan[], records: readonly BucketRecord[], rules: Rules, server?: ServerInput): StepResult[] {
  const judged: StepResult[] = [];
  for (const step of steps) judged.push(judgeNext(step, judged, records, rules, server));
  let last = judged.length - 1;
  while (last > 0 && judged[last].verdict === 'not-run') last--;
  return judged.slice(0, last + 1);
}

/** Judges the next step against those judged before it (the live path and the report share it). */
export function judgeNext(step: StepPlan, judged: readonly StepResult[], records: readonly BucketRecord[], rules: Rules, server?: ServerInput): StepResult {
  return withServer(withFlags(judgeStep(step, counting(judged), records, rules), step), step, server);
}

/** The step of highest throughput before `bad` (null without one). */
function bestBefore(steps: readonly StepResult[], bad: StepResult | null): StepResult | null {
  const before = bad ? steps.slice(0, steps.indexOf(bad)) : [];
  return before.reduce<StepResult | null>((best, s) => (s.steadyS > 0 && (!best || s.throughputPerSec > best.throughputPerSec) ? s : best), null);
}

/** The step a new one is compared with: the last that held and counts (not transient, not contaminated). */
function counting(judged: readonly StepResult[]): StepResult | null {
  for (let i = judged.length - 1; i >= 0; i--) {
    const s = judged[i];
    if (heldAndCounts(s)) return s;
  }
  return judged.at(-1) ?? null;
}

/** Carries the pipeline's live classification (reruns, generator, topology) onto the result. */
function withFlags(r: StepResult, p: StepPlan): StepResult {
  const out: StepResult = { ...r };
  if (p.attempt) out.attempt = p.attempt;
  if (p.transient) out.transient = true;
  if (p.generatorBound) out.generatorBound = true;
  if (p.waitedOnTarget) out.waitedOnTarget = true;
  if (p.inconclusive) out.inconclusive = true;
  if (p.contaminated) out.contaminated = true;
  if (p.note) out.reasons = [...r.reasons, p.note];
  return p.generatorLimited ? markGeneratorLimited(out, p.generatorLimited) : out;
}

/** A held step whose generator was over its bounds (verdicts.ts heldButGeneratorLimited says why). */
export function markGeneratorLimited(r: StepResult, why: string): StepResult {
  return { ...r, generatorLimited: why, reasons: [...r.reasons, why] };
}

export interface ServerInput {
  samples: readonly ServerSample[];
  rttMs: number;
  promql?: readonly PromqlWindow[];
}

function withServer(r: StepResult, p: StepPlan, server: ServerInput | undefined): StepResult {
  if (!server) return r;
  const viaPromql = server.promql?.find((w) => w.index === p.index && w.attempt === (p.attempt ?? 1))?.window;
  if (!viaPromql && server.samples.length === 0) return r;
  const w = viaPromql ?? serverWindow(server.samples, STEPS_PHASE, p.steadyStartS, p.steadyEndS);
  return { ...r, server: w, crossCheck: crossCheck(r.completedPerSec, r.meanMs, server.rttMs, w, r.errorRate), poolReading: poolReading(w) };
}

/** The whole analysis: merge buckets, judge the steps, find capacity, knee, peak and why the run stopped. */
export function analyzeRun(input: AnalyzeInput): RunResult {
  const records = mergeRecords(input.records);
  const server = input.samples || input.promqlWindows
    ? { samples: input.samples ?? [], promql: input.promqlWindows, rttMs: input.rtt?.httpMinMs ?? input.rtt?.httpMedianMs ?? 0 }
    : undefined;
  const steps = judgeSteps(input.steps, records, input.rules, server);
  const stop = summarizeStop(steps, input.plannedSteps ?? input.steps.length, input.interrupted, input.rules);
  const counted = decidingSteps(steps);
  const firstBad = counted.find((s) => s.verdict === 'fails') ?? null;
  const knee = counted.find((s) => s.index === stop.kneeStep) ?? null;
  return {
    schemaVersion: 1,
    runId: input.runId,
    target: input.target,
    engine: input.engine,
    startedAt: input.startedAt,
    rules: input.rules,
    stages: input.stages,
    vus: input.vus,
    rtt: input.rtt,
    environment: input.environment,
    steps,
    ...stop,
    interrupted: input.interrupted,
    warnings: runWarnings(steps, input.rules, input.stages),
    series: seriesOf(records),
    ...(input.gauges && input.gauges.length > 0 ? { gauges: input.gauges } : {}),
    ...(input.generatorBusyMax !== undefined ? { generatorBusyMax: input.generatorBusyMax } : {}),
    // the models describe the target: a transient, contaminated or generator-bound attempt measured something else
    models: modelsOf(counted.filter((s) => !s.generatorBound), stop.capacityPerSec, stop.kneeStep, stop.peakPerSec),
    overload: overloadShape(knee, firstBad, bestBefore(counted, firstBad)),
    generatorBound: firstBad?.generatorBound === true,
    contaminated: steps.some((s) => s.contaminated),
  };
}
