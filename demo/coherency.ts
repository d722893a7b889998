/**
 * The demo's contention/coherency mode: the work a request does while holding a slot grows with
 * the number n of requests holding slots, in the form of Gunther's Universal Scalability Law:
 *
 *   heldMs(n) = holdMs * (1 + alpha (n - 1) + beta n (n - 1))
 *
 * alpha (contention) is a serial share, beta (coherency) the crosstalk of every pair of workers,
 * as in a database whose transactions wait on each other's locks and invalidate each other's
 * cache lines. With n slots busy, throughput is Little's law n / heldMs(n):
 *
 *   X(n) = n / heldMs(n) * 1000 = gamma n / (1 + alpha (n - 1) + beta n (n - 1)),  gamma = 1000 / holdMs
 *
 * which is exactly the USL the report fits (so its fitted alpha and beta have a known truth). With
 * beta > 0 it peaks at N* = sqrt((1 - alpha) / beta) and falls beyond (retrograde scaling). The
 * pool caps n at its slots, so the truths a test can rely on are:
 *  - peak: the integer n in 1..slots maximising X(n), and X there (the demo's capacity);
 *  - saturated: X(slots), the throughput once offered load exceeds the peak (open model: the
 *    queue grows, every slot stays busy) -> the "collapse" shape when X(slots) < peak.
 *
 * Which n: by default the busy count averaged over the last DEFAULT_COHERENCY_WINDOW_MS (BusyAverage),
 * as lock and cache contention follow the load of the recent past, not of one instant, and the
 * work goes at the pace that average allows while it lasts (progressiveHold: holdMs of work at
 * rate holdMs / heldMs(n) per ms, re-read every window / 10). In a steady state the average is the
 * mean busy count, so X = n / heldMs(n) holds with n that mean. With a window of 0, n is the busy
 * count at the instant of the grant, the request itself included, fixed for the whole hold (the
 * demo's first form, kept for comparison: --coherency-window-ms 0). That instant reading
 * is exact for a closed loop (n clients, n always busy) but under an open model (arrival rate) it
 * undercuts the truth it is meant to show: an arrival counts itself on top of the time-average
 * (with Poisson arrivals it sees the average plus one, so the rate it can sustain is at most
 * about max n / heldMs(n + 1), 136.5 req/s for holdMs 10, beta 0.1 against a peak of 187.5), and a burst
 * of k arrivals after an event-loop stall is k busy slots at once, which tips the open model into
 * its collapsed equilibrium once k exceeds the unstable one (8 slots at 120 req/s, 5 at 170).
 * docs/decisions/202-collapse-truth-under-an-open-model.md has the measurements.
 * With alpha = beta = 0 this is the plain pool: heldMs = holdMs, peak = X(slots) = slots / holdMs * 1000.
 */

export interface CoherencyModel {
  /** alpha >= 0: serial share; each extra request in flight adds alpha x holdMs to every hold. */
  contentionAlpha: number;
  /** beta >= 0: crosstalk; each pair of requests in flight adds beta x holdMs to every hold. */
  coherencyBeta: number;
}

/** The default averaging window of the busy count the penalty follows (see the header). */
export const DEFAULT_COHERENCY_WINDOW_MS = 250;

export const NO_PENALTY: CoherencyModel = { contentionAlpha: 0, coherencyBeta: 0 };

/** heldMs(n) = holdMs (1 + alpha (n - 1) + beta n (n - 1)), for n >= 1 requests holding slots. */
export function heldMs(holdMs: number, m: CoherencyModel, n: number): number {
  const k = Math.max(1, n);
  return holdMs * (1 + m.contentionAlpha * (k - 1) + m.coherencyBeta * k * (k - 1));
}

/** X(n) = n / heldMs(n) * 1000 req/s with n slots busy. */
export function throughputPerSecAt(holdMs: number, m: CoherencyModel, n: number): number {
  return (n / heldMs(holdMs, m, n)) * 1000;
}

export interface PeakTruth {
  /** The concurrency (slots busy) of the highest throughput, an integer in 1..slots. */
  concurrency: number;
  perSec: number;
}

