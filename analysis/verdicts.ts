/**
 * Whose limit is a failed step? And what shape does overload take past the knee?
 *
 * Generator-bound: the generator shows symptoms (dropped iterations, scheduler lag, event-loop
 * delay, its busiest thread's utilisation or its process's share of its CPUs over their bounds)
 * while the target's tail stays low:
 *
 *   tail = p99 - RTT  (client),  low <=> tail <= tailFactor x baseline tail (the first step that held)
 *
 * or, when the server's own metrics are read, its mean stays within tailFactor of that step's
 * mean. A step failing that way measured the generator: never capacity. With no step held before
 * it, a failed step with a symptom is inconclusive: neither side is blamed.
 */
import { fmtInt, fmtMsOver, fmtPercent, fmtShare, fmtShareOver, unitCounts } from './format.ts';
import { requiredSamples } from './percentiles.ts';
import type { GeneratorBounds, OverloadShape, RateUnit, StepResult, Symptom } from './types.ts';
import { otherFailuresClause } from './other-failures.ts';

export type { GeneratorBounds };

export const DEFAULT_GENERATOR_BOUNDS: GeneratorBounds = {
  lagP99MaxMs: 20,
  loopDelayMaxMs: 100,
  generatorBusyMax: 0.9,
  tailFactor: 3,
};

export interface FailureClass {
  generatorBound: boolean;
  /** The generator's symptom that was seen, in words; null when none. */
  symptom: string | null;
  /** The same symptom as a value. */
  symptomCode: Symptom | null;
  /**
   * Arrivals dropped for want of a VU were the symptom (more VUs may help); otherwise the
   * generator's CPU is short (drops refused on a saturated thread among them).
   */
  needsVUs: boolean;
  /**
   * A symptom was seen but no step held before this one, so whether the target's tail grew cannot
   * be told: neither the target nor the generator is blamed.
   */
  inconclusive?: boolean;
  detail: string;
}

function p99(s: StepResult): number | null {
  return s.latency.find((p) => p.q === 99)?.valueMs ?? null;
}

/**
 * The generator's first symptom over its bounds, as a value: `code` names it (dropped, late
 * arrivals, loop delay, a busy thread, a busy process) and `figures` carry the reading and its
 * bound. Null when the generator kept within every bound.
 */
export function generatorSymptomOf(s: StepResult, b: GeneratorBounds): Symptom | null {
  const at = { step: s.index, ...(s.attempt && s.attempt > 1 ? { attempt: s.attempt } : {}) };
  if (s.dropped > 0)
    return {
      code: 'dropped',
      ...at,
      figures: { dropped: s.dropped, droppedBusy: s.droppedBusy ?? 0, vusAllocatedMax: s.vusAllocatedMax },
    };
  const lag = lateArrivals(s, b.lagP99MaxMs);
  if (lag) return { code: 'late-arrivals', ...at, figures: { ...lag, boundMs: b.lagP99MaxMs } };
  if (s.loopDelayMaxMs !== null && s.loopDelayMaxMs > b.loopDelayMaxMs)
    return { code: 'loop-delay', ...at, figures: { loopDelayMaxMs: s.loopDelayMaxMs, boundMs: b.loopDelayMaxMs } };
  const busyMax = b.generatorBusyMax ?? DEFAULT_GENERATOR_BOUNDS.generatorBusyMax!;
  if (s.generatorBusy != null && s.generatorBusy > busyMax)
    return { code: 'thread-busy', ...at, figures: { busy: s.generatorBusy, bound: busyMax } };
  if (s.generatorCpu != null && s.generatorCpu > busyMax)
    return { code: 'process-cpu', ...at, figures: { cpu: s.generatorCpu, bound: busyMax } };
  return null;
}

