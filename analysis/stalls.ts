/**
 * Stalls: where a generator's lateness came from when its threads were mostly idle (other
 * processes or the target on the same machine, CPU steal, a container's CPU quota, GC pauses),
 * rather than a thread short of CPU.
 */
import { fmtInt, fmtShare } from './format.ts';
import type { StepResult } from './types.ts';

/** Below this busy share, late arrivals came from stalls, not from a thread short of time. */
const STALLS_BELOW_BUSY = 0.7;

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

/** " while ..." when the delays were stalls (stalledNotBusy); empty otherwise. */
export function stallsNotLoad(s: StepResult): string {
  const why = stalledNotBusy(s);
  return why ? ` while ${why}` : '';
}
