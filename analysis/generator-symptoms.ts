/**
 * The generator's own symptoms: dropped iterations, scheduler lag, event-loop delay, its busiest
 * thread's utilisation or its process's share of its CPUs over their bounds (GeneratorBounds), as
 * a value (Symptom) and in words. Whose limit a step with a symptom was is verdicts.ts's question.
 */
import { fmtInt, fmtMsOver, fmtShare, fmtShareOver } from './format.ts';
import { requiredSamples } from './percentiles.ts';
import { stallsNotLoad } from './stalls.ts';
import type { GeneratorBounds, StepResult, Symptom } from './types.ts';

export const DEFAULT_GENERATOR_BOUNDS: GeneratorBounds = {
  lagP99MaxMs: 20,
  loopDelayMaxMs: 100,
  generatorBusyMax: 0.9,
  tailFactor: 3,
};

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

/**
 * The generator at its own CPU ceiling in s: its busiest thread busy, or its process using its
 * CPUs, over generatorBusyMax. Its client-side times then hold its own queue (a response waits in
 * its socket until the saturated loop reads it, an arrival until the loop dispatches it), and its
 * VUs are held by that queue: its client tail cannot show the target's, and more VUs only add to
 * the queue. The reading in words ("its busiest thread was busy 100% of the time > 90%"); null
 * when neither was over its bound.
 */
export function generatorSaturated(
  s: Pick<StepResult, 'generatorBusy' | 'generatorCpu'>,
  b: GeneratorBounds,
): string | null {
  const busyMax = b.generatorBusyMax ?? DEFAULT_GENERATOR_BOUNDS.generatorBusyMax!;
  if (s.generatorBusy != null && s.generatorBusy > busyMax)
    return `its busiest thread was busy ${fmtShareOver(s.generatorBusy, busyMax)} of the time > ${fmtShare(busyMax)}`;
  if (s.generatorCpu != null && s.generatorCpu > busyMax)
    return `its process used ${fmtShareOver(s.generatorCpu, busyMax)} of the CPUs it may use > ${fmtShare(busyMax)}`;
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

/** Why a held step counts as generator-limited, in words. */
export function generatorLimitedText(sym: Symptom, s: StepResult): string {
  return `generator-limited while holding: ${symptomText(sym, s)}; the rate was served, but arrivals left the schedule, so this step's latencies include the generator's own delay`;
}