/** A generator symptom in words, with its figures (s gives the stall clause: how busy the threads were). */
export function symptomText(sym: Symptom, s: StepResult): string {
  const f = sym.figures as Record<string, number>;
  switch (sym.code) {
    case 'dropped':
      return `${f.dropped} ${f.dropped === 1 ? 'arrival' : 'arrivals'} dropped (no free VU; ${f.vusAllocatedMax} allocated${droppedBusyClause({ dropped: f.dropped, droppedBusy: f.droppedBusy })})`;
    case 'late-arrivals': {
      const head = `scheduler lag p${f.quantile} ${fmtMsOver(f.lagMs, f.boundMs)} ms > ${f.boundMs} ms`;
      return `${f.quantile === 90 ? `${head} (its p99 rests on ${fmtInt(f.lagSamples)} arrivals, too few)` : head}${stallsNotLoad(s)}`;
    }
    case 'loop-delay':
      return `event-loop delay ${fmtMsOver(f.loopDelayMaxMs, f.boundMs)} ms > ${f.boundMs} ms${stallsNotLoad(s)}`;
    case 'thread-busy':
      return `generator's busiest thread busy ${fmtShareOver(f.busy, f.bound)} of the time > ${fmtShare(f.bound)}`;
    case 'process-cpu':
      return `generator's process used ${fmtShareOver(f.cpu, f.bound)} of the CPUs it may use > ${fmtShare(f.bound)}`;
    default:
      return sym.code;
  }
}

/**
 * Scheduler lag over the bound, judged like any tail: the p99 when 30 arrivals lie beyond it
 * (3,000 in the window), else the p90 when that rests on 30 (300), else not at all. A p99 from a
 * few hundred arrivals is a single stall, which is no verdict on the step (the lag warning still
 * says it). Null when the lag kept within the bound.
 */
function lateArrivals(s: StepResult, boundMs: number): { quantile: number; lagMs: number; lagSamples: number } | null {
  if (s.lagP99Ms === null || s.lagP99Ms <= boundMs) return null;
  const lagSamples = s.lagSamples ?? 0;
  if (s.lagSamples === undefined || s.lagSamples >= requiredSamples(99))
    return { quantile: 99, lagMs: s.lagP99Ms, lagSamples };
  if (s.lagP90Ms == null || s.lagP90Ms <= boundMs || s.lagSamples < requiredSamples(90)) return null;
  return { quantile: 90, lagMs: s.lagP90Ms, lagSamples };
}

/** Below this busy share, late arrivals came from stalls, not from a thread short of time. */
const STALLS_BELOW_BUSY = 0.7;

/** Dropped arrivals that more VUs would have served: all but those refused on a saturated thread. */
export function droppedForWantOfVUs(s: Pick<StepResult, 'dropped' | 'droppedBusy'>): number {
  return s.dropped - (s.droppedBusy ?? 0);
}

/** ", N of them while ..." for drops refused on a saturated thread; empty when none were. */
export function droppedBusyClause(s: Pick<StepResult, 'dropped' | 'droppedBusy'>): string {
  const busy = s.droppedBusy ?? 0;
  if (busy === 0) return '';
  const which = busy === s.dropped ? 'all of them' : `${busy} of them`;
  return `, ${which} while the generator's thread was saturated, when it opens no new TLS connection`;
}

/**
 * Where lateness came from, when the threads' utilisation says: a thread busy most of the time is
 * short of CPU (more cores or workers help); one mostly idle was stalled (other processes or the
 * target on the same machine, CPU steal, GC pauses), which a load machine of its own fixes best
 * (more workers only shorten the catch-up after each stall). Null when busy was not measured or is
 * high.
 */
export function stalledNotBusy(s: Pick<StepResult, 'generatorBusy' | 'cpuSteal' | 'throttledMs'>): string | null {
  if (s.generatorBusy == null || s.generatorBusy >= STALLS_BELOW_BUSY) return null;
  return `its busiest thread was busy only ${fmtShare(s.generatorBusy)} of the time: the delays are stalls (${stallSuspects(s)}), not a generator short of CPU`;
}

/**
 * Share of the machine's CPU time stolen by the hypervisor from which a warning tells (a few
 * percent come and go on a shared host: 3% was seen here during a demo run at 3% generator load).
 */