/** The integer n in 1..slots maximising X(n) (X is unimodal in n, so a scan is exact). */
export function peakOf(holdMs: number, m: CoherencyModel, slots: number): PeakTruth {
  let best: PeakTruth = { concurrency: 1, perSec: throughputPerSecAt(holdMs, m, 1) };
  for (let n = 2; n <= slots; n++) {
    const perSec = throughputPerSecAt(holdMs, m, n);
    if (perSec > best.perSec) best = { concurrency: n, perSec };
  }
  return best;
}

export function validateModel(m: CoherencyModel): CoherencyModel {
  for (const [name, v] of Object.entries(m)) {
    if (!(v >= 0) || !Number.isFinite(v)) throw new RangeError(`${name} must be a finite number >= 0, got ${v}`);
  }
  return m;
}

/**
 * The busy count averaged over the recent past: a time average of the number of holds in progress,
 * each past moment weighted by exp(-age / windowMs), as the Unix load average weights the run
 * queue. A hold counts as busy over its nominal interval [start, end] (the slot's clock, which the
 * pool credits too: orders.ts), not until the event loop notices its end: a stalled event loop
 * neither lengthens the work nor raises the penalty. A burst of k holds of d ms moves the average
 * by about k d / windowMs; a sustained n moves it to n within a few windows.
 */
export class BusyAverage {
  /** Average at doneAtMs of the holds that had ended by then. */
  private done = 0;
  private doneAtMs = 0;
  private open: BusyInterval[] = [];

  constructor(readonly windowMs: number) {
    if (!(windowMs > 0) || !Number.isFinite(windowMs))
      throw new RangeError(`windowMs must be a finite number > 0, got ${windowMs}`);
  }

  /**
   * A hold that started at startMs (at or before the next reading); busy until its end is set,
   * which may be earlier than the moment it is set (the nominal end of work noticed late).
   */
  start(startMs: number): BusyInterval {
    const h: BusyInterval = { startMs, endMs: Infinity };
    this.open.push(h);
    return h;
  }

  /** The average at nowMs (readings must not go back in time). */
  at(nowMs: number): number {
    const w = this.windowMs;
    const t = Math.max(nowMs, this.doneAtMs);
    let done = this.done * Math.exp(-(t - this.doneAtMs) / w);
    let ongoing = 0;
    const stillOpen: BusyInterval[] = [];
    for (const h of this.open) {
      const from = Math.exp(-(t - Math.min(h.startMs, t)) / w);
      if (h.endMs <= t) done += Math.exp(-(t - Math.max(h.startMs, h.endMs)) / w) - from;
      else {
        ongoing += 1 - from;
        stillOpen.push(h);
      }
    }
    this.open = stillOpen;
    this.done = done;
    this.doneAtMs = t;
    return done + ongoing;
  }
}

export interface BusyInterval {
  readonly startMs: number;
  /** Infinity while the hold lasts; set it to the hold's nominal end. */
  endMs: number;
}

/**
 * Work that progresses at the pace the penalty allows at each moment: holdMs of work, done at
 * rate holdMs / heldMsNow() per ms (1 when there is no penalty), as a transaction slows while
 * contention is high and speeds up when it falls. Re-read at most every stepMs.
 *
 * sleep(untilMs) waits until then and returns the time it woke up; the result is the nominal end
 * of the work, at or before that wake-up: a late wake-up (a stalled event loop) is credited at the
 * pace of the moment, not added to the work.
 */
export async function progressiveHold(
  startMs: number,
  holdMs: number,
  heldMsNow: (nowMs: number) => number,
  sleep: (untilMs: number) => Promise<number>,
  stepMs: number,
): Promise<number> {
  let leftMs = holdMs;
  let t = startMs;
  for (;;) {
    const factor = heldMsNow(t) / holdMs;
    const finishMs = t + leftMs * factor;
    const wokeMs = await sleep(Math.min(finishMs, t + stepMs));
    if (wokeMs >= finishMs) return finishMs;
    leftMs -= (wokeMs - t) / factor;
    t = wokeMs;
  }
}
