/**
 * Warnings: things that do not change a verdict but limit what the numbers mean. Each is a value,
 * `{ code, step, attempt?, figures }`; reports/warning-text.ts words it (naming the step, the
 * figure and what to do).
 */
import { fmtMs, stepList } from './format.ts';
import { requiredSamples } from './percentiles.ts';
import type { Rules, StageOutcome, StepResult, Symptom, WarmupRecord } from './types.ts';
import { threadsKept } from './thread-sizing.ts';
import { stalledNotBusy, STEAL_WARN } from './stalls.ts';
import { coldTarget } from './cold-target.ts';
import { FAILED_MIN, failuresInHeld, NAME_FAILING } from './failures-in-held.ts';
import { requestTimeouts } from './client-timeouts.ts';
import { unseenFilter, unseenRoutes } from './route-unseen.ts';

/** Scheduler lag p99 above which the generator started arrivals measurably late (ms). */
export const LAG_P99_WARN_MS = 10;
/**
 * Event-loop delay above which the generator's own stalls leak into latencies (ms): the warning's
 * bound, and the one by which a step is left out of a latency comparison (generatorInLatencies). A
 * second bound, not the verdict's (verdicts.loopDelayMaxMs, 100 ms), because the two ask different
 * things: the verdict whether the generator kept the schedule, so whether the step's rate and
 * throughput count; this one whether its stalls are large beside the latencies compared (a 72.9 ms
 * stall read as a name's 6x p90). latenciesLeftOutWhy says so where a step is left out.
 */
export const LOOP_DELAY_WARN_MS = 50;
/** Busy share of the generator's busiest thread (or its process's share of its CPUs) above which it has little headroom left. */
export const BUSY_WARN = 0.8;
/** Share of the steady window the generator's cgroup was throttled, from which it tells (50 ms in 10 s). */
export const THROTTLED_SHARE_WARN = 0.005;
/** Share of a step's requests that reconnected from which it tells (p99.9 can rest on them). */
export const RECONNECT_SHARE_WARN = 0.001;

/** The step a warning concerns: its index and, for a rerun, its attempt. */
function at(s: StepResult): Pick<Symptom, 'step' | 'attempt'> {
  return { step: s.index, ...(s.attempt && s.attempt > 1 ? { attempt: s.attempt } : {}) };
}

/**
 * Unreliable percentiles of the holding steps (the ones a reader would quote): one warning per
 * percentile naming every step it concerns, so a run of short steps does not bury the warnings
 * that change what a step means.
 */
function percentileWarnings(steps: readonly StepResult[], rules: Rules): Symptom[] {
  const byQ = new Map<number, { index: number; n: number }[]>();
  for (const s of steps) {
    if (s.verdict !== 'holds') continue;
    for (const p of s.latency) {
      if (p.reliable || p.valueMs === null) continue;
      byQ.set(p.q, [...(byQ.get(p.q) ?? []), { index: s.index, n: p.n }]);
    }
  }
  return [...byQ.entries()]
    .sort(([a], [b]) => a - b)
    .map(([q, list]) => ({
      code: 'thin-percentile',
      step: null,
      figures: {
        q,
        steps: list.map((a) => a.index),
        minN: Math.min(...list.map((a) => a.n)),
        maxN: Math.max(...list.map((a) => a.n)),
        neededN: requiredSamples(q, rules.minTailSamples),
      },
    }));
}

/** CPU steal, one warning for every step it reached (it is the machine's, and on a crowded host it reaches most of them). */
function stealWarning(steps: readonly StepResult[]): Symptom[] {
  const hit = steps.filter((s) => s.cpuSteal != null && s.cpuSteal >= STEAL_WARN);
  if (hit.length === 0) return [];
  const shares = hit.map((s) => s.cpuSteal!);
  return [
    {
      code: 'cpu-steal',
      step: null,
      figures: {
        steps: hit.map((s) => s.index),
        windows: hit.length,
        minShare: Math.min(...shares),
        maxShare: Math.max(...shares),
      },
    },
  ];
}