export const STEAL_WARN = 0.05;
/** From this share, steal is named among the causes of an idle generator's stalls. */
const STEAL_SUSPECT = 0.01;

/**
 * What may have stalled an idle generator: what was measured comes first with its figure, and
 * CPU steal is left out when it was measured below STEAL_SUSPECT.
 */
function stallSuspects(s: Pick<StepResult, 'cpuSteal' | 'throttledMs'>): string {
  const measured: string[] = [];
  if (s.throttledMs != null && s.throttledMs > 0)
    measured.push(`the container's CPU quota, which throttled it ${fmtInt(Math.round(s.throttledMs))} ms`);
  if (s.cpuSteal != null && s.cpuSteal >= STEAL_SUSPECT)
    measured.push(`CPU steal, ${fmtShare(s.cpuSteal)} of the machine's time`);
  const steal = s.cpuSteal == null ? ['CPU steal'] : [];
  return [...measured, 'the target or other processes on this machine', ...steal, 'GC pauses'].join(', ');
}

function stallsNotLoad(s: StepResult): string {
  const why = stalledNotBusy(s);
  return why ? ` while ${why}` : '';
}

/** Why a held step counts as generator-limited, in words. */
export function generatorLimitedText(sym: Symptom, s: StepResult): string {
  return `generator-limited while holding: ${symptomText(sym, s)}; the rate was served, but arrivals left the schedule, so this step's latencies include the generator's own delay`;
}

/** The share of a step's completions that timed out from which its p99 is a timeout's. */
export const TIMEOUTS_IN_TAIL = 0.01;

/** Is the target's tail low in step s, relative to the baseline step? */
function tailLow(
  s: StepResult,
  baseline: StepResult,
  rttMs: number,
  factor: number,
): { low: boolean; text: string; grew?: false } {
  // timed out: those requests waited a whole timeout, past any percentile of the successes (a
  // user's hung confirm read 'tail stayed low', the step generator-bound): from 1% of them the p99 is
  const timedOut = s.errors.timeout ?? 0;
  if (s.completed > 0 && timedOut / s.completed >= TIMEOUTS_IN_TAIL)
    return {
      low: false,
      text: `${fmtInt(timedOut)} of its ${fmtInt(s.completed)} completions timed out (${fmtPercent(timedOut / s.completed)}): its tail is the timeout, not the p99 of its successes`,
      grew: false,
    };
  if (s.server?.meanMs != null && baseline.server?.meanMs != null) {
    const low = s.server.meanMs <= factor * Math.max(baseline.server.meanMs, 0.1);
    return {
      low,
      text: `server mean ${s.server.meanMs.toFixed(2)} ms vs ${baseline.server.meanMs.toFixed(2)} ms at step ${baseline.index + 1}`,
    };
  }
  const a = p99(s);
  const b = p99(baseline);
  // no success at all in s (every request failed or timed out): the target failed them, whatever a tail would say
  if (a === null && b !== null)
    return { low: false, text: 'none of its requests succeeded: every one failed or timed out', grew: false };
  if (a === null || b === null) return { low: false, text: 'no latency to judge the tail' };
  const tail = a - rttMs;
  const base = Math.max(b - rttMs, 0.1);
  return {
    low: tail <= factor * base,
    text: `p99 - RTT ${tail.toFixed(1)} ms vs ${base.toFixed(1)} ms at step ${baseline.index + 1}`,
  };
}

/**
 * Did the target's tail grow so far that the VUs ran out waiting on it? By Little's law the VUs
 * in use are N = X x W: at the same rate, a target whose time per request W grew holds every VU,
 * and the arrivals after find none free. So arrivals dropped for want of a VU (not those refused
 * on a saturated thread) while the tail was not low are the target's signal, not the generator's.
 * The one rule for a failed step's drops (classifyFailure) and a held step's (heldSymptoms).
 */
function dropsWaited(s: StepResult, tail: { low: boolean }): boolean {
  return droppedForWantOfVUs(s) > 0 && !tail.low;
}

