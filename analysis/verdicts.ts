/**
 * Whose limit is a failed step, the target's or the generator's?
 *
 * Generator-bound: the generator shows symptoms (generator-symptoms.ts: dropped iterations,
 * scheduler lag, event-loop delay, its busiest thread's utilisation or its process's share of its
 * CPUs over their bounds) while the target's tail stays low:
 *
 *   tail = p99 - RTT  (client),  low <=> tail <= tailFactor x baseline tail (the first step that held)
 *
 * or, when the server's own metrics are read, its mean stays within tailFactor of that step's
 * mean, where both means rest on rules.minTailSamples requests or more (a thinner one is judged by
 * as a run without the server's figures is, and the words say why: docs/decisions/061; the
 * reading in tail-reading.ts). A generator at its own CPU ceiling has no client tail of the
 * target's to read: its own queue is in every request's time (decision 087). A step
 * failing that way measured the generator: never capacity. With no step held before
 * it, a failed step with a symptom is inconclusive: neither side is blamed. Either way the target's
 * own evidence of saturation (a pool with requests waiting, a server median far above the unloaded
 * figure: target-saturated.ts) makes it the target's, whatever the generator showed beside it.
 */
import { fmtInt } from './format.ts';
import { DEFAULT_MIN_TAIL_SAMPLES } from './percentiles.ts';
import { tailLow, type TailReading } from './tail-reading.ts';
import type { GeneratorBounds, StepResult, Symptom } from './types.ts';
import {
  DEFAULT_GENERATOR_BOUNDS,
  droppedForWantOfVUs,
  generatorSaturated,
  generatorSymptomOf,
  symptomText,
} from './generator-symptoms.ts';
import { ownSaturation, type Unloaded } from './target-saturated.ts';

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
   * be told, nor does the target's own evidence show saturation: neither side is blamed.
   */
  inconclusive?: boolean;
  detail: string;
}

/**
 * Did the target's tail grow so far that the VUs ran out waiting on it? By Little's law the VUs
 * in use are N = X x W: at the same rate, a target whose time per request W grew holds every VU,
 * and the arrivals after find none free. So arrivals dropped for want of a VU (not those refused
 * on a saturated thread) while the tail was not low are the target's signal, not the generator's.
 * The one rule for a failed step's drops (classifyFailure) and a held step's (heldSymptoms).
 */
function dropsWaited(s: StepResult, tail: TailReading): boolean {
  return droppedForWantOfVUs(s) > 0 && !tail.low;
}

/** The tail reading after "but": "the target's tail grew (...)", or what stood for a tail (timeouts, no success). */
function tailGrewText(tail: TailReading): string {
  return tail.grew === false ? tail.text : `the target's tail grew (${tail.text})`;
}

/**
 * A held step's generator symptoms, judged as a failed step's are (decision 046): its dropped
 * arrivals were the target's when its tail grew against the first step that held before it
 * (dropsWaited), or its own evidence shows it saturated (ownSaturation: what a first step, with no
 * step before it, is read by); what is left over its bounds (drops for want of a VU with neither;
 * drops on a saturated thread; lag, loop delay, a busy thread or process) makes it
 * generator-limited. `waited` is that evidence in words when the drops were the target's, else null.
 */
export function heldSymptoms(
  s: StepResult,
  baseline: StepResult | null,
  rttMs: number,
  b: GeneratorBounds = DEFAULT_GENERATOR_BOUNDS,
  minTailSamples: number = DEFAULT_MIN_TAIL_SAMPLES,
  unloaded: Unloaded | null = null,
): { generatorLimited: Symptom | null; waited: string | null } {
  const first = generatorSymptomOf(s, b);
  if (first?.code !== 'dropped') return { generatorLimited: first, waited: null };
  const waited = heldDropsWaited(s, baseline, rttMs, b, minTailSamples, unloaded);
  if (waited === null) return { generatorLimited: first, waited: null };
  return { generatorLimited: generatorSymptomOf(generatorsOwn(s), b), waited };
}