/** The generator's event loop stalled in the step past the warning's bound: its stalls are in the step's latencies. */
export function loopStalled(s: Pick<StepResult, 'loopDelayMaxMs'>): boolean {
  return s.loopDelayMaxMs !== null && s.loopDelayMaxMs > LOOP_DELAY_WARN_MS;
}

/**
 * The generator's own delays are in the step's latencies: its loop stalled, or it held
 * generator-limited. Such a step says nothing of the target's growth ('first to degrade', the USL fit).
 */
export function generatorInLatencies(s: Pick<StepResult, 'loopDelayMaxMs' | 'generatorLimited'>): boolean {
  return loopStalled(s) || s.generatorLimited !== undefined;
}

/**
 * Why the steps `indices` (generatorInLatencies, the first such attempt at each) are left out of a
 * latency comparison, one clause per reason, in words that leave each verdict standing: a step held
 * generator-limited says so; a loop stalled past LOOP_DELAY_WARN_MS in a step that held is within
 * the verdict's bound (else it would be generator-limited), so its verdict and throughput stand.
 */
export function latenciesLeftOutWhy(steps: readonly StepResult[], indices: readonly number[]): string[] {
  const at = [...new Set(indices)].map((i) => steps.find((s) => s.index === i && generatorInLatencies(s)));
  const found = at.filter((s): s is StepResult => s !== undefined);
  const limited = found.filter((s) => s.generatorLimited !== undefined).map((s) => s.index);
  const stalled = found.filter((s) => s.generatorLimited === undefined);
  const out: string[] = [];
  if (stalled.length > 0) {
    const one = stalled.length === 1;
    const idx = stalled.map((s) => s.index);
    const whose = one ? `step ${stepList(idx)}'s event loop` : `the event loop of steps ${stepList(idx)}`;
    const maxMs = Math.max(...stalled.map((s) => s.loopDelayMaxMs ?? 0));
    const held = stalled.every((s) => s.verdict === 'holds');
    const stand = held
      ? `, though within the verdict's bound, which asks only whether the rate was served: ${one ? 'its verdict and throughput stand' : 'their verdicts and throughput stand'}`
      : '';
    out.push(
      `${whose} stalled up to ${fmtMs(maxMs)} ms, past the ${LOOP_DELAY_WARN_MS} ms from which its stalls show in the latencies compared${stand}`,
    );
  }
  if (limited.length > 0)
    out.push(`${limited.length === 1 ? 'step' : 'steps'} ${stepList(limited)} held generator-limited`);
  return out;
}

/** Generator-side limits: dropped arrivals, late starts, a stalled or a busy event loop, a throttled container. */
function generatorWarnings(s: StepResult): Symptom[] {
  const out: Symptom[] = [];
  const stalled = stalledNotBusy(s) !== null;
  if (s.dropped > 0)
    out.push({
      code: 'dropped',
      ...at(s),
      figures: {
        dropped: s.dropped,
        droppedBusy: s.droppedBusy ?? 0,
        waitedOnTarget: s.waitedOnTarget === true,
        ...(s.generatorSaturated ? { generatorSaturated: true } : {}),
      },
    });
  if (s.lagP99Ms !== null && s.lagP99Ms > LAG_P99_WARN_MS)
    out.push({ code: 'late-start', ...at(s), figures: { lagP99Ms: s.lagP99Ms, boundMs: LAG_P99_WARN_MS, stalled } });
  if (loopStalled(s))
    out.push({
      code: 'loop-delay',
      ...at(s),
      figures: { loopDelayMaxMs: s.loopDelayMaxMs, boundMs: LOOP_DELAY_WARN_MS, stalled },
    });
  if (s.generatorBusy != null && s.generatorBusy > BUSY_WARN)
    out.push({ code: 'thread-busy', ...at(s), figures: { busy: s.generatorBusy, bound: BUSY_WARN } });
  else if (s.generatorCpu != null && s.generatorCpu > BUSY_WARN)
    out.push({ code: 'process-cpu', ...at(s), figures: { cpu: s.generatorCpu, bound: BUSY_WARN } });
  const throttled = throttledShare(s);
  if (throttled !== null && throttled >= THROTTLED_SHARE_WARN)
    out.push({ code: 'throttled', ...at(s), figures: { throttledMs: s.throttledMs!, steadyS: s.steadyS } });
  return out;
}