/** The tail reading after "but": "the target's tail grew (...)", or what stood for a tail (timeouts, no success). */
function tailGrewText(tail: { text: string; grew?: false }): string {
  return tail.grew === false ? tail.text : `the target's tail grew (${tail.text})`;
}

/**
 * A held step's generator symptoms, judged as a failed step's are (decision 046): its dropped
 * arrivals were the target's when its tail grew against the first step that held before it
 * (dropsWaited); what is left over its bounds (drops for want of a VU with a low tail, or with no
 * step before it to judge by; drops on a saturated thread; lag, loop delay, a busy thread or
 * process) makes it generator-limited. `waited` is the tail's reading in words when the drops were
 * the target's, else null.
 */
export function heldSymptoms(
  s: StepResult,
  baseline: StepResult | null,
  rttMs: number,
  b: GeneratorBounds = DEFAULT_GENERATOR_BOUNDS,
): { generatorLimited: Symptom | null; waited: string | null } {
  const first = generatorSymptomOf(s, b);
  if (first?.code !== 'dropped' || baseline === null || baseline === s)
    return { generatorLimited: first, waited: null };
  const tail = tailLow(s, baseline, rttMs, b.tailFactor);
  if (!dropsWaited(s, tail)) return { generatorLimited: first, waited: null };
  return { generatorLimited: generatorSymptomOf(generatorsOwn(s), b), waited: tailGrewText(tail) };
}

/**
 * The step as the generator's own symptoms read it once its drops for want of a VU were the
 * target's (waitedOnTarget: the VUs ran out waiting on it): only the drops on a saturated thread stay.
 */
export function generatorsOwn<T extends Pick<StepResult, 'dropped' | 'droppedBusy'>>(s: T): T {
  return { ...s, dropped: s.droppedBusy ?? 0 };
}

/** Why a held step's drops are the target's, in words (its reasons). */
export function waitedOnTargetText(s: StepResult, tail: string): string {
  const n = droppedForWantOfVUs(s);
  return `${fmtInt(n)} ${n === 1 ? 'arrival' : 'arrivals'} dropped (no free VU; ${s.vusAllocatedMax} allocated), but ${tail}: the VUs ran out waiting on the target (Little's law: N = X x W, and W grew), its signal, not the generator's; the throughput is what the target served, the dropped arrivals counted against the delivery`;
}

/**
 * The step's delivery had each of its dropped arrivals been served, when even that misses
 * `deliveryMin`: the drops cannot have failed the step (a target shedding a third of its load
 * with 503s, one arrival of 2,400 dropped, had read generator-bound, no capacity). Null otherwise.
 */
function deliveryIfServed(s: StepResult, deliveryMin: number | undefined, okLowerBound: boolean): number | null {
  if (deliveryMin === undefined || s.steadyS <= 0 || s.ratePerSec <= 0) return null;
  // successes a lower bound (an import's iterations): every completion counted a success, the most it served
  const most = okLowerBound ? s.completedPerSec : s.throughputPerSec;
  const served = (most + s.dropped / s.steadyS) / s.ratePerSec;
  return served < deliveryMin ? served : null;
}

/**
 * Whose limit is the failed step s? baseline is the first step that held (null when none did: a
 * step is never its own baseline, against which its tail would always read low).
 */