/** Why a held step's drops for want of a VU were the target's, in words; null where nothing shows it. */
function heldDropsWaited(
  s: StepResult,
  baseline: StepResult | null,
  rttMs: number,
  b: GeneratorBounds,
  minTailSamples: number,
  unloaded: Unloaded | null,
): string | null {
  if (baseline !== null && baseline !== s) {
    const tail = tailLow(s, baseline, rttMs, b.tailFactor, minTailSamples, generatorSaturated(s, b));
    if (dropsWaited(s, tail)) return tailGrewText(tail);
  }
  const own = droppedForWantOfVUs(s) > 0 ? ownSaturation(s, unloaded, b, rttMs) : null;
  return own?.saturated ? `the target was saturated (${own.text})` : null;
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
  /**
   * The stop rule's delivery bound (drops too few to have failed a step), the requests a server
   * mean needs to judge a tail by, and an import's flags.
   */
  rules?: { deliveryMin?: number; minTailSamples?: number; okLowerBound?: boolean; imported?: boolean },
  /** The run's unloaded server time (target-saturated.ts), against which the target's own median is read. */
  unloaded: Unloaded | null = null,
): FailureClass {
  const imported = rules?.imported === true;
  const symptomCode = generatorSymptomOf(s, b);
  const saturated = generatorSaturated(s, b);
  const symptom = symptomCode && withSaturation(symptomText(symptomCode, s), symptomCode, saturated);
  // a saturated generator's drops are its own queue's: more VUs would only add to it
  const needsVUs = droppedForWantOfVUs(s) > 0 && saturated === null;
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
    // no tail to judge by, but the target's own evidence needs none (target-saturated.ts)
    const first = ownSaturation(s, unloaded, b, rttMs);
    if (first?.saturated) return saturatedTarget(symptom, symptomCode, first.text);
    return {
      generatorBound: false,
      symptom,
      symptomCode,
      needsVUs,
      inconclusive: true,
      detail: `${symptom}, and no step held before it to tell whether the target's tail grew: the target may not carry this rate, or the generator may not drive it; ${imported ? "start the k6 script's stages lower" : 'start lower (steps.startPerSec)'} to give the judgement a baseline`,
    };
  }
  const tail = tailLow(s, baseline, rttMs, b.tailFactor, rules?.minTailSamples ?? DEFAULT_MIN_TAIL_SAMPLES, saturated);
  if (!tail.low)
    return {
      generatorBound: false,
      symptom,
      symptomCode,
      needsVUs: false,
      detail: `${symptom}, but ${tailGrewText(tail)}: the target is the limit${dropsWaited(s, tail) ? ' and the VUs ran out waiting for it' : ''}`,
    };
  if (notTheDrops) return notTheDrops;
  // the target's own evidence outweighs a tail read against a first step it had saturated already
  const own = ownSaturation(s, unloaded, b, rttMs);
  if (own?.saturated) return saturatedTarget(symptom, symptomCode, own.text);
  const evidence = `${tail.text}${own ? `; ${own.text}` : ''}`;
  return {
    generatorBound: true,
    symptom,
    symptomCode,
    needsVUs,
    // the symptom may carry its own "while ..." (stalls): the tail gets a clause of its own
    detail: `generator-limited, not a server limit: ${symptom}; ${tail.unread ? evidence : `the target's tail stayed low (${evidence})`}`,
  };
}

/** The symptom with the generator's saturation beside it, where the symptom is not that reading itself. */
function withSaturation(symptom: string, code: Symptom, saturated: string | null): string {
  return saturated === null || code.code === 'thread-busy' || code.code === 'process-cpu'
    ? symptom
    : `${symptom} while ${saturated}`;
}

/** A failed step on whose target its own evidence shows saturation: the target's limit, a generator symptom beside it. */
function saturatedTarget(symptom: string, symptomCode: FailureClass['symptomCode'], evidence: string): FailureClass {
  return {
    generatorBound: false,
    symptom,
    symptomCode,
    needsVUs: false,
    detail: `${symptom}, but the target was saturated (${evidence}): the target is the limit`,
  };
}
