/**
 * The Load generator table's header, note and cells, shared by the renderers: how the generator
 * kept up in each steady window.
 */
import { fmtInt, fmtMs, fmtShare, fmtShareOver, fmtTarget } from '../analysis/format.ts';
import type { RunResult, StepResult } from '../analysis/types.ts';
import { DEFAULT_GENERATOR_BOUNDS } from '../analysis/generator-symptoms.ts';
import { rateUnit, stepCell } from './cells.ts';

/** How the generator kept up in each steady window: the figures its verdicts rest on, every step. */
export const generatorHeader = (run: Pick<RunResult, 'traffic'>): string[] => [
  'Step',
  `Target ${rateUnit(run)}`,
  'Scheduler lag p99',
  'Event-loop delay max',
  'Busiest thread busy',
  'Generator CPU',
  'VUs busy (max)',
  'VUs allocated (max)',
  'Dropped',
];

/** What the Load generator table's figures are, for the native engine (a k6 run's: generatorNote). */
const GENERATOR_NOTE =
  "Per steady window: scheduler lag is each arrival's actual start minus its intended one; event-loop delay is the longest the generator's loop was held up; busy is the share of each second the busiest generator thread spent working rather than waiting for I/O (Node's event-loop utilisation). Late arrivals while busy stays low are stalls (the target or other processes on the same machine, CPU steal, GC pauses); a thread busy most of the time is short of CPU. Generator CPU is the share of the CPUs the generator may use (its affinity, capped by a container's quota) that its whole process used, every thread. It, CPU steal and the throttling of a container's CPU quota are measured on Linux; steal and throttling are named in the warnings when they occur.";

/**
 * What the Load generator table's figures are: GENERATOR_NOTE, but for a k6 run (engine k6) only
 * what k6 measures: it has no scheduler lag, loop delay or thread busy share (those columns read
 * "–"), and an import not even its process's CPU (the importing machine's is not k6's).
 */
export function generatorNote(run: Pick<RunResult, 'engine' | 'rules'>): string {
  if (run.engine !== 'k6') return GENERATOR_NOTE;
  const vus =
    "VUs busy and allocated are k6's vus and vus_max gauges, dropped its dropped_iterations (arrivals that found no free VU)";
  return run.rules.imported
    ? `Per steady window, from k6's output: ${vus}. k6 measures no scheduler lag, event-loop delay or thread busy share, and its output holds no figure of its machine's CPU: nothing here says whether k6 itself was short of CPU.`
    : `Per steady window: generator CPU is the share of the CPUs k6 may use (its affinity, capped by a container's quota) that k6's process used, every thread; it, CPU steal and the throttling of a container's CPU quota are measured on Linux, steal and throttling named in the warnings when they occur. ${vus}. k6 measures no scheduler lag, event-loop delay or thread busy share.`;
}

/** A busy or CPU share; over the generator's bound with the decimals that keep it from reading as the bound (0.904 is "90.4%", not "90%"). */
function shareText(x: number | null | undefined, bound: number): string {
  return x != null && x > bound ? fmtShareOver(x, bound) : fmtShare(x);
}

/**
 * Whether a step's loop delay was measured: null where the engine measures none (k6). A 0 beside
 * no busy share is none measured too: the simulated engine's, and a k6 run's in a summary or
 * baseline written before 2026-12-06 (a native engine's is never exactly 0 with no busy share).
 */
export function loopDelayMeasured(s: StepResult): s is StepResult & { loopDelayMaxMs: number } {
  return s.loopDelayMaxMs !== null && !(s.generatorBusy == null && s.loopDelayMaxMs === 0);
}

/** A step's row of the Load generator table; `busyMax` is the generator's busy bound (RunResult.generatorBusyMax). */
export function generatorCells(s: StepResult, busyMax: number = DEFAULT_GENERATOR_BOUNDS.generatorBusyMax!): string[] {
  if (s.steadyS === 0) return [stepCell(s), fmtTarget(s.ratePerSec), '–', '–', '–', '–', '–', '–', '–'];
  return [
    stepCell(s),
    fmtTarget(s.ratePerSec),
    s.lagP99Ms === null ? '–' : `${fmtMs(s.lagP99Ms)} ms`,
    loopDelayMeasured(s) ? `${fmtMs(s.loopDelayMaxMs)} ms` : '–',
    shareText(s.generatorBusy, busyMax),
    shareText(s.generatorCpu, busyMax),
    fmtInt(s.vusActiveMax),
    fmtInt(s.vusAllocatedMax),
    fmtInt(s.dropped),
  ];
}
