/**
 * The demo's contention/coherency mode: the work a request does while holding a slot grows with
 * the number of requests holding slots at the moment it gets one (n, itself included), in the
 * form of Gunther's Universal Scalability Law:
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
 * n is sampled once, when a request's hold starts; the hold does not change afterwards.
 * With alpha = beta = 0 this is the plain pool: heldMs = holdMs, peak = X(slots) = slots / holdMs * 1000.
 */

export interface CoherencyModel {
  /** alpha >= 0: serial share; each extra request in flight adds alpha x holdMs to every hold. */
  contentionAlpha: number;
  /** beta >= 0: crosstalk; each pair of requests in flight adds beta x holdMs to every hold. */
  coherencyBeta: number;
}

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