/** Throttled time (summed over CPUs, as cpu.stat counts it) over the steady window's wall time; null when not read. */
function throttledShare(s: StepResult): number | null {
  return s.throttledMs == null || s.steadyS <= 0 ? null : s.throttledMs / (s.steadyS * 1000);
}

/**
 * Requests whose VU had to connect again within a second of its last request (idle closes are not
 * counted: docs/decisions/014): their connect (and TLS handshake) time is outside the
 * duration percentiles, as it is outside k6's http_req_duration. The step's client timeouts ride
 * along (`timeouts`, and http.timeoutMs where known): plateau closes the connection of a request
 * it timed out (client-timeouts.ts), so each can be the cause of one reconnect, not the target.
 */
function reconnectWarning(s: StepResult, clientTimeoutMs: number | undefined): Symptom[] {
  // of its requests: a mix's arrivals send more than one (220 reconnects of 200 arrivals read 110%)
  const requests = s.requestsPerSec !== undefined ? Math.round(s.requestsPerSec * s.steadyS) : s.completed;
  if (s.reconnects == null || requests === 0 || s.reconnects / requests < RECONNECT_SHARE_WARN) return [];
  const timeouts = requestTimeouts(s);
  // `completed` kept beside `requests` (summary.json's warnings keep their figures: schemaVersion)
  return [
    {
      code: 'reconnects',
      ...at(s),
      figures: {
        reconnects: s.reconnects,
        requests,
        completed: s.completed,
        ...(timeouts > 0 ? { timeouts, ...(clientTimeoutMs !== undefined ? { timeoutMs: clientTimeoutMs } : {}) } : {}),
      },
    },
  ];
}

/** Refused requests above which a step's reconnects are read as the target gone, not as closed keep-alives. */
const REFUSED_OF_RECONNECTS = 0.5;
/** Refused requests (of those completed) from which a step is said to have met a target that was not there. */
const REFUSED_SHARE_WARN = 0.01;

/** A step whose connections were refused: nothing listened at the target for part of it (stopped, crashed, restarted). */
function refusedWarning(s: StepResult): Symptom[] {
  const refused = s.errors.refused ?? 0;
  if (refused === 0 || refused < REFUSED_SHARE_WARN * s.completed) return [];
  return [{ code: 'refused', ...at(s), figures: { refused, completed: s.completed } }];
}

/**
 * A step's reconnects and refusals: where the refusals are said and explain the reconnects, the
 * target was gone, not closing kept-alive connections, so the keep-alive advice is left out.
 */
function connectionWarnings(s: StepResult, clientTimeoutMs: number | undefined): Symptom[] {
  const refused = refusedWarning(s);
  const explained = refused.length > 0 && (s.errors.refused ?? 0) >= REFUSED_OF_RECONNECTS * (s.reconnects ?? 0);
  return explained ? refused : [...reconnectWarning(s, clientTimeoutMs), ...refused];
}

/** Delivery above which a step's window is said to have drained a backlog (arrivals start on a schedule; 2% is jitter). */
export const OVER_DELIVERY_WARN = 1.02;

/** A step that delivered more than it was offered: a backlog from before its window completed inside it. */
function overDeliveryWarning(s: StepResult, rules: Rules): Symptom[] {
  if (rules.closedModel || s.steadyS === 0 || s.ratePerSec <= 0 || s.delivery <= OVER_DELIVERY_WARN) return [];
  return [
    {
      code: 'over-delivered',
      ...at(s),
      figures: { delivery: s.delivery, throughputPerSec: s.throughputPerSec, ratePerSec: s.ratePerSec },
    },
  ];
}

/** A steady window shorter than planned (interrupted, or buckets missing). */
function windowWarning(s: StepResult): Symptom[] {
  const plannedS = Math.max(0, Math.floor(s.steadyEndS) - Math.ceil(s.steadyStartS));
  if (s.steadyS >= plannedS) return [];
  return [
    { code: s.steadyS === 0 ? 'window-empty' : 'window-short', ...at(s), figures: { steadyS: s.steadyS, plannedS } },
  ];
}

