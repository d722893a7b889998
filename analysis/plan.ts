/**
 * The plan: a pure function of the config (and the measured RTT). It fixes every step's timeline,
 * the arrival schedule and the VU sizing before any load is sent; `plateau plan` prints it.
 */
import type { Segment } from './schedule.ts';
import type { RateUnit, Rules, StepPlan, VuSizing } from './types.ts';

/**
 * The parts of the config a plan reads, declared here so that the pure core never imports the
 * shell's schema (the harness's config has them all and is passed as is).
 */
export interface PlanSteps {
  startPerSec: number;
  stepPerSec: number;
  maxPerSec: number;
  rampS: number;
  holdS: number;
  settleS?: number;
}
export interface PlanConfig {
  target: { url: string };
  steps: PlanSteps;
  rules: Rules;
  vus: { preAllocated?: number; max?: number; expectedServiceMs: number; headroom: number };
  limits: { maxInFlight: number };
}

/** The stop rule's defaults (config `rules`): one definition for the schema, the report of a run without a plan, and the tests. */
export const DEFAULT_RULES: Readonly<Rules> = Object.freeze({ deliveryMin: 0.9, captureMin: 0.6, minTailSamples: 30 });

/**
 * Default settle: max(5 s, 10% of the hold), never more than half the hold, in whole seconds (the
 * buckets are seconds): rounded down, so that half the hold stays at most half (a 5 s hold settles
 * 2 s, not 3).
 */
export function settleSOf(steps: { holdS: number; settleS?: number }): number {
  return steps.settleS ?? Math.floor(Math.min(Math.max(5, steps.holdS * 0.1), steps.holdS / 2));
}

export interface Plan {
  target: string;
  steps: StepPlan[];
  segments: Segment[];
  durationS: number;
  settleS: number;
  rules: Rules;
  vus: VuSizing;
  /** Arrivals the steps' steady windows are expected to hold, per step. */
  expectedSteadySamples: number[];
}

/** Rates start, start+step, ... up to max (inclusive, within float noise). */
export function stepRates(s: Pick<PlanSteps, 'startPerSec' | 'stepPerSec' | 'maxPerSec'>): number[] {
  const out: number[] = [];
  for (let i = 0; ; i++) {
    const r = s.startPerSec + i * s.stepPerSec;
    if (r > s.maxPerSec + 1e-9) break;
    out.push(Math.round(r * 1000) / 1000);
  }
  return out;
}

/**
 * The plan of a config. `unit` is what its rates count (format.ts rateUnitOf of the traffic):
 * arrivals/s when an arrival is a transaction; the texts of its decision name it (rules.rateUnit).
 */
export function buildPlan(
  config: PlanConfig,
  rttMs: number | null = null,
  unit: RateUnit = 'req/s',
  /** Preflight's sample arrivals' time per arrival (arrival-time.ts sampledArrivalMs), where longer than the plan's. */
  sampledArrivalMs?: number,
): Plan {
  const settleS = settleSOf(config.steps);
  const { rampS, holdS } = config.steps;
  const steps: StepPlan[] = [];
  const segments: Segment[] = [];
  let t = 0;
  let prevRate = 0;
  stepRates(config.steps).forEach((ratePerSec, index) => {
    if (rampS > 0) segments.push({ durationS: rampS, fromPerSec: prevRate, toPerSec: ratePerSec });
    segments.push({ durationS: holdS, fromPerSec: ratePerSec, toPerSec: ratePerSec });
    const holdStartS = t + rampS;
    steps.push({
      index,
      ratePerSec,
      rampStartS: t,
      holdStartS,
      holdEndS: holdStartS + holdS,
      steadyStartS: holdStartS + settleS,
      steadyEndS: holdStartS + holdS,
    });
    t = holdStartS + holdS;
    prevRate = ratePerSec;
  });
  return {
    target: config.target.url,
    steps,
    segments,
    durationS: t,
    settleS,
    rules: { ...config.rules, rateUnit: unit },
    vus: sizeVus(config, rttMs, sampledArrivalMs, unit, 'samples'),
    expectedSteadySamples: steps.map((s) => Math.round(s.ratePerSec * (s.steadyEndS - s.steadyStartS))),
  };
}

