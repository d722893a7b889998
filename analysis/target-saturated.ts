/**
 * Did the target saturate in a step, on its own evidence: a connection pool with every connection
 * busy and requests waiting for one, or a server median far above the run's unloaded figure? A
 * failed step that shows either failed at the target, whatever the generator showed beside it
 * (verdicts.ts classifyFailure): a generator that lagged too does not make it generator-bound.
 *
 *   saturated <=> requests waiting for a pool connection, or
 *                 server p50 > tailFactor x unloaded and server p50 - unloaded > MIN_RISE_MS
 *
 * The unloaded figure is the warmup's median (the median of its last windows' medians, as
 * cold-target.ts reads it) minus the fastest RTT: the lowest rate the run offered, its own mix,
 * the same client. Not the RTT probe: a health check's round trip holds none of the service's
 * work, so every real request reads far above it. Not the first step that held: the search's
 * first loaded point, which a slow target has already saturated (a pool of 2 had 135 requests
 * waiting at step 1, and step 2's 2.4x on it read "the tail stayed low", generator-bound). A
 * warmup is cold (caches just reset, connections opening), which only raises the figure: it errs
 * towards the generator, as the first step did. Only the server's own median is read against it:
 * the client's holds the generator's own delays, the very symptom being judged. A fast target's
 * unloaded figure is near 0 (a warmup median of 0.62 ms less a 0.58 ms round trip), against which
 * a median that never moved (0.35 ms) read 3x over it: the rise must also pass MIN_RISE_MS, the
 * 5 ms a name's percentile must rise by to have degraded (names-knee.ts NAME_RISE_FLOOR_MS). Requests
 * waiting for a connection are saturation whether or not the pool's size is read: a pool's caller
 * waits only when every connection is out.
 *
 * Without the server's figures, the client's median is read the same way where arrivals dropped for
 * want of a VU are the generator's only symptom (clientSaturation): those drops are the effect of
 * the time per request, not a delay the generator added to it (Little's law: N = X x W), and a
 * generator within its other bounds adds at most its event loop's delay to a request's time, taken
 * off before the comparison. A target queueing past its capacity from step 1 on (a median of 302 ms
 * against 5 ms unloaded) had read "the tail stayed low" at step 2 (623 ms vs 448 ms) and again at
 * its rerun with twice the VUs (1,215 ms): generator-bound, capacity not established.
 */
import { fmtMs } from './format.ts';
import { NAME_RISE_FLOOR_MS } from './names-knee.ts';
import { poolAtLimit } from './pool.ts';
import { warmupMedian } from './cold-target.ts';
import { droppedForWantOfVUs, generatorSymptomOf } from './generator-symptoms.ts';
import type { GeneratorBounds, StepResult, WarmupRecord } from './types.ts';

/** How far above the unloaded figure a server median must be, besides tailFactor times it, to show saturation. */
export const MIN_RISE_MS = NAME_RISE_FLOOR_MS;

/** The run's unloaded server time (ms), and where it comes from in words. */
export interface Unloaded {
  ms: number;
  text: string;
}

/** The warmup's median minus the fastest RTT; null without a warmup that gives one. */
export function unloadedOf(warmup: WarmupRecord | null | undefined, rttMs: number, unit: string): Unloaded | null {
  const w = warmupMedian(warmup ?? null);
  if (w === null) return null;
  const ms = Math.max(w.p50Ms - rttMs, 0.1);
  return {
    ms,
    text: `the unloaded figure, the warmup's median at ${w.ratePerSec} ${unit} minus the RTT, ${w.p50Ms - rttMs > 0.1 ? fmtMs(ms) : 'under 0.1'} ms`,
  };
}

/**
 * The client's evidence of the target's saturation, for a step whose only generator symptom is
 * arrivals dropped for want of a VU:
 *
 *   saturated <=> p50 - RTT - loop delay > tailFactor x unloaded and > unloaded + MIN_RISE_MS
 *
 * (the loop delay is the step's largest: the most the generator's own loop added to a request).
 */
export function clientSaturation(
  s: StepResult,
  unloaded: Unloaded | null,
  factor: number,
  rttMs: number,
): { saturated: boolean; text: string } | null {
  const p = s.latency.find((x) => x.q === 50);
  if (unloaded === null || !p || !p.reliable || p.valueMs === null || !Number.isFinite(p.valueMs)) return null;
  const loopMs = s.loopDelayMaxMs ?? 0;
  const ms = p.valueMs - rttMs - loopMs;
  const saturated = ms > factor * unloaded.ms && ms - unloaded.ms > MIN_RISE_MS;
  const less = loopMs > 0 ? ` less the RTT and the generator's loop delay (${fmtMs(loopMs)} ms)` : ' less the RTT';
  return {
    saturated,
    text: `its median ${fmtMs(p.valueMs)} ms${less} is ${saturated ? 'over' : 'not over'} ${factor}x ${unloaded.text}`,
  };
}

/** The server's median over the step's window, where its histogram gives a trusted one. */
function serverP50(s: StepResult): number | null {
  const p = s.server?.percentiles?.find((x) => x.q === 50);
  return p && p.reliable && p.valueMs !== null && Number.isFinite(p.valueMs) ? p.valueMs : null;
}

/**
 * The target's own evidence on the step, in words: `saturated` when it shows saturation, else what
 * it showed (its median within tailFactor of the unloaded figure); null when it shows neither.
 */
export function targetSaturation(
  s: StepResult,
  unloaded: Unloaded | null,
  factor: number,
): { saturated: boolean; text: string } | null {
  const w = s.server;
  if (w && (w.poolPendingMax ?? 0) > 0)
    return {
      saturated: true,
      text: `its connection pool was at its limit${w.poolMax !== null && poolAtLimit(w) ? `, active up to ${w.poolActiveMax} of ${w.poolMax}` : ''} with up to ${w.poolPendingMax} requests waiting for a connection`,
    };
  const p50 = serverP50(s);
  if (unloaded === null || p50 === null) return null;
  const over = p50 > factor * unloaded.ms;
  const saturated = over && p50 - unloaded.ms > MIN_RISE_MS;
  return {
    saturated,
    text: `its server median ${fmtMs(p50)} ms is ${saturated ? 'over' : over ? `within ${MIN_RISE_MS} ms of` : 'within'} ${over && !saturated ? '' : `${factor}x `}${unloaded.text}`,
  };
}

/**
 * The target's evidence of saturation in s: the server's own where it shows it; else, where the
 * generator's only symptom is arrivals dropped for want of a VU, the client's median (those drops
 * follow from the time per request rather than add to it: target-saturated.ts clientSaturation).
 */
export function ownSaturation(
  s: StepResult,
  unloaded: Unloaded | null,
  b: GeneratorBounds,
  rttMs: number,
): { saturated: boolean; text: string } | null {
  const server = targetSaturation(s, unloaded, b.tailFactor);
  if (server?.saturated) return server;
  const dropsAlone =
    s.dropped > 0 && droppedForWantOfVUs(s) === s.dropped && generatorSymptomOf({ ...s, dropped: 0 }, b) === null;
  const client = dropsAlone ? clientSaturation(s, unloaded, b.tailFactor, rttMs) : null;
  return client?.saturated ? client : (server ?? client);
}
