/**
 * Cell texts shared by the renderers, so a figure reads the same in every format.
 */
import { fmtInt, fmtMs, fmtRate, fmtShare, fmtTarget, stepNo } from '../analysis/format.ts';
import type { Percentile, RunResult, StepResult } from '../analysis/types.ts';

/** "12.3 ms (n=4,512)"; an unreliable one "~12.3 ms* (n=312)"; "–" when empty. */
export function percentileCell(p: Percentile | undefined): string {
  if (!p || p.valueMs === null) return '–';
  return p.reliable ? `${fmtMs(p.valueMs)} ms (n=${fmtInt(p.n)})` : `~${fmtMs(p.valueMs)} ms* (n=${fmtInt(p.n)})`;
}

/** The step's percentile q, if computed. */
export function percentileOf(s: StepResult, q: number): Percentile | undefined {
  return s.latency.find((p) => p.q === q);
}

/** True when any shown percentile of any step is unreliable (the report then adds a footnote). */
export function anyUnreliable(run: RunResult): boolean {
  return run.steps.some((s) => s.latency.some((p) => p.valueMs !== null && !p.reliable));
}

/** "400.0 req/s (step 3)" or a sentence saying none was established. */
export function capacityText(run: RunResult): string {
  if (run.capacityPerSec === null) return 'not established: no step held';
  return `${fmtRate(run.capacityPerSec)} req/s (step ${run.kneeStep === null ? '?' : stepNo(run.kneeStep)})`;
}

/** "1,234.5 req/s (step 5)" or "–" without data. */
export function peakText(run: RunResult): string {
  return run.peakStep === null ? '–' : `${fmtRate(run.peakPerSec)} req/s (step ${stepNo(run.peakStep)})`;
}

/** "http_5xx 4,500, timeout 3" (empty string when none). */
export function countsText(counts: Partial<Record<string, number>> | undefined): string {
  return Object.entries(counts ?? {})
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([k, n]) => `${k} ${fmtInt(n ?? 0)}`)
    .join(', ');
}

/** A stage's duration: "120 ms" under a second, "60.0 s" above. */
export function durationText(ms: number): string {
  return ms < 1000 ? `${fmtMs(ms)} ms` : `${fmtMs(ms / 1000)} s`;
}

/** The RTT measured before the load, in one line (both renderers). */
export function rttText(run: RunResult): string {
  const { rtt } = run;
  return rtt === null
    ? 'RTT: not measured'
    : `RTT: TCP connect median ${fmtMs(rtt.connectMedianMs)} ms; HTTP median ${fmtMs(rtt.httpMedianMs)} ms, p90 ${fmtMs(rtt.httpP90Ms)} ms (${fmtInt(rtt.samples)} samples)`;
}

/** How the generator kept up in each steady window: the figures its verdicts rest on, every step. */
export const GENERATOR_HEADER = ['Step', 'Target req/s', 'Scheduler lag p99', 'Event-loop delay max', 'Busiest thread busy', 'Generator CPU', 'VUs busy (max)', 'VUs allocated (max)', 'Dropped'];

export const GENERATOR_NOTE = 'Per steady window: scheduler lag is each arrival\'s actual start minus its intended one; event-loop delay is the longest the generator\'s loop was held up; busy is the share of each second the busiest generator thread spent working rather than waiting for I/O (Node\'s event-loop utilisation). Late arrivals while busy stays low are stalls (the target or other processes on the same machine, CPU steal, GC pauses); a thread busy most of the time is short of CPU. Generator CPU is the share of the CPUs the generator may use (its affinity, capped by a container\'s quota) that its whole process used, every thread: k6\'s under the k6 engine. It, CPU steal and the throttling of a container\'s CPU quota are measured on Linux; steal and throttling are named in the warnings when they occur. Under k6 there is no scheduler lag, loop delay or thread busy share.';

export function generatorCells(s: StepResult): string[] {
  if (s.steadyS === 0) return [String(stepNo(s.index)), fmtTarget(s.ratePerSec), '–', '–', '–', '–', '–', '–', '–'];
  return [
    String(stepNo(s.index)),
    fmtTarget(s.ratePerSec),
    s.lagP99Ms === null ? '–' : `${fmtMs(s.lagP99Ms)} ms`,
    // k6 reports no loop delay (0) and no busy share; a native engine's loop delay is never 0
    s.generatorBusy == null && s.loopDelayMaxMs === 0 ? '–' : `${fmtMs(s.loopDelayMaxMs)} ms`,
    fmtShare(s.generatorBusy),
    fmtShare(s.generatorCpu),
    fmtInt(s.vusActiveMax),
    fmtInt(s.vusAllocatedMax),
    fmtInt(s.dropped),
  ];
}

/** True when the target URL names this machine (localhost, 127.0.0.0/8, ::1). */
export function targetOnThisMachine(target: string): boolean {
  let host: string;
  try { host = new URL(target).hostname.replace(/^\[|\]$/g, ''); } catch { return false; }
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1';
}

/** A line saying the target shares the generator's machine, or null. */
export function colocationText(run: RunResult): string | null {
  if (!targetOnThisMachine(run.target)) return null;
  const cores = run.environment.cpus ? ` (${run.environment.cpus})` : '';
  return `Target on the generator's own machine${cores}: the two share its cores, so what is measured is the target's capacity with what the generator leaves it (the busy share below says how hard the generator worked). For numbers to defend, generate load from another machine.`;
}