/**
 * Which of the VU counts the config (or --vus, --max-vus) gives: Little's law sizes the others.
 * 'both' leaves nothing to size, 'none' sizes both.
 */
export type VusGiven = 'none' | 'preAllocated' | 'max' | 'both';

export function vusGiven(vus: { preAllocated?: number; max?: number }): VusGiven {
  if (vus.preAllocated !== undefined) return vus.max !== undefined ? 'both' : 'preAllocated';
  return vus.max !== undefined ? 'max' : 'none';
}

/**
 * Little's law sizes the VUs: busy VUs N = X x W, so at the highest rate with W = expected service
 * time + RTT (or the warmup's measured time per arrival) we need rate x W, times a headroom for
 * latency growth near the knee:
 *   preAllocated = ceil(maxRate x W / 1000 x headroom),  max = 4 x preAllocated.
 * A count the config gives is kept; the other is still sized: a given max caps the sized
 * preallocated, a given preallocated floors the sized max.
 */
export function sizeVus(
  config: Pick<PlanConfig, 'vus' | 'steps' | 'limits'>,
  rttMs: number | null,
  /** The warmup's measured time per arrival (ms: the whole transaction, think time and round trip included), or preflight's samples' (`from`). */
  measuredArrivalMs?: number,
  unit: RateUnit = 'req/s',
  from: 'warmup' | 'samples' = 'warmup',
): VuSizing {
  const { preAllocated, max, expectedServiceMs, headroom } = config.vus;
  const given = vusGiven(config.vus);
  const maxRate = config.steps.maxPerSec;
  const measured = measuredArrivalMs !== undefined && Number.isFinite(measuredArrivalMs) && measuredArrivalMs > 0;
  const wMs = measured ? measuredArrivalMs : expectedServiceMs + (rttMs ?? 0);
  const sized = Math.max(1, Math.ceil(((maxRate * wMs) / 1000) * headroom));
  // limits.maxInFlight caps both (one request in flight per VU); validation refuses explicit values above it.
  const cap = config.limits.maxInFlight;
  const pre = Math.min(preAllocated ?? Math.min(sized, max ?? sized), cap);
  const mx = Math.min(max ?? Math.max(pre, 4 * sized), cap);
  const law = measured
    ? from === 'warmup'
      ? `Little's law: ${maxRate} arrivals/s x ${wMs.toFixed(1)} ms per arrival measured in the warmup (think time and round trip included) x headroom ${headroom} = ${sized}`
      : `Little's law: ${maxRate} arrivals/s x ${wMs.toFixed(1)} ms per arrival (each transaction's own time in preflight's sample arrivals, think time included; a request ${expectedServiceMs} ms expected service + ${(rttMs ?? 0).toFixed(2)} ms RTT) x headroom ${headroom} = ${sized}`
    : `Little's law: ${maxRate} ${unit} x (${expectedServiceMs} ms expected service + ${(rttMs ?? 0).toFixed(2)} ms RTT) x headroom ${headroom} = ${sized}`;
  const how = ((): string => {
    switch (given) {
      case 'both':
        return `set in the config (preAllocated ${preAllocated}, max ${max}); Little's law suggested ${sized}`;
      case 'max':
        return `preallocated by ${law}${sized > max! ? `, capped at the given max` : ''}; max ${max} given (vus.max, --max-vus)`;
      case 'preAllocated':
        return `preallocated ${preAllocated} given (vus.preAllocated, --vus); ${4 * sized > pre ? `max 4 x ${sized}, by ${law}` : `max as many, the given preallocated being at least 4 x ${sized} (${law})`}`;
      case 'none':
        return `${law} preallocated; max 4x`;
    }
  })();
  return {
    preAllocatedVUs: pre,
    maxVUs: mx,
    reason: mx === cap && max === undefined && 4 * sized > cap ? `${how}; capped at limits.maxInFlight ${cap}` : how,
    ...(max !== undefined ? { configuredMax: max } : {}),
  };
}
