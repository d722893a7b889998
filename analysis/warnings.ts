/**
 * Warnings: things that do not change a verdict but limit what the numbers mean. Each names the
 * step, the figure, and what to do.
 */
import { fmtInt, fmtMs, fmtMsOver, fmtRate, fmtShare, fmtShareOver, stepNo } from './format.ts';
import { percentileLabel, requiredSamples } from './percentiles.ts';
import type { Rules, StageOutcome, StepResult } from './types.ts';
import { threadsKept } from './thread-sizing.ts';
import { droppedForWantOfVUs, stalledNotBusy, STEAL_WARN } from './verdicts.ts';

/** Scheduler lag p99 above which the generator started arrivals measurably late (ms). */
export const LAG_P99_WARN_MS = 10;
/** Event-loop delay above which the generator's own stalls leak into latencies (ms). */
export const LOOP_DELAY_WARN_MS = 50;
/** Busy share of the generator's busiest thread (or its process's share of its CPUs) above which it has little headroom left. */
export const BUSY_WARN = 0.8;
/** Share of the steady window the generator's cgroup was throttled, from which it tells (50 ms in 10 s). */
export const THROTTLED_SHARE_WARN = 0.005;
/** Share of a step's requests that reconnected from which it tells (p99.9 can rest on them). */
export const RECONNECT_SHARE_WARN = 0.001;