export function classifyFailure(
  s: StepResult,
  baseline: StepResult | null,
  rttMs: number,
  b: GeneratorBounds = DEFAULT_GENERATOR_BOUNDS,
  /** The stop rule's delivery bound (drops too few to have failed a step), and an import's flags. */
  rules?: { deliveryMin?: number; okLowerBound?: boolean; imported?: boolean },
): FailureClass {
  const imported = rules?.imported === true;
  const symptomCode = generatorSymptomOf(s, b);
  const symptom = symptomCode && symptomText(symptomCode, s);
  if (!symptom)
    return {
      generatorBound: false,
      symptom,
      symptomCode,
      needsVUs: false,
      detail: 'the generator kept its schedule: the limit is the target',
    };
  // drops too few to have failed the step, and no other symptom behind them: the target's, whatever
  // the tail (a fast 503 has none)
  const served =
    symptomCode.code === 'dropped' && generatorSymptomOf({ ...s, dropped: 0 }, b) === null
      ? deliveryIfServed(s, rules?.deliveryMin, rules?.okLowerBound === true)
      : null;
  const notTheDrops: FailureClass | null =
    served === null
      ? null
      : {
          generatorBound: false,
          symptom,
          symptomCode,
          needsVUs: false,
          detail: `${symptom}, but with every dropped arrival served the step would still deliver ${rules?.okLowerBound ? 'at most ' : ''}${served.toFixed(3)} < ${rules?.deliveryMin}: the drops did not fail it, the target did`,
        };
  if (baseline === null || baseline === s) {
    if (notTheDrops) return notTheDrops;
    return {
      generatorBound: false,
      symptom,
      symptomCode,
      needsVUs: droppedForWantOfVUs(s) > 0,
      inconclusive: true,
      detail: `${symptom}, and no step held before it to tell whether the target's tail grew: the target may not carry this rate, or the generator may not drive it; ${imported ? "start the k6 script's stages lower" : 'start lower (steps.startPerSec)'} to give the judgement a baseline`,
    };
  }
  const tail = tailLow(s, baseline, rttMs, b.tailFactor);
  if (!tail.low)
    return {
      generatorBound: false,
      symptom,
      symptomCode,
      needsVUs: false,
      detail: `${symptom}, but ${tailGrewText(tail)}: the target is the limit${dropsWaited(s, tail) ? ' and the VUs ran out waiting for it' : ''}`,
    };
  if (notTheDrops) return notTheDrops;
  return {
    generatorBound: true,
    symptom,
    symptomCode,
    needsVUs: droppedForWantOfVUs(s) > 0,
    // the symptom may carry its own "while ..." (stalls): the tail gets a clause of its own
    detail: `generator-limited, not a server limit: ${symptom}; the target's tail stayed low (${tail.text})`,
  };
}

const MEANINGS: Record<OverloadShape['shape'], string> = {
  plateau:
    'throughput stays flat past the knee: requests queue (a thread pool or connection pool with a wait queue); latency grows with the queue',
  collapse:
    "throughput falls as load rises (retrograde scaling): contention or coherency costs grow with concurrency (Gunther's USL beta > 0); back off to below the knee",
  errors:
    'past the knee the target fails requests instead of queueing them (a fail-fast pool, timeouts, rate limits): clients that retry turn this into a retry storm',
  'generator-bound': 'the load generator, not the target, reached its limit: capacity is not known from this run',
  none: 'no step past the knee was measured',
};

/**
 * The throughput step s fell to, when under 95% of `before`'s (a collapse), else null. Where the
 * successes are a lower bound (Rules.okLowerBound) the most it can have served, every completion a
 * success: a fall is shown only where even that is under (a run read 120 -> 112 whose exact count was 130).
 */
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
): OverloadShape {
  if (!bad) return { shape: 'none', evidence: 'every measured step held', meaning: MEANINGS.none };
  if (bad.generatorBound)
    return {
      shape: 'generator-bound',
      evidence: bad.verdictDetail ?? 'the generator could not keep its schedule',
      meaning: MEANINGS['generator-bound'],
    };
  if (bad.errorRate >= 0.05)
    return {
      shape: 'errors',
      evidence: `${(bad.errorRate * 100).toFixed(1)}% of ${unitCounts(unit)} failed at ${bad.ratePerSec} ${unit} (${Object.entries(
        bad.errors,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')})`,
      meaning: otherFailuresClause(bad) ?? MEANINGS.errors,
    };
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
  return {
    shape: 'plateau',
    evidence: `throughput ${bad.throughputPerSec.toFixed(1)} ${unit} at ${bad.ratePerSec} offered vs ${knee?.throughputPerSec.toFixed(1) ?? '?'} at the knee`,
    meaning: MEANINGS.plateau,
  };
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
): OverloadShape {
  const last = attempts.at(-1) ?? null;
  const shape = overloadShape(knee, last, bestBefore, unit, okLowerBound);
  const first = attempts.length > 1 ? overloadShape(knee, attempts[0], bestBefore, unit, okLowerBound) : null;
  if (!first || first.shape === shape.shape) return shape;
  return {
    ...shape,
    evidence: `${shape.evidence} (attempt ${attempts.length}, which the run stopped on; attempt 1 read ${first.shape}: ${first.evidence})`,
  };
}