/**
 * The threads stage kept fewer threads than the machine gives, on an estimate meant to err high,
 * and a step shows the generator short of CPU anyway: the estimate was low, and the fix is to set
 * the count rather than add workers the run already had.
 */
function threadsWarning(steps: readonly StepResult[], stages: readonly StageOutcome[]): Symptom[] {
  const t = threadsKept(stages);
  if (!t) return [];
  const short = steps.filter(
    (s) =>
      !stalledNotBusy(s) &&
      (s.generatorBound || s.generatorLimited !== undefined || (s.generatorBusy ?? 0) > BUSY_WARN),
  );
  if (short.length === 0) return [];
  return [{ code: 'threads-short', step: null, figures: { kept: t.kept, of: t.of, steps: short.map((s) => s.index) } }];
}

/** The warmup stage's structured record, when it ran. */
export function warmupRecordOf(stages: readonly StageOutcome[]): WarmupRecord | null {
  return stages.find((s) => s.name === 'warmup' && (s.status === 'pass' || s.status === 'interrupted'))?.warmup ?? null;
}

/**
 * Every warning of the run: step by step what limits a step's meaning, then the threads stage's,
 * CPU steal, the thin percentiles over the steps, and readings taken on a target still warming.
 * `clientTimeoutMs`: the run's http.timeoutMs, for the words of the reconnects its timeouts caused.
 */
export function runWarnings(
  steps: readonly StepResult[],
  rules: Rules,
  stages: readonly StageOutcome[] = [],
  clientTimeoutMs?: number,
): Symptom[] {
  // a stage before the steps failed: no step ran, which the stop line says; no step to warn of
  const noLoad = stages.some((s) => s.status === 'fail' && s.name !== 'steps' && s.name !== 'report');
  return [
    ...steps.flatMap((s) => [
      ...(noLoad && s.verdict === 'not-run' ? [] : windowWarning(s)),
      ...generatorWarnings(s),
      ...connectionWarnings(s, clientTimeoutMs),
      ...overDeliveryWarning(s, rules),
    ]),
    ...threadsWarning(steps, stages),
    ...stealWarning(steps),
    ...percentileWarnings(steps, rules),
    ...coldTarget(warmupRecordOf(stages), steps),
    ...failingNames(steps),
    ...failuresInHeld(steps),
    ...unseenRoutes(steps),
    ...unseenFilter(steps),
  ];
}

/**
 * Names that failed in a step that held: the stop rule judges the arrivals as a whole, so an entry
 * of 5% that fails every time leaves delivery at 95% and the step held (a user's run: its
 * transaction refused on every arrival, the capacity printed). One warning a name, its steps and
 * its worst share.
 */
function failingNames(steps: readonly StepResult[]): Symptom[] {
  const by = new Map<string, { steps: number[]; errorRate: number; transaction: boolean; sample?: string }>();
  for (const s of steps) {
    if (s.verdict !== 'holds' || !s.byName) continue;
    for (const [name, n] of Object.entries(s.byName)) {
      if (n.failed < FAILED_MIN || n.errorRate < NAME_FAILING) continue;
      const w = by.get(name) ?? { steps: [], errorRate: 0, transaction: n.transaction === true };
      if (!w.steps.includes(s.index)) w.steps.push(s.index);
      w.errorRate = Math.max(w.errorRate, n.errorRate);
      // its first message (samples read "kind: name: message"): a late send's failure is its request's
      // alone, and the table by name gives only its kind
      w.sample ??= s.errorSamples?.find((m) => Object.keys(n.errors).some((k) => m.startsWith(`${k}: ${name}: `)));
      by.set(name, w);
    }
  }
  return [...by].map(([name, w]) => ({
    code: 'names-failing',
    step: null,
    figures: {
      name,
      steps: w.steps,
      errorRate: w.errorRate,
      transaction: w.transaction,
      ...(w.sample === undefined ? {} : { sample: w.sample }),
    },
  }));
}