/** "1", "1 and 3", "1-4, 6 and 8": step numbers (0-based indices in), runs of three or more joined. */
export function stepList(indices: readonly number[]): string {
  const nos = [...new Set(indices)].sort((a, b) => a - b).map(stepNo);
  const parts: string[] = [];
  for (let i = 0; i < nos.length; ) {
    let j = i;
    while (j + 1 < nos.length && nos[j + 1] === nos[j] + 1) j++;
    if (j - i >= 2) parts.push(`${nos[i]}-${nos[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(nos[k]));
    i = j + 1;
  }
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : (parts[0] ?? '');
}

/**
 * Unreliable percentiles of the holding steps (the ones a reader would quote): one line per
 * percentile naming every step it concerns, so a run of short steps does not bury the warnings
 * that change what a step means.
 */
function percentileWarnings(steps: readonly StepResult[], rules: Rules): string[] {
  const byQ = new Map<number, { index: number; n: number }[]>();
  for (const s of steps) {
    if (s.verdict !== 'holds') continue;
    for (const p of s.latency) {
      if (p.reliable || p.valueMs === null) continue;
      byQ.set(p.q, [...(byQ.get(p.q) ?? []), { index: s.index, n: p.n }]);
    }
  }
  return [...byQ.entries()].sort(([a], [b]) => a - b).map(([q, at]) => {
    const lo = Math.min(...at.map((a) => a.n));
    const hi = Math.max(...at.map((a) => a.n));
    const counts = lo === hi ? fmtInt(lo) : `${fmtInt(lo)} to ${fmtInt(hi)}`;
    const where = at.length === 1 ? `step ${stepList([at[0].index])}` : `steps ${stepList(at.map((a) => a.index))}`;
    return `${percentileLabel(q)} of ${where} rests on ${counts} samples (needs ${fmtInt(requiredSamples(q, rules.minTailSamples))}): shown, marked unreliable; longer holds (--hold) or higher rates collect enough`;
  });
}

/**
 * CPU steal, one line for every step it reached (it is the machine's, and on a crowded host it
 * reaches most of them): the steps and the range of their shares.
 */
function stealWarning(steps: readonly StepResult[]): string[] {
  const at = steps.filter((s) => s.cpuSteal != null && s.cpuSteal >= STEAL_WARN);
  if (at.length === 0) return [];
  const shares = at.map((s) => s.cpuSteal!);
  const lo = fmtShare(Math.min(...shares));
  const hi = fmtShare(Math.max(...shares));
  const indices = new Set(at.map((s) => s.index));
  const where = indices.size === 1 ? `step ${stepList([...indices])}` : `steps ${stepList([...indices])}`;
  const windows = at.length === 1 ? 'the steady window' : 'their steady windows';
  return [`${where}: the hypervisor gave ${lo === hi ? lo : `${lo} to ${hi}`} of the machine's CPU time elsewhere during ${windows} (CPU steal): the generator's threads (and a target on this machine) stalled while ready to run, whatever their own load; on a burstable instance out of CPU credit or a crowded host the figures move with the neighbours: use a machine with dedicated CPUs`];
}

/**
 * Dropped arrivals: the generator's limit, unless the step failed at the target, whose growing
 * latency held every VU (then more VUs would only queue more requests at it).
 */
function droppedWarning(s: StepResult): string {
  const head = `step ${stepNo(s.index)} dropped ${fmtInt(s.dropped)} arrivals: no free VU`;
  const busy = s.droppedBusy ?? 0;
  if (busy > 0 && !s.waitedOnTarget) {
    const forVUs = droppedForWantOfVUs(s);
    const rest = forVUs > 0 ? `; the other ${fmtInt(forVUs)} found the pool at its maximum: raise maxVUs` : '';
    return `${head}, ${busy === s.dropped ? 'all' : fmtInt(busy)} while the generator's thread was saturated (over 80% busy), when a VU pool over TLS opens no new connection (each costs a handshake, about 2 ms of CPU, which would only stall the thread further): this step measures the generator; give it more cores or workers (--workers) or a machine of its own${rest}`;
  }
  if (!s.waitedOnTarget) return `${head}; raise maxVUs or this step measures the generator`;
  const little = s.meanMs !== null ? ` (Little's law: ${fmtRate(s.completedPerSec)} req/s x ${fmtMs(s.meanMs)} ms mean = ${fmtInt(Math.round((s.completedPerSec * s.meanMs) / 1000))} in flight)` : '';
  const refused = busy > 0 ? ` (${fmtInt(busy)} of them refused a new VU while the generator's thread was saturated)` : '';
  return `${head}, all ${fmtInt(s.vusAllocatedMax)} VUs waiting on the target${little}: the drops follow from the target's limit${refused}, and more VUs would only queue more requests at it`;
}

/** Generator-side limits: dropped arrivals, late starts, a stalled or a busy event loop. */
function generatorWarnings(s: StepResult): string[] {
  const out: string[] = [];
  const stalled = stalledNotBusy(s);
  if (s.dropped > 0) out.push(droppedWarning(s));
  if (s.lagP99Ms !== null && s.lagP99Ms > LAG_P99_WARN_MS) {
    out.push(`step ${stepNo(s.index)} started arrivals late: scheduler lag p99 ${fmtMsOver(s.lagP99Ms, LAG_P99_WARN_MS)} ms > ${LAG_P99_WARN_MS} ms; ${stalled ? `${stalled}; a load machine of its own helps most` : 'the generator is short of CPU, so this step may measure the generator'}`);
  }
  if (s.loopDelayMaxMs > LOOP_DELAY_WARN_MS) {
    out.push(`step ${stepNo(s.index)} saw event-loop delay up to ${fmtMsOver(s.loopDelayMaxMs, LOOP_DELAY_WARN_MS)} ms > ${LOOP_DELAY_WARN_MS} ms: the generator stalled and its stalls are inside the latencies; ${stalled ? `its threads were mostly idle (busiest ${fmtShare(s.generatorBusy)}): stalls, not a generator short of CPU; run it on a machine of its own` : 'use more cores or the k6 engine'}`);
  }
  if (s.generatorBusy != null && s.generatorBusy > BUSY_WARN) {
    out.push(`step ${stepNo(s.index)}: the generator's busiest thread was busy ${fmtShareOver(s.generatorBusy, BUSY_WARN)} of the steady window (> ${fmtShare(BUSY_WARN)}): little headroom, so a higher rate may measure the generator; give it more cores or workers (--workers)`);
  } else if (s.generatorCpu != null && s.generatorCpu > BUSY_WARN) {
    out.push(`step ${stepNo(s.index)}: the generator's process used ${fmtShareOver(s.generatorCpu, BUSY_WARN)} of the CPUs it may use in the steady window (> ${fmtShare(BUSY_WARN)}): little headroom, so a higher rate may measure the generator; give it more cores, or a machine of its own`);
  }
  const throttled = throttledShare(s);
  if (throttled !== null && throttled >= THROTTLED_SHARE_WARN) {
    out.push(`step ${stepNo(s.index)}: the generator's container was throttled by its CPU quota, ${fmtMs(s.throttledMs!)} ms in all (summed over its CPUs) in the ${fmtInt(s.steadyS)} s steady window: its threads were stopped until the next quota period (usually 100 ms) each time, so arrivals started late and latencies include the pauses; raise the container's CPU limit (run.json: environment.cpuQuota) or run the generator with whole cores of its own`);
  }
  return out;
}

/** Throttled time (summed over CPUs, as cpu.stat counts it) over the steady window's wall time; null when not read. */
function throttledShare(s: StepResult): number | null {
  return s.throttledMs == null || s.steadyS <= 0 ? null : s.throttledMs / (s.steadyS * 1000);
}

/**
 * Requests whose VU had to connect again within a second of its last request (idle closes are not
 * counted: docs/decisions/014): their connect (and TLS handshake) time is outside the
 * duration percentiles, as it is outside k6's http_req_duration. Tomcat (so Spring Boot) closes a
 * kept-alive connection after its 100th request by default: 1% of requests.
 */
function reconnectWarning(s: StepResult): string[] {
  if (s.reconnects == null || s.completed === 0 || s.reconnects / s.completed < RECONNECT_SHARE_WARN) return [];
  const share = s.reconnects / s.completed;
  return [`step ${stepNo(s.index)}: ${(share * 100).toFixed(share < 0.1 ? 1 : 0)}% of its requests (${fmtInt(s.reconnects)} of ${fmtInt(s.completed)}) had to open their VU's connection again, and connect time (with the TLS handshake, over https) is not in the latency percentiles (nor in k6's http_req_duration): the target closed kept-alive connections in use (Connection: close, a keep-alive request limit such as Tomcat's default of 100) or reset them; if real clients keep theirs open longer, raise that limit`];
}

/** A steady window shorter than planned (interrupted, or buckets missing). */
function windowWarning(s: StepResult): string[] {
  const plannedS = Math.max(0, Math.floor(s.steadyEndS) - Math.ceil(s.steadyStartS));
  if (s.steadyS >= plannedS) return [];
  if (s.steadyS === 0) return [`step ${stepNo(s.index)} has no data in its steady window (${fmtInt(plannedS)} s planned): it was not judged`];
  return [`step ${stepNo(s.index)} steady window is ${fmtInt(s.steadyS)} s of ${fmtInt(plannedS)} s planned: its figures rest on fewer seconds and it was not judged`];
}

/**
 * The threads stage kept fewer threads than the machine gives, on an estimate meant to err high,
 * and a step shows the generator short of CPU anyway: the estimate was low, and the fix is to set
 * the count rather than add workers the run already had.
 */
function threadsWarning(steps: readonly StepResult[], stages: readonly StageOutcome[]): string[] {
  const t = threadsKept(stages);
  if (!t) return [];
  const short = steps.filter((s) => !stalledNotBusy(s) && (s.generatorBound || s.generatorLimited !== undefined || (s.generatorBusy ?? 0) > BUSY_WARN));
  if (short.length === 0) return [];
  return [`the threads stage ran the steps on ${t.kept} of the ${t.of} threads from the warmup's cost, and step${short.length === 1 ? '' : 's'} ${stepList(short.map((s) => s.index))} found the generator short of CPU all the same: set workers: ${t.of} (--workers ${t.of}) to run on every thread (docs/decisions/022)`];
}

/** Every warning of the run: step by step what limits a step's meaning, then the threads stage's, CPU steal and the thin percentiles over the steps. */
export function runWarnings(steps: readonly StepResult[], rules: Rules, stages: readonly StageOutcome[] = []): string[] {
  return [...steps.flatMap((s) => [...windowWarning(s), ...generatorWarnings(s), ...reconnectWarning(s)]), ...threadsWarning(steps, stages), ...stealWarning(steps), ...percentileWarnings(steps, rules)];
}