export interface FailurePolicy {
  confirmFailedStep: boolean;
  rerunContaminated: boolean;
  maxVUs: number;
  maxVUsBound: number;
  /** An imported k6 run: its fixes are the k6 script's (Rules.imported). */
  imported?: boolean;
}

export type AfterFailure =
  | { action: 'rerun'; why: string; maxVUs: number; generatorBound: boolean; contaminated: boolean }
  | { action: 'stop'; why: string; generatorBound: boolean; contaminated: boolean };

/**
 * What to do after the first attempt at a rate failed (or held while the topology changed). A
 * topology change inside the step: rerun, whatever else it showed. Generator-bound with dropped
 * arrivals, or dropped arrivals with no step held before to judge by: raise maxVUs (x2, within
 * the bound) and rerun; generator-bound otherwise: stop, it is not capacity. Otherwise confirm
 * once at the same rate. A second failed attempt always stops.
 */
export function afterFailure(
  cls: FailureClass,
  contaminated: boolean,
  attempt: number,
  p: FailurePolicy,
): AfterFailure {
  const flags = { generatorBound: cls.generatorBound, contaminated };
  if (attempt > 1) return { action: 'stop', why: `attempt ${attempt} at this rate failed too`, ...flags };
  const moreVUs = cls.needsVUs && p.maxVUs < p.maxVUsBound ? Math.min(p.maxVUsBound, p.maxVUs * 2) : null;
  const withVUs = moreVUs === null ? '' : ` with maxVUs ${p.maxVUs} -> ${moreVUs}`;
  // The topology changed under the step (it may even have held): nothing it showed decides.
  if (contaminated && p.rerunContaminated)
    return {
      action: 'rerun',
      why: `the topology changed during the step; rerunning it${withVUs}`,
      maxVUs: moreVUs ?? p.maxVUs,
      ...flags,
      generatorBound: false,
    };
  // No baseline to judge by: more VUs cannot hurt the judgement of the rerun
  if (cls.inconclusive && moreVUs !== null)
    return { action: 'rerun', why: `${cls.detail}; rerunning${withVUs}`, maxVUs: moreVUs, ...flags };
  if (cls.generatorBound) {
    if (moreVUs !== null)
      return { action: 'rerun', why: `${cls.detail}; rerunning${withVUs}`, maxVUs: moreVUs, ...flags };
    const remedy = cls.needsVUs
      ? p.imported
        ? "raise the k6 scenario's maxVUs and run it again"
        : `maxVUs is at its bound ${p.maxVUsBound}: raise verdicts.maxVUsBound`
      : 'the generator is short of CPU: run it on a bigger or closer machine, or split the load over several (execution segments)';
    return { action: 'stop', why: `${cls.detail}; ${remedy}`, ...flags };
  }
  if (p.confirmFailedStep)
    return { action: 'rerun', why: 'confirming the failure once at the same rate', maxVUs: p.maxVUs, ...flags };
  return { action: 'stop', why: cls.detail, ...flags };
}

/** Did the topology probe read more than one value between two times (s)? */
export function topologyChanged(
  samples: readonly { tS: number; phase: string; topology: number | null }[],
  phase: string,
  fromS: number,
  toS: number,
): { changed: boolean; values: number[] } {
  const values = [
    ...new Set(
      samples
        .filter((s) => s.phase === phase && s.tS >= fromS && s.tS <= toS && s.topology !== null)
        .map((s) => s.topology as number),
    ),
  ];
  return { changed: values.length > 1, values };
}
